import { sql } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { KEY_USAGE_INTERVAL_MS } from '../keys/key-usage.js';

export type NonceClaim = 'claimed' | 'replayed' | 'revoked';

/**
 * Step 9 of DECISIONS §19: records (thumbprint, nonce) until `expiresAt`, in one autocommitted
 * statement that also re-reads the key, so a revocation committed by any process counts for every
 * request that has not got this far. No row back: the nonce was seen, or the key is no longer
 * active (told apart by a second read, on that rare path only).
 */
export async function claimNonce(db: DbOrTrx, agentKeyId: string, nonce: string, expiresAt: Date): Promise<NonceClaim> {
  const claimed = await db
    .insertInto('signature_nonces')
    .columns(['thumbprint', 'nonce', 'agent_key_id', 'expires_at'])
    .expression((eb) =>
      eb
        .selectFrom('agent_keys')
        .select(['agent_keys.thumbprint', sql<string>`${nonce}::text`.as('nonce'), 'agent_keys.id', sql<Date>`${expiresAt}::timestamptz`.as('expires_at')])
        .where('agent_keys.id', '=', agentKeyId)
        .where('agent_keys.status', '=', 'active'),
    )
    .onConflict((oc) => oc.columns(['thumbprint', 'nonce']).doNothing())
    .returning('agent_key_id')
    .executeTakeFirst();
  if (claimed) return 'claimed';
  return (await keyStatus(db, agentKeyId)) === 'active' ? 'replayed' : 'revoked';
}

export async function keyStatus(db: DbOrTrx, agentKeyId: string): Promise<'active' | 'revoked' | undefined> {
  return (await db.selectFrom('agent_keys').select('status').where('id', '=', agentKeyId).executeTakeFirst())?.status;
}

/** Nonces whose signatures can no longer verify (past `expires` + the skew): housekeeping deletes them. */
export async function purgeExpiredNonces(db: DbOrTrx, now: Date): Promise<number> {
  const result = await db.deleteFrom('signature_nonces').where('expires_at', '<', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Sets an agent key's `last_used_at` unless it was set less than a minute before `at` (by any process). */
export async function touchAgentKey(db: DbOrTrx, id: string, at: Date): Promise<void> {
  await db
    .updateTable('agent_keys')
    .set({ last_used_at: at })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', new Date(at.getTime() - KEY_USAGE_INTERVAL_MS))]))
    .execute();
}
