import { sql, type Kysely } from 'kysely';

/**
 * The server keys are bound to the database (docs/security.md, "Keys bound to their database"): a
 * fingerprint of AUDIT_HMAC_KEY and of IDEMPOTENCY_ENCRYPTION_KEY (an HMAC of a fixed label with the
 * key, never the key) is stored by the first process that migrates or starts on it, and a process
 * started with another key refuses to start instead of writing records nobody can verify.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `CREATE TABLE server_key_fingerprints (
  setting text PRIMARY KEY CHECK (setting IN ('AUDIT_HMAC_KEY', 'IDEMPOTENCY_ENCRYPTION_KEY')),
  fingerprint text NOT NULL CHECK (fingerprint ~ '^[0-9a-f]{64}$'),
  created_at timestamptz NOT NULL DEFAULT now()
)`,
    )
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('DROP TABLE server_key_fingerprints').execute(db);
}
