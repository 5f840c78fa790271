import { asyncLocalStorage as activityContext } from '@temporalio/activity';
import { logChainCut } from '../src/audit/audit-sealer.js';
import { sealAllChains } from '../src/audit/audit.repository.js';
import { sendDailyCheckpoint } from '../src/audit/audit-checkpoint.service.js';
import { chainsWithRecords, type ChainKey } from '../src/audit/audit-verify.repository.js';
import type { Db } from '../src/db/database.js';
import type { Logger } from '../src/logger.js';
import type { TokenSigner } from '../src/tokens/authorization-token.js';
import type { AuditCheckpointsResult } from '../workflows/audit-checkpoints.types.js';

/** Chains read per page. */
export const AUDIT_CHECKPOINT_PAGE = 100;

export interface AuditCheckpointActivityDeps {
  db: Db;
  signer: TokenSigner;
  /** AUDIT_CHECKPOINT_WEBHOOKS: off (the default), a run sends nothing. */
  auditCheckpointWebhooks?: boolean;
  log?: Pick<Logger, 'info' | 'warn' | 'error'>;
  now?: () => Date;
}

export function createAuditCheckpointActivities(deps: AuditCheckpointActivityDeps) {
  return {
    /** The day's checkpoint of every chain with records, to each account's subscribed endpoints; safe to repeat. */
    async sendAuditCheckpoints(input: { day: string }): Promise<AuditCheckpointsResult> {
      const result: AuditCheckpointsResult = { day: input.day, enabled: deps.auditCheckpointWebhooks === true, chains: 0, sent: 0, alreadySent: 0, noEndpoint: 0 };
      if (!result.enabled) return result;
      const serviceDeps = { db: deps.db, keys: deps.signer.keys, ...(deps.now ? { now: deps.now } : {}), ...(deps.log ? { onCut: logChainCut.bind(null, deps.log) } : {}) };
      // A chain whose first records are not sealed yet has no head to list: seal what is committed first.
      await sealAllChains(deps.db, serviceDeps.onCut);
      let after: ChainKey | undefined;
      for (;;) {
        const page = await chainsWithRecords(deps.db, AUDIT_CHECKPOINT_PAGE, after);
        for (const chain of page) {
          result.chains += 1;
          const outcome = await sendDailyCheckpoint(serviceDeps, chain, input.day);
          if (outcome === 'sent') result.sent += 1;
          else if (outcome === 'already_sent') result.alreadySent += 1;
          else result.noEndpoint += 1;
        }
        // Outside an activity (a test) there is nothing to report to.
        activityContext.getStore()?.heartbeat(result);
        if (page.length < AUDIT_CHECKPOINT_PAGE) break;
        after = page.at(-1);
      }
      if (result.sent > 0) deps.log?.info({ day: input.day, sent: result.sent }, 'daily audit checkpoints sent');
      return result;
    },
  };
}

export type AuditCheckpointActivities = ReturnType<typeof createAuditCheckpointActivities>;
