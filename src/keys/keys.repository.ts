import { sql } from 'kysely';
import type { Selectable, ApiKeysTable, DbOrTrx, Plan } from '../db/database.js';
import { afterRow } from '../db/pagination.js';
import { KEY_USAGE_INTERVAL_MS } from './key-usage.js';
import { inScope } from '../db/scope.js';

export type ApiKeyRow = Selectable<ApiKeysTable>;

export async function insertApiKey(db: DbOrTrx, row: Omit<ApiKeyRow, 'revoked_at' | 'last_used_at'>) {
  return db.insertInto('api_keys').values(row).returningAll().executeTakeFirstOrThrow();
}

export interface KeyWithAccount extends ApiKeyRow {
  plan: Plan;
  rate_limit: number | null;
  /** An agent key's bound policy has `require_signed_requests` (DECISIONS §19); false for other keys. */
  signed_requests_required: boolean;
}

/**
 * The usable key of this hash, with its account's plan and, for an agent key, whether the agent's
 * policy requires signed requests: one statement, cached with the caller (src/keys/key-cache.ts).
 */
export async function findActiveKeyByHash(db: DbOrTrx, hash: string): Promise<KeyWithAccount | undefined> {
  return db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .leftJoin('agents', 'agents.id', 'api_keys.agent_id')
    .leftJoin('policies', (join) => join.onRef('policies.id', '=', 'agents.policy_id').on('policies.deleted_at', 'is', null))
    .selectAll('api_keys')
    .select(['accounts.plan', 'accounts.rate_limit'])
    .select(sql<boolean>`coalesce(policies.require_signed_requests, false)`.as('signed_requests_required'))
    .where('api_keys.key_hash', '=', hash)
    .where('api_keys.revoked_at', 'is', null)
    .executeTakeFirst();
}

export async function findKey(db: DbOrTrx, accountId: string, livemode: boolean, id: string) {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('id', '=', id)
    .$call(inScope({ accountId, livemode }))
    .executeTakeFirst();
}

/** A key's name, whatever its account (an approval shows the name its key had when it approved). */
export async function keyName(db: DbOrTrx, id: string): Promise<string | undefined> {
  return (await db.selectFrom('api_keys').select('name').where('id', '=', id).executeTakeFirst())?.name;
}

/**
 * Each key's line upwards: the key itself and every key it descends from (the key that minted it
 * through the API, the key that minted that one, and so on up to a key made on the command line).
 * One recursive query for all of `ids`; an unknown id maps to an empty set.
 */
export async function keyAncestry(db: DbOrTrx, ids: readonly string[]): Promise<Map<string, Set<string>>> {
  const lines = new Map<string, Set<string>>(ids.map((id) => [id, new Set<string>()]));
  if (ids.length === 0) return lines;
  // UNION (not UNION ALL) stops at a row seen before: the walk ends even on a cycle no insert makes.
  const { rows } = await sql<{ origin: string; id: string }>`
    WITH RECURSIVE line(origin, id, created_by) AS (
      SELECT id, id, created_by FROM api_keys WHERE id IN (${sql.join([...new Set(ids)])})
      UNION
      SELECT line.origin, k.id, k.created_by FROM api_keys k JOIN line ON k.id = line.created_by
    )
    SELECT origin, id FROM line`.execute(db);
  for (const r of rows) lines.get(r.origin)!.add(r.id);
  return lines;
}

export async function listKeys(
  db: DbOrTrx,
  accountId: string,
  livemode: boolean,
  limit: number,
  cursorId?: string,
) {
  let q = db
    .selectFrom('api_keys')
    .selectAll()
    .$call(inScope({ accountId, livemode }));
  if (cursorId) q = q.where(afterRow('api_keys', cursorId, { accountId, livemode }));
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export async function revokeKey(db: DbOrTrx, id: string) {
  return db
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** Sets `last_used_at` unless it was set less than a minute before `at` (by any process). */
export async function touchKey(db: DbOrTrx, id: string, at: Date) {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: at })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', new Date(at.getTime() - KEY_USAGE_INTERVAL_MS))]))
    .execute();
}
