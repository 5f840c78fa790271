import { sql, type Kysely } from 'kysely';

/**
 * The order records were written in, assigned by the database: the sealer chains committed records
 * in this order. Several records written by one transaction within the same millisecond (a PATCH that
 * freezes and renames an agent) used to tie on created_at and be chained in random id order.
 */
const statements = [
  `ALTER TABLE audit_records ADD COLUMN insert_order bigint GENERATED ALWAYS AS IDENTITY`,
  `DROP INDEX audit_records_unsealed_idx`,
  `CREATE INDEX audit_records_unsealed_idx ON audit_records (account_id, livemode, insert_order) WHERE hash IS NULL`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('DROP INDEX audit_records_unsealed_idx').execute(db);
  await sql.raw('CREATE INDEX audit_records_unsealed_idx ON audit_records (account_id, livemode, created_at, id) WHERE hash IS NULL').execute(db);
  await sql.raw('ALTER TABLE audit_records DROP COLUMN insert_order').execute(db);
}
