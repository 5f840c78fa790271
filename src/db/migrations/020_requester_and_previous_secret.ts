import { sql, type Kysely } from 'kysely';

/**
 * Four eyes in live mode: a decision keeps the API key that asked for it, so that key cannot
 * approve its own hold. Webhook secret rotation with a grace period: the previous secret and until
 * when deliveries are also signed with it. One statement each: the embedded engine runs a single
 * statement per query.
 */
const statements = [
  // Null for decisions made before (nobody is kept from approving them) and for any not asked by a key.
  `ALTER TABLE decisions ADD COLUMN requested_by text`,
  `ALTER TABLE webhook_endpoints ADD COLUMN previous_secret text`,
  `ALTER TABLE webhook_endpoints ADD COLUMN previous_secret_expires_at timestamptz`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const s of [
    'ALTER TABLE webhook_endpoints DROP COLUMN previous_secret_expires_at',
    'ALTER TABLE webhook_endpoints DROP COLUMN previous_secret',
    'ALTER TABLE decisions DROP COLUMN requested_by',
  ]) await sql.raw(s).execute(db);
}
