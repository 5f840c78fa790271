import type { Db } from './db/database.js';
import { purgeExpiredKeys } from './idempotency/idempotency.repository.js';
import type { Logger } from './logger.js';
import { RATE_LIMIT_WINDOW_MS, windowAt } from './ratelimit/limits.js';
import { purgeCounters } from './ratelimit/ratelimit.repository.js';

/**
 * Stored idempotent responses may carry secrets (raw keys, webhook secrets, tokens): they are
 * deleted within a minute of their 24 hours ending, not left for an hourly sweep.
 */
export const IDEMPOTENCY_PURGE_INTERVAL_MS = 60 * 1000;
/** Rate-limit counters of ended windows are useless: drop them often so the table stays small. */
export const RATE_LIMIT_PURGE_INTERVAL_MS = 5 * 60 * 1000;

/** Periodic clean-up that no request should wait for; returns a stop function. */
export function startHousekeeping(db: Db, log: Logger): () => void {
  const run = async () => {
    try {
      const purged = await purgeExpiredKeys(db, new Date());
      if (purged > 0) log.info({ purged }, 'expired idempotency keys purged');
    } catch (err) {
      log.warn({ err }, 'housekeeping failed; will retry');
    }
  };
  const purgeRateLimits = async () => {
    try {
      // Keep the previous window too: a process whose clock lags slightly may still count in it.
      await purgeCounters(db, new Date(windowAt(Date.now()).start.getTime() - RATE_LIMIT_WINDOW_MS));
    } catch (err) {
      log.warn({ err }, 'rate-limit counter purge failed; will retry');
    }
  };
  const timer = setInterval(() => void run(), IDEMPOTENCY_PURGE_INTERVAL_MS);
  const rateLimitTimer = setInterval(() => void purgeRateLimits(), RATE_LIMIT_PURGE_INTERVAL_MS);
  timer.unref();
  rateLimitTimer.unref();
  return () => {
    clearInterval(timer);
    clearInterval(rateLimitTimer);
  };
}
