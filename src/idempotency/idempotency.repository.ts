import { sql } from 'kysely';
import type { DbOrTrx, IdempotencyKeysTable, Selectable } from '../db/database.js';
import { inScope } from '../db/scope.js';
import { claimLost, isClaimLost } from '../kernel/idempotency.js';

export type IdempotencyRow = Selectable<IdempotencyKeysTable>;

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
/** An in-progress claim older than this belonged to a request that died before committing anything. */
export const IDEMPOTENCY_STALE_CLAIM_MS = 60 * 1000;

/** A stored response belongs to the API key that sent the request, not to its account (docs/api.md, "Idempotency"). */
export interface IdempotencyScope {
  accountId: string;
  livemode: boolean;
  apiKeyId: string;
  key: string;
  /** This request's claim (claimKey): its response is stored, or its key released, only under it. */
  claimId?: string;
}

/**
 * Claims the key for this request. Returns undefined when claimed; otherwise the row that holds it.
 * An expired completed row or a stale in-progress claim is taken over.
 */
export async function claimKey(db: DbOrTrx, s: IdempotencyScope, requestHash: string, now: Date): Promise<IdempotencyRow | undefined> {
  const expiredBefore = new Date(now.getTime() - IDEMPOTENCY_TTL_MS);
  const staleBefore = new Date(now.getTime() - IDEMPOTENCY_STALE_CLAIM_MS);
  const claimed = await sql<{ key: string }>`
    INSERT INTO idempotency_keys (account_id, livemode, api_key_id, key, request_hash, status, created_at, claim_id)
    VALUES (${s.accountId}, ${s.livemode}, ${s.apiKeyId}, ${s.key}, ${requestHash}, 'in_progress', ${now}, ${s.claimId ?? null})
    ON CONFLICT (account_id, livemode, api_key_id, key) DO UPDATE
      SET request_hash = excluded.request_hash, status = 'in_progress', response_status = NULL,
          response_type = NULL, response_body = NULL, created_at = excluded.created_at, claim_id = excluded.claim_id
      WHERE idempotency_keys.created_at < ${expiredBefore}
         OR (idempotency_keys.status = 'in_progress' AND idempotency_keys.created_at < ${staleBefore})
    RETURNING key`.execute(db);
  if (claimed.rows.length > 0) return undefined;
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .$call(inScope(s))
    .where('api_key_id', '=', s.apiKeyId)
    .where('key', '=', s.key)
    .executeTakeFirst();
}

/** Stores the response; inside a service's transaction it commits with the change it describes. */
export async function completeKey(db: DbOrTrx, s: IdempotencyScope, status: number, type: string, body: string): Promise<void> {
  try {
    await completeKeyStatement(db, s, status, type, body).execute();
  } catch (err) {
    if (isClaimLost(err)) throw claimLost();
    throw err;
  }
}

/**
 * The update `completeKey` runs, for callers that write it together with other rows. A row held
 * by another claim aborts it (SA410): checked in the SET, which only the key's own row reaches.
 */
export function completeKeyStatement(db: DbOrTrx, s: IdempotencyScope, status: number, type: string, body: string) {
  return db
    .updateTable('idempotency_keys')
    .set({
      // No literal in the text: executeTogether renumbers placeholders and refuses quoted text.
      status: sql<'completed'>`case when spend_auth_claim_held(claim_id is not distinct from ${s.claimId ?? null}::text) then ${'completed'} end`,
      response_status: status,
      response_type: type,
      response_body: body,
    })
    .$call(inScope(s))
    .where('api_key_id', '=', s.apiKeyId)
    .where('key', '=', s.key)
    .where('status', '=', 'in_progress');
}

/** Frees the key after a failure that changed nothing (a 5xx), so the client may retry it. */
export async function releaseKey(db: DbOrTrx, s: IdempotencyScope): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .$call(inScope(s))
    .where('api_key_id', '=', s.apiKeyId)
    .where('key', '=', s.key)
    .where('status', '=', 'in_progress')
    // Only this request's own claim: a stalled request never frees the key a retry holds.
    .where(sql<boolean>`claim_id is not distinct from ${s.claimId ?? null}::text`)
    .execute();
}

/** Expired rows go, stored responses (some carrying secrets) with them. */
export async function purgeExpiredKeys(db: DbOrTrx, now: Date): Promise<number> {
  const res = await db
    .deleteFrom('idempotency_keys')
    .where('created_at', '<', new Date(now.getTime() - IDEMPOTENCY_TTL_MS))
    .executeTakeFirst();
  return Number(res.numDeletedRows ?? 0);
}
