import type { KeyDirectoryFetchSettings } from '../agent-keys/agent-key-deps.js';
import { startDirectoryRefresher } from '../agent-keys/directory-refresher.js';
import { purgeExpiredNonces } from '../agent-keys/nonce-purge.js';
import { expireOverdueHolds, HELD_EXPIRY_GRACE_MS } from '../approvals/resolution.service.js';
import type { Db } from '../db/database.js';
import { purgeExpiredKeys } from '../idempotency/idempotency.repository.js';
import type { Logger } from '../kernel/logger.js';
import { RATE_LIMIT_WINDOW_MS, windowAt } from '../ratelimit/limits.js';
import { purgeCounters } from '../ratelimit/ratelimit.repository.js';
import { forgetExpiredPreviousSecrets } from '../webhooks/webhooks.repository.js';

/**
 * Stored idempotent responses may carry secrets (raw keys, webhook secrets, tokens): they are
 * deleted within a minute of their 24 hours ending, not left for an hourly sweep.
 */
export const IDEMPOTENCY_PURGE_INTERVAL_MS = 60 * 1000;
/** Rate-limit counters of ended windows are useless: drop them often so the table stays small. */
export const RATE_LIMIT_PURGE_INTERVAL_MS = 5 * 60 * 1000;

/** How often the database looks for holds the workflow engine has not expired. */
export const HELD_EXPIRY_INTERVAL_MS = 10_000;

export interface HousekeepingOptions {
  /** Told of each hold the fallback expired (wakes long-polls in this process). */
  onHoldExpired?: (decisionId: string) => void;
  /** Tests: a faster sweep, no grace, one account's holds only (the database may be shared). */
  heldExpiry?: { intervalMs?: number; graceMs?: number; accountId?: string };
  /** How agents' key directories are refetched (DECISIONS §19): WEBHOOK_ALLOW_PRIVATE_URLS; absent: public addresses only. */
  keyDirectories?: KeyDirectoryFetchSettings;
}

/** Periodic clean-up that no request should wait for; returns a stop function. */
export function startHousekeeping(db: Db, log: Logger, opts: HousekeepingOptions = {}): () => void {
  const run = async () => {
    try {
      const purged = await purgeExpiredKeys(db, new Date());
      if (purged > 0) log.info({ purged }, 'expired idempotency keys purged');
      // A rotated-out webhook secret is kept no longer than its grace period (within a minute).
      await forgetExpiredPreviousSecrets(db, new Date());
    } catch (err) {
      log.warn({ err }, 'housekeeping failed; will retry');
    }
    try {
      // Replay protection needs a nonce only until its signature expires (+ margins): the table stays small.
      const nonces = await purgeExpiredNonces(db, new Date());
      if (nonces > 0) log.debug({ purged: nonces }, 'expired signature nonces purged');
    } catch (err) {
      log.warn({ err }, 'signature nonce purge failed; will retry');
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
  const expiry = opts.heldExpiry ?? {};
  // Expiry is a money-safety promise (a hold reserves budget): it must not wait for the engine.
  let expiring = false;
  const expireHolds = async () => {
    if (expiring) return;
    expiring = true;
    try {
      const expired = await expireOverdueHolds({ db }, { graceMs: expiry.graceMs ?? HELD_EXPIRY_GRACE_MS, accountId: expiry.accountId });
      for (const id of expired) opts.onHoldExpired?.(id);
      if (expired.length > 0) log.info({ expired: expired.length, decision_ids: expired.slice(0, 10) }, 'held requests expired by the database: their workflows had not done it');
    } catch (err) {
      log.warn({ err }, 'expiring overdue held requests failed; will retry');
    } finally {
      expiring = false;
    }
  };
  const timer = setInterval(() => void run(), IDEMPOTENCY_PURGE_INTERVAL_MS);
  const rateLimitTimer = setInterval(() => void purgeRateLimits(), RATE_LIMIT_PURGE_INTERVAL_MS);
  const expiryTimer = setInterval(() => void expireHolds(), expiry.intervalMs ?? HELD_EXPIRY_INTERVAL_MS);
  for (const t of [timer, rateLimitTimer, expiryTimer]) t.unref();
  const stopDirectories = startDirectoryRefresher(db, opts.keyDirectories ?? { allowPrivateUrls: false }, log);
  return () => {
    stopDirectories();
    clearInterval(timer);
    clearInterval(rateLimitTimer);
    clearInterval(expiryTimer);
  };
}
