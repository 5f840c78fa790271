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
    // A signal always counts as an operator's, whatever its payload claims.
    if (requested === undefined && !waitOver && isReviewerOutcome(outcome)) requested = { ...outcome, via: 'operator' };
  });
  setHandler(
    resolveUpdate,
    async (outcome) => {
      requested ??= { ...outcome, via: 'api' };
      await condition(() => result !== undefined);
      return result!;
    },
    {
      validator: (outcome) => {
        if (!isReviewerOutcome(outcome)) throw new Error('invalid outcome: expected {"outcome": "approved" | "denied"}');
        if (requested !== undefined || result !== undefined) throw new Error('already resolved');
        // Workflow time is the time of this task: an Update that lands with (or after) the expiry
        // timer is refused even before the timer's own handling has ended the wait.
        if (waitOver || Date.now() >= Date.parse(input.expiresAt)) throw new Error('expired');
      },
    },
  );

  const waitMs = Date.parse(input.expiresAt) - Date.now();
  const decided = waitMs > 0 ? await condition(() => requested !== undefined, waitMs) : requested !== undefined;
  waitOver = true;

  result = await resolveHeldDecision({
    decisionId: input.decisionId,
    outcome: decided ? requested!.outcome : 'expired',
    note: decided ? (requested!.note ?? null) : null,
    reviewer: decided ? (requested!.reviewer ?? null) : null,
    via: decided ? (requested!.via ?? 'operator') : 'system',
  });
  upsertSearchAttributes([{ key: ApprovalStatusKey, value: result.status }]);
  await condition(allHandlersFinished);
  return result;
}
