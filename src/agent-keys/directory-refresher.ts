import type { Db } from '../db/database.js';
import type { Logger } from '../kernel/logger.js';
import { DIRECTORY_MAX_AGE_MIN_SECONDS, type KeyDirectoryFetchSettings } from './agent-key-deps.js';
import { DirectoryError, fetchDirectory } from './key-directory.js';
import { claimDueDirectories, recordDirectoryFailure, recordDirectoryListing } from './key-directory.repository.js';

/** How often due directories are looked for: a dropped key stops verifying at most this long after its listing's max-age. */
export const DIRECTORY_REFRESH_INTERVAL_MS = 15_000;
/** Directories fetched per round, at once. */
export const DIRECTORY_REFRESH_BATCH = 20;
/** A claimed directory is left to its claimer this long; after a failure it is tried again then (the shortest max-age). */
export const DIRECTORY_REFRESH_LEASE_MS = DIRECTORY_MAX_AGE_MIN_SECONDS * 1000;

export interface RefreshRound {
  refreshed: number;
  failed: number;
}

/**
 * Fetches again every directory whose listing ran out and that an active key still depends on.
 * Success replaces the listing; failure keeps the last one (DECISIONS §19) and notes the rule it
 * broke. Verification only ever reads the stored listing: nothing is fetched on a request's path,
 * and every process sees the same listing.
 */
export async function refreshDueDirectories(db: Db, settings: KeyDirectoryFetchSettings, opts: { now?: Date; log?: Logger } = {}): Promise<RefreshRound> {
  const now = opts.now ?? new Date();
  const due = await claimDueDirectories(db, now, DIRECTORY_REFRESH_BATCH, DIRECTORY_REFRESH_LEASE_MS);
  const results = await Promise.all(
    due.map(async (dir) => {
      try {
        const listing = await fetchDirectory(dir.origin, { ...settings, livemode: dir.livemode });
        await recordDirectoryListing(db, dir, listing, opts.now ?? new Date());
        return true;
      } catch (err) {
        const rule = err instanceof DirectoryError ? err.message : 'could not be fetched';
        if (!(err instanceof DirectoryError)) opts.log?.warn({ err, directory_id: dir.id }, 'key directory refresh failed unexpectedly');
        await recordDirectoryFailure(db, dir.id, rule);
        return false;
      }
    }),
  );
  const failed = results.filter((ok) => !ok).length;
  return { refreshed: results.length - failed, failed };
}

/** Runs refreshDueDirectories every 15 s (never two rounds at once); returns a stop function. */
export function startDirectoryRefresher(db: Db, settings: KeyDirectoryFetchSettings, log: Logger, intervalMs = DIRECTORY_REFRESH_INTERVAL_MS): () => void {
  let running = false;
  const round = async () => {
    if (running) return;
    running = true;
    try {
      const { refreshed, failed } = await refreshDueDirectories(db, settings, { log });
      if (failed > 0) log.info({ refreshed, failed }, 'key directories refetched; the failed ones keep their last listing');
    } catch (err) {
      log.warn({ err }, 'key directory refresh failed; will retry');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void round(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
