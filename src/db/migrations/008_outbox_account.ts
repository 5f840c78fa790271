import { sql, type Kysely } from 'kysely';

/** The account an outbox row belongs to: lets a relay (or an operator) look at one account's backlog. */
const statements = [
  `ALTER TABLE outbox ADD COLUMN account_id text`,
  `UPDATE outbox o SET account_id = coalesce(
     (SELECT account_id FROM decisions d WHERE d.id = o.ref_id),
     (SELECT account_id FROM events e WHERE e.id = o.ref_id),
     (SELECT account_id FROM webhook_deliveries w WHERE w.id = o.ref_id))`,
  `CREATE INDEX outbox_account_due_idx ON outbox (account_id, next_attempt_at) WHERE processed_at IS NULL`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('ALTER TABLE outbox DROP COLUMN account_id').execute(db);
}
