import { findHoldNames, pendingHoldsToReconcile } from '../src/approvals/approvals.repository.js';
import { isExpired, resolveHeldDecision } from '../src/approvals/resolution.service.js';
import { sealedDecision } from '../src/audit/decision-terms.js';
import type { Db } from '../src/db/database.js';
import { heartbeat } from './periodic.js';
import type { Logger } from '../src/kernel/logger.js';
import type { HoldEngine } from '../src/approvals/hold-engine.js';
import type { TokenSigner } from '../src/tokens/authorization-token.js';
import type { ReconcileResult } from '../workflows/reconcile-holds.types.js';

/** Holds younger than this are the outbox relay's to start; the reconciler leaves them alone. */
export const RECONCILE_MIN_AGE_MS = 2 * 60_000;
/** At most this many holds per run; the next run takes the rest. */
export const RECONCILE_BATCH_SIZE = 500;

export interface ReconcileActivityDeps {
  db: Db;
  signer: TokenSigner;
  /** The engine as a client sees it; the worker passes its gateway. */
  gateway?: HoldEngine;
  log?: Pick<Logger, 'info' | 'warn'>;
  now?: () => Date;
  /** Overrides RECONCILE_MIN_AGE_MS (tests). */
  minAgeMs?: number;
}

/**
 * PostgreSQL is the truth about holds, Temporal about their waits: a hold pending in the database
 * whose workflow is not running (terminated or failed by an operator or a bug, or never started)
 * would keep its reservation forever. Each run starts such a workflow again while the hold has
 * time left, and expires the hold when it has none. Safe to run twice and beside the workflows:
 * starts are idempotent by id, and resolving only changes a pending hold.
 */
export function createReconcileActivities(deps: ReconcileActivityDeps) {
  return {
    async reconcileHolds(): Promise<ReconcileResult> {
      const gateway = deps.gateway;
      if (!gateway) throw new Error('reconcileHolds needs the workflow gateway');
      const now = deps.now?.() ?? new Date();
      const holds = await pendingHoldsToReconcile(deps.db, new Date(now.getTime() - (deps.minAgeMs ?? RECONCILE_MIN_AGE_MS)), RECONCILE_BATCH_SIZE);
      const result: ReconcileResult = { checked: holds.length, running: 0, restarted: 0, expired: 0, failed: 0 };
      for (const hold of holds) {
        heartbeat(result);
        try {
          const state = await gateway.heldWorkflowState(hold.id);
          if (state === 'running') {
            result.running += 1;
          } else if (isExpired(hold, deps.now?.() ?? new Date())) {
            const { changed } = await resolveHeldDecision(deps, { decisionId: hold.id, outcome: 'expired', resolvedBy: 'system', actor: { type: 'system', id: null } });
            if (changed) result.expired += 1;
            deps.log?.info({ decision_id: hold.id, workflow: state }, 'reconciler expired a hold whose workflow was not running');
          } else {
            // The quorum the workflow counts comes from the decision's sealed record (DECISIONS §7).
            const { row } = await sealedDecision(deps.db, hold);
            await gateway.restartHeld(row, await findHoldNames(deps.db, row));
            result.restarted += 1;
            deps.log?.info({ decision_id: hold.id, workflow: state }, 'reconciler started the workflow of a pending hold again');
          }
        } catch (err) {
          result.failed += 1;
          deps.log?.warn({ decision_id: hold.id, err: (err as Error).message }, 'reconciler could not handle a hold; the next run tries again');
        }
      }
      return result;
    },
  };
}

export type ReconcileActivities = ReturnType<typeof createReconcileActivities>;
