import { sql, type Kysely } from 'kysely';

/**
 * A key minted through the API keeps the key that minted it (DECISIONS §8, "A key cannot lend its
 * hands to itself"): the requester of a live hold and every key descending from it may not approve
 * it, and a key and its descendants count as one approver of a quorum. Null for keys made on the
 * command line or at bootstrap. Never changed afterwards, also when either key is revoked (keys are
 * revoked, never deleted).
 *
 * `created_via` says where a key came from: `api` (minted by `created_by`), `command_line`, or
 * `unknown`. Keys made before this migration get both from their `api_key.created` audit record,
 * which has named the minting key (actor `api_key`) or the command line (actor `system`) since the
 * first release: without the backfill every earlier key would descend from no one, and a reviewer
 * an admin key minted before the upgrade could approve that admin's live holds. A key with no such
 * record, or another actor, is `unknown` with no `created_by`.
 *
 * The guard is created after the backfill, so the backfill is the only write that ever sets either
 * column on an existing row; from then on an UPDATE changing them is refused in the database, as
 * the audit log's append-only triggers refuse rewrites. Revoking and `last_used_at` still update.
 * One statement each: the embedded engine runs a single statement per query.
 */
const statements = [
  'ALTER TABLE api_keys ADD COLUMN created_by text REFERENCES api_keys(id)',
  `ALTER TABLE api_keys ADD COLUMN created_via text NOT NULL DEFAULT 'unknown'
     CHECK (created_via IN ('api', 'command_line', 'unknown'))`,
  // The record names the new key in metadata.api_key_id and its minter as the actor; the minter
  // must be a key of the same account and mode (as the API only ever mints), never the key itself.
  `UPDATE api_keys k SET created_by = r.actor_id, created_via = 'api'
     FROM audit_records r, api_keys m
    WHERE r.type = 'api_key.created' AND r.actor_type = 'api_key'
      AND r.metadata->>'api_key_id' = k.id
      AND r.account_id = k.account_id AND r.livemode = k.livemode
      AND m.id = r.actor_id AND m.id <> k.id
      AND m.account_id = k.account_id AND m.livemode = k.livemode`,
  // `spend-auth accounts create` and the embedded bootstrap record their keys with actor `system`.
  `UPDATE api_keys k SET created_via = 'command_line'
    WHERE k.created_by IS NULL AND EXISTS (
      SELECT 1 FROM audit_records r
       WHERE r.type = 'api_key.created' AND r.actor_type = 'system'
         AND r.metadata->>'api_key_id' = k.id
         AND r.account_id = k.account_id AND r.livemode = k.livemode)`,
  // New rows say where they came from themselves; no default hides a forgotten one.
  'ALTER TABLE api_keys ALTER COLUMN created_via DROP DEFAULT',
  `ALTER TABLE api_keys ADD CONSTRAINT api_keys_created_via_matches
     CHECK ((created_via = 'api') = (created_by IS NOT NULL))`,
  `CREATE FUNCTION api_keys_descent_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'api_keys.created_by and created_via are kept for good (% refused)', TG_OP;
END;
$$`,
  `CREATE TRIGGER api_keys_descent_kept BEFORE UPDATE ON api_keys
     FOR EACH ROW WHEN ((OLD.created_by, OLD.created_via) IS DISTINCT FROM (NEW.created_by, NEW.created_via))
     EXECUTE FUNCTION api_keys_descent_kept()`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const s of [
    'DROP TRIGGER api_keys_descent_kept ON api_keys',
    'DROP FUNCTION api_keys_descent_kept()',
    'ALTER TABLE api_keys DROP COLUMN created_via',
    'ALTER TABLE api_keys DROP COLUMN created_by',
  ]) {
    await sql.raw(s).execute(db);
  }
}
