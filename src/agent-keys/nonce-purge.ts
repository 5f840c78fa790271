import type { DbOrTrx } from '../db/database.js';

/**
 * Nonces are kept until their signature's `expires` + 30 s (DECISIONS §19, step 9); they are
 * deleted a minute after that, so a process whose clock runs behind still finds them.
 */
export const NONCE_PURGE_MARGIN_MS = 60_000;

/** Deletes the nonces no signature can be replayed with any more (the signature_nonces_expiry index); returns how many. */
export async function purgeExpiredNonces(db: DbOrTrx, now: Date): Promise<number> {
  const result = await db
    .deleteFrom('signature_nonces')
    .where('expires_at', '<', new Date(now.getTime() - NONCE_PURGE_MARGIN_MS))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
