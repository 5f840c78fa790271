import { allHandlersFinished, condition, defineSignal, defineUpdate, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { HeldActivities } from '../activities/held-authorization.js';
import { ApprovalStatusKey } from '../src/temporal/search-attributes.js';
import { isReviewerOutcome, type HeldAuthorizationInput, type ResolutionSummary, type ReviewerOutcome } from './held-authorization.types.js';

/** What an operator sends from the Temporal UI or CLI: {"outcome": "approved"|"denied", "note": "…", "reviewer": "…"}. */
export const approvalDecisionSignal = defineSignal<[ReviewerOutcome]>('approvalDecision');
/** What the API sends for a reviewer: validated, answered with the recorded resolution. */
export const resolveUpdate = defineUpdate<ResolutionSummary, [ReviewerOutcome]>('resolve');

const { resolveHeldDecision } = proxyActivities<HeldActivities>({
  startToCloseTimeout: '30 seconds',
  // The database may be briefly away: keep trying; the activity is idempotent.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: ['DecisionNotFound'] },
});

/**
 * One held spend request: waits for a reviewer's outcome or the approval timeout, then records
 * the resolution through an activity. The first outcome wins; later ones are rejected (Update) or
 * ignored (signal).
 */
export async function heldAuthorization(input: HeldAuthorizationInput): Promise<ResolutionSummary> {
  let requested: ReviewerOutcome | undefined;
  let result: ResolutionSummary | undefined;
  /** Set once the wait has ended (decided or expired): later outcomes are refused. */
  let waitOver = false;

  setHandler(approvalDecisionSignal, (outcome) => {
    if (requested !== undefined || waitOver || !isReviewerOutcome(outcome)) return;
    // Meant for another hold (a copied command): never resolve this one with it.
    if (outcome.decision_id !== undefined && outcome.decision_id !== input.decisionId) return;
    if (input.signalApprovals === false) {
      // Signals only tell the workflow that the service resolved its hold (a freeze): the activity
      // then reads the hold and changes nothing, so a forged notice cannot decide it.
      if (outcome.reviewer === 'system') requested = { ...outcome, via: 'notice' };
      return;
    }
    // A signal always counts as an operator's, whatever its payload claims.
    requested = { ...outcome, via: 'operator' };
  });
  setHandler(
    resolveUpdate,
    async (outcome) => {
      // A notice being checked is no decision: the reviewer's outcome goes next, unless the check
      // found the hold resolved.
      if (requested?.via === 'notice') await condition(() => requested === undefined || result !== undefined);
      requested ??= { ...outcome, via: 'api' };
      await condition(() => result !== undefined);
      return result!;
    },
    {
      validator: (outcome) => {
        if (!isReviewerOutcome(outcome)) throw new Error('invalid outcome: expected {"outcome": "approved" | "denied"}');
        if ((requested !== undefined && requested.via !== 'notice') || result !== undefined) throw new Error('already resolved');
        // Workflow time is the time of this task: an Update that lands with (or after) the expiry
        // timer is refused even before the timer's own handling has ended the wait.
        if (waitOver || Date.now() >= Date.parse(input.expiresAt)) throw new Error('expired');
      },
    },
  );

  for (;;) {
    const waitMs = Date.parse(input.expiresAt) - Date.now();
    const decided = waitMs > 0 ? await condition(() => requested !== undefined, waitMs) : requested !== undefined;
    const asked = decided ? requested! : undefined;
    if (asked?.via !== 'notice') waitOver = true;
    const seen = await resolveHeldDecision({
      decisionId: input.decisionId,
      outcome: asked ? asked.outcome : 'expired',
      note: asked ? (asked.note ?? null) : null,
      reviewer: asked ? (asked.reviewer ?? null) : null,
      via: asked ? (asked.via ?? 'operator') : 'system',
    });
    // A notice that the hold was resolved elsewhere, but it is still pending (a forged notice):
    // keep waiting as before.
    if (asked?.via === 'notice' && seen.status === 'pending') {
      requested = undefined;
      continue;
    }
    result = seen;
    break;
  }
  upsertSearchAttributes([{ key: ApprovalStatusKey, value: result.status }]);
  await condition(allHandlersFinished);
  return result;
}
