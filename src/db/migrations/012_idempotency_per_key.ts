import { sql, type Kysely } from 'kysely';

/**
 * Stored idempotent responses belong to the API key that sent the request (docs/api.md,
 * "Idempotency"), and are kept encrypted. Rows stored before this were keyed by account and mode
 * only and hold responses in clear, some with raw secrets: they are dropped, not carried over (a
 * retry that spans the upgrade runs again rather than replay another key's response).
 */
const statements = [
  `DELETE FROM idempotency_keys`,
  `ALTER TABLE idempotency_keys ADD COLUMN api_key_id text NOT NULL`,
  `ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey`,
  `ALTER TABLE idempotency_keys ADD PRIMARY KEY (account_id, livemode, api_key_id, key)`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('DELETE FROM idempotency_keys').execute(db);
  await sql.raw('ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey').execute(db);
  await sql.raw('ALTER TABLE idempotency_keys DROP COLUMN api_key_id').execute(db);
  await sql.raw('ALTER TABLE idempotency_keys ADD PRIMARY KEY (account_id, livemode, key)').execute(db);
}
