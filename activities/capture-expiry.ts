import { CAPTURE_EXPIRY_BATCH, expireUncapturedApprovals } from '../src/capture/capture.service.js';
import type { Db } from '../src/db/database.js';
import { heartbeat } from './periodic.js';
import type { Logger } from '../src/kernel/logger.js';
import type { CaptureExpiryResult } from '../workflows/capture-expiry.types.js';

/** One run expires at most this many batches; the next run (a minute later) takes the rest. */
export const CAPTURE_EXPIRY_MAX_BATCHES = 25;

export interface CaptureExpiryActivityDeps {
  db: Db;
  log?: Pick<Logger, 'info' | 'warn'>;
  now?: () => Date;
}

/**
 * Approvals not captured within their policy's capture window expire (docs/api.md, "Capture and
 * void"). Safe to run twice, concurrently with itself and with captures and voids: each approval is
 * changed under its agent's lock and only while still uncaptured, so exactly one of them records
 * its outcome.
 */
export function createCaptureExpiryActivities(deps: CaptureExpiryActivityDeps) {
  return {
    async expireUncapturedApprovals(): Promise<CaptureExpiryResult> {
      const result: CaptureExpiryResult = { expired: 0, batches: 0 };
      for (let more = true; more && result.batches < CAPTURE_EXPIRY_MAX_BATCHES; ) {
        const batch = await expireUncapturedApprovals(deps, { limit: CAPTURE_EXPIRY_BATCH });
        result.batches += 1;
        result.expired += batch.expired.length;
        // A batch whose approvals were all settled by someone else in the meantime ends the run.
        more = batch.more && batch.expired.length > 0;
        heartbeat(result);
      }
      if (result.expired > 0) deps.log?.info({ expired: result.expired }, 'uncaptured approvals expired');
      return result;
    },
  };
}

export type CaptureExpiryActivities = ReturnType<typeof createCaptureExpiryActivities>;
