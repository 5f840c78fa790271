import type { Db } from './db/database.js';
import { purgeExpiredKeys } from './idempotency/idempotency.repository.js';
import type { Logger } from './logger.js';

export const HOUSEKEEPING_INTERVAL_MS = 60 * 60 * 1000;

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
  const timer = setInterval(() => void run(), HOUSEKEEPING_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
