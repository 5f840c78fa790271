import { CompiledQuery } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { preparedSql } from '../db/prepared.js';

const HIT_COUNTER = preparedSql(`
    INSERT INTO rate_limit_counters (bucket, window_start, count)
    VALUES ($1, $2, 1)
    ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limit_counters.count + 1
    RETURNING count`);

/**
 * Counts one request in a window and returns the window's count so far, in one statement: the
 * only round trip rate limiting adds to a request. Runs on its own, never inside a business
 * transaction, so a rolled-back request still counts and a counter row is locked only briefly.
 */
export async function hitCounter(db: DbOrTrx, bucket: string, windowStart: Date): Promise<number> {
  const { rows } = await db.executeQuery<{ count: number }>(CompiledQuery.raw(HIT_COUNTER, [bucket, windowStart]));
  return Number(rows[0]!.count);
}

/** Drops windows that ended before `before`; returns how many rows went. */
export async function purgeCounters(db: DbOrTrx, before: Date): Promise<number> {
  const res = await db.deleteFrom('rate_limit_counters').where('window_start', '<', before).executeTakeFirst();
  return Number(res.numDeletedRows ?? 0);
}
