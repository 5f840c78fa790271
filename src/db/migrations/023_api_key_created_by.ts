import { sql, type Kysely } from 'kysely';

/**
 * A key minted through the API keeps the key that minted it (DECISIONS §8, "A key cannot lend its
 * hands to itself"): the requester of a live hold and every key descending from it may not approve
 * it, and a key and its descendants count as one approver of a quorum. Null for keys made on the
 * command line or at bootstrap, and for keys made before this column (their origin is unknown).
 * Never changed afterwards, also when either key is revoked (keys are revoked, never deleted).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw('ALTER TABLE api_keys ADD COLUMN created_by text REFERENCES api_keys(id)').execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('ALTER TABLE api_keys DROP COLUMN created_by').execute(db);
}
