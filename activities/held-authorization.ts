import { ApplicationFailure } from '@temporalio/common';
import { resolveHeldDecision as recordResolution } from '../src/approvals/resolution.service.js';
import type { Db } from '../src/db/database.js';
import { AppError } from '../src/errors.js';
import type { TokenSigner } from '../src/tokens/authorization-token.js';
import type { ResolutionSummary, ResolveActivityInput } from '../workflows/held-authorization.types.js';

export interface HeldActivityDeps {
  db: Db;
  signer: TokenSigner;
  /** Told after a resolution is committed (wakes long-polls in this process). */
  onResolved?: (decisionId: string) => void;
}

/** Activities of the held-authorization workflow, built from injected dependencies. */
export function createHeldActivities(deps: HeldActivityDeps) {
  return {
    /** Idempotent: only a pending decision changes (`… WHERE status = 'pending'` under lock); a retry records nothing twice. */
    async resolveHeldDecision(input: ResolveActivityInput): Promise<ResolutionSummary> {
      let resolution;
      try {
        resolution = await recordResolution(deps, {
          decisionId: input.decisionId,
          outcome: input.outcome,
          note: input.note,
          resolvedBy: input.reviewer ?? 'system',
          actor: input.via === 'system' ? { type: 'system', id: null } : { type: 'reviewer', id: input.reviewer },
        });
      } catch (err) {
        if (err instanceof AppError && err.code === 'not_found') {
          throw ApplicationFailure.nonRetryable(`decision ${input.decisionId} does not exist`, 'DecisionNotFound');
        }
        throw err;
      }
      if (resolution.changed) deps.onResolved?.(input.decisionId);
      const d = resolution.decision;
      return {
        decisionId: d.decision_id,
        changed: resolution.changed,
        decision: d.decision,
        status: d.status,
        reasonCode: d.reason_code,
        resolvedAt: d.resolved_at,
        // An outcome that came too late is recorded as the system's expiry.
        resolvedBy: d.status === 'expired' ? 'system' : (input.reviewer ?? 'system'),
      };
    },
  };
}

export type HeldActivities = ReturnType<typeof createHeldActivities>;
