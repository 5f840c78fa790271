import { CompiledQuery } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { preparedSql } from '../db/prepared.js';

const HIT_COUNTER = preparedSql(`
    INSERT INTO rate_limit_counters (bucket, window_start, count)
    VALUES ($1, $2, $3)
    ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limit_counters.count + excluded.count
    RETURNING count`);

/**
 * Counts `requests` (one request, or a block a process takes at once) in a window and returns the
 * window's count so far, in one statement: the only round trip rate limiting adds. Runs on its own,
 * never inside a business transaction, so a rolled-back request still counts and a counter row is
 * locked only briefly.
 */
export async function hitCounter(db: DbOrTrx, bucket: string, windowStart: Date, requests = 1): Promise<number> {
  const { rows } = await db.executeQuery<{ count: number }>(CompiledQuery.raw(HIT_COUNTER, [bucket, windowStart, requests]));
  return Number(rows[0]!.count);
}

/** Drops windows that ended before `before`; returns how many rows went. */
export async function purgeCounters(db: DbOrTrx, before: Date): Promise<number> {
  const res = await db.deleteFrom('rate_limit_counters').where('window_start', '<', before).executeTakeFirst();
  return Number(res.numDeletedRows ?? 0);
}
