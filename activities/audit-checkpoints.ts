import { logChainCut } from '../src/audit/audit-sealer.js';
import { sendDailyCheckpoints } from '../src/audit/audit-checkpoint.service.js';
import type { Db } from '../src/db/database.js';
import type { Logger } from '../src/kernel/logger.js';
import type { TokenSigner } from '../src/tokens/authorization-token.js';
import { subscribedEndpoints } from '../src/webhooks/webhooks.repository.js';
import type { AuditCheckpointsResult } from '../workflows/audit-checkpoints.types.js';
import { heartbeat } from './periodic.js';

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
      const enabled = deps.auditCheckpointWebhooks === true;
      if (!enabled) return { day: input.day, enabled, chains: 0, sent: 0, alreadySent: 0, noEndpoint: 0 };
      const tally = await sendDailyCheckpoints(
        {
          db: deps.db,
          keys: deps.signer.keys,
          hasSubscriber: async (trx, chain, type) => (await subscribedEndpoints(trx, chain, type)).length > 0,
          ...(deps.now ? { now: deps.now } : {}),
          ...(deps.log ? { onCut: logChainCut.bind(null, deps.log) } : {}),
        },
        input.day,
        (progress) => heartbeat({ day: input.day, enabled, ...progress }),
      );
      if (tally.sent > 0) deps.log?.info({ day: input.day, sent: tally.sent }, 'daily audit checkpoints sent');
      return { day: input.day, enabled, ...tally };
    },
  };
}

export type AuditCheckpointActivities = ReturnType<typeof createAuditCheckpointActivities>;
