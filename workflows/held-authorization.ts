import { allHandlersFinished, condition, defineSignal, defineUpdate, patched, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { HeldActivities } from '../activities/held-authorization.js';
import { ApprovalStatusKey } from '../src/temporal/search-attributes.js';
import { authorityOf, isReviewerOutcome, type HeldAuthorizationInput, type ResolutionSummary, type ReviewerOutcome } from './held-authorization.types.js';

/** What an operator sends from the Temporal UI or CLI: {"outcome": "approved"|"denied", "note": "…", "reviewer": "…"}. */
export const approvalDecisionSignal = defineSignal<[ReviewerOutcome]>('approvalDecision');
/** What the API sends for a reviewer: validated, answered with the recorded resolution. */
export const resolveUpdate = defineUpdate<ResolutionSummary, [ReviewerOutcome]>('resolve');

const { resolveHeldDecision, recordApproval, escalateHold } = proxyActivities<HeldActivities>({
  startToCloseTimeout: '30 seconds',
  // The database may be briefly away: keep trying; the activity is idempotent.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: ['DecisionNotFound'] },
});

/** Marks runs that know approval chains (quorum, escalation); runs recorded before it replay the single-approval path. */
export const APPROVAL_CHAINS_PATCH = 'approval-chains';
/**
 * Marks runs that answer approvals arriving together once all of them are recorded, so an approval
 * counted towards a quorum that another one completed at the same time is answered approved.
 */
export const SETTLED_APPROVAL_ANSWERS_PATCH = 'settled-approval-answers';
/**
 * Marks runs that keep waiting after the resolving activity refused an approval sent straight to
 * the engine (docs/api.md, "Approvals sent straight to the engine"); it is called only when a
 * refusal comes back, so runs that never saw one replay as they were recorded.
 */
export const REFUSED_APPROVALS_PATCH = 'refused-engine-approvals';

/**
 * One held spend request: waits for its reviewers' outcome or the approval timeout, then records
 * the resolution through activities.
 */
export async function heldAuthorization(input: HeldAuthorizationInput): Promise<ResolutionSummary> {
  return patched(APPROVAL_CHAINS_PATCH) ? approvalChain(input) : singleApproval(input);
}

/**
 * The path of runs started before approval chains: the first outcome wins; later ones are rejected
 * (Update) or ignored (signal). Its commands are the ones those runs recorded, so their histories
 * replay. Exported for the tests that run it as a worker from before the change would
 * (workflows/index.ts registers only heldAuthorization).
 */
export async function singleApproval(input: HeldAuthorizationInput): Promise<ResolutionSummary> {
  return waitAndResolve(input, { chains: false });
}

/**
 * Approval chains (docs/api.md, "Approval chains"): an approval counts towards the hold's quorum of
 * `approvalsRequired` distinct approvers and is recorded at once (the one that completes the quorum
 * resolves the hold); a denial, or the approval of a hold needing one, resolves it at once.
 * Operators' signals cannot be told apart (their `reviewer` is free text), so together they count
 * as one approver. A hold still pending at `escalatesAt` escalates once (event, audit record,
 * ApprovalStatus `escalated`).
 */
export async function approvalChain(input: HeldAuthorizationInput): Promise<ResolutionSummary> {
  return waitAndResolve(input, { chains: true });
}

/**
 * The one wait of a hold: outcomes arrive by Update (a reviewer, through the API) or by signal (an
 * operator, or the service's notice that the hold was resolved elsewhere); the wait ends with the
 * first outcome that resolves the hold, or at its expiry, and the resolution is recorded by an
 * activity. Without `chains` a hold needs one approval and never escalates: then neither the quorum
 * nor the escalation issues a command, and the commands are those of runs from before chains.
 */
async function waitAndResolve(input: HeldAuthorizationInput, { chains }: { chains: boolean }): Promise<ResolutionSummary> {
  const required = chains ? (input.approvalsRequired ?? 1) : 1;
  /** Runs that answer approvals arriving together once all of them are recorded (never the single path). */
  const settledAnswers = chains && patched(SETTLED_APPROVAL_ANSWERS_PATCH);
  /** Approvals whose activity is running: the answers wait for all of them (settledAnswers). */
  let approvalsInFlight = 0;
  /**
   * Answers waiting for the approvals in flight, released by the last one to be recorded. Plain
   * promises, not `condition`: released in the same drain of the event loop as that activity's
   * result, so every answer is sent before the main loop wakes, with or without interceptors.
   */
  let waitingAnswers: Array<() => void> = [];
  /** An outcome that resolves the hold at once: a denial, an approval where one suffices, or a notice. */
  let requested: ReviewerOutcome | undefined;
  let result: ResolutionSummary | undefined;
  /** Set once the wait has ended (decided or expired): later outcomes are refused. */
  let waitOver = false;
  /** Approvers whose approval is recorded or on its way: key ids, and `operator` for signals. */
  const approvers = new Set<string>();
  /** Outcomes the activity refused (approvals sent straight to the engine), with its answer: each Update gets its own. */
  const refusals = new Map<ReviewerOutcome, ResolutionSummary>();
  const countsTowardsQuorum = (o: ReviewerOutcome) => o.outcome === 'approved' && required > 1;

  async function approve(outcome: ReviewerOutcome, via: 'api' | 'operator'): Promise<ResolutionSummary> {
    const approver = via === 'api' ? outcome.reviewer! : 'operator';
    approvers.add(approver);
    approvalsInFlight++;
    let summary: ResolutionSummary;
    try {
      summary = await recordApproval({ decisionId: input.decisionId, note: outcome.note ?? null, reviewer: outcome.reviewer ?? null, via, ...authorityOf({ ...outcome, via }) });
      // Refused (sent straight to the engine): it does not count, and does not stand in the way of
      // the same approver coming through the API.
      if (summary.refusal !== undefined) approvers.delete(approver);
      // Counted as the operators' (an Update without the API's mark): not the named key's approval.
      else if (summary.countedAs === 'operator') {
        approvers.delete(approver);
        approvers.add('operator');
      }
    } finally {
      approvalsInFlight--;
      if (approvalsInFlight === 0) {
        const released = waitingAnswers;
        waitingAnswers = [];
        for (const release of released) release();
      }
    }
    // Approvals recorded together complete in any order: the hold's result is the one that
    // resolved it (changed), not a later one that found it resolved already.
    if (summary.status !== 'pending' && (result === undefined || (!result.changed && summary.changed))) result = summary;
    if (!settledAnswers) return summary;
    // Every reviewer whose approval counted is answered with the hold as the approvals that arrived
    // together left it: approved when one of them completed the quorum (docs/api.md, "Approval chains").
    if (approvalsInFlight > 0) await new Promise<void>((release) => waitingAnswers.push(release));
    return result ?? summary;
  }

  setHandler(approvalDecisionSignal, (outcome) => {
    if (requested !== undefined || result !== undefined || waitOver || !isReviewerOutcome(outcome)) return;
    // Meant for another hold (a copied command): never resolve this one with it.
    if (outcome.decision_id !== undefined && outcome.decision_id !== input.decisionId) return;
    if (input.signalApprovals === false) {
      // Signals only tell the workflow that the service resolved its hold (a freeze): the activity
      // then reads the hold and changes nothing, so a forged notice cannot decide it.
      if (outcome.reviewer === 'system') requested = { ...outcome, via: 'notice' };
      return;
    }
    if (countsTowardsQuorum(outcome)) {
      return approvers.has('operator') ? undefined : approve(outcome, 'operator').then(() => undefined);
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
      // Not the last approval of the quorum: answered with the hold, still pending.
      if (countsTowardsQuorum(outcome) && requested === undefined && result === undefined) return approve(outcome, 'api');
      const mine: ReviewerOutcome = { ...outcome, via: 'api' };
      requested ??= mine;
      // Answered with the resolution, or with the refusal of this very outcome (the hold still pending).
      await condition(() => result !== undefined || refusals.has(mine));
      return refusals.get(mine) ?? result!;
    },
    {
      validator: (outcome) => {
        if (!isReviewerOutcome(outcome)) throw new Error('invalid outcome: expected {"outcome": "approved" | "denied"}');
        if ((requested !== undefined && requested.via !== 'notice') || result !== undefined) throw new Error('already resolved');
        // Workflow time is the time of this task: an Update that lands with (or after) the expiry
        // timer is refused even before the timer's own handling has ended the wait.
        if (waitOver || Date.now() >= Date.parse(input.expiresAt)) throw new Error('expired');
        if (countsTowardsQuorum(outcome)) {
          if (!outcome.reviewer) throw new Error('invalid outcome: an approval towards a quorum names its reviewer');
          if (approvers.has(outcome.reviewer)) throw new Error('already approved');
        }
      },
    },
  );

  const woken = () => requested !== undefined || result !== undefined;
  const expiresAt = Date.parse(input.expiresAt);
  let escalatesAt = chains && input.escalatesAt !== undefined && Date.parse(input.escalatesAt) < expiresAt ? Date.parse(input.escalatesAt) : undefined;
  for (;;) {
    if (escalatesAt !== undefined) {
      const escalateMs = escalatesAt - Date.now();
      if (!(escalateMs > 0 ? await condition(woken, escalateMs) : woken())) {
        escalatesAt = undefined;
        const seen = await escalateHold({ decisionId: input.decisionId });
        if (seen.escalated) upsertSearchAttributes([{ key: ApprovalStatusKey, value: 'escalated' }]);
        continue;
      }
    }
    if (result !== undefined) break;
    const waitMs = expiresAt - Date.now();
    const decided = waitMs > 0 ? await condition(woken, waitMs) : woken();
    // The last approval of the quorum resolved the hold.
    if (result !== undefined) break;
    const asked = decided ? requested! : undefined;
    if (asked?.via !== 'notice') waitOver = true;
    const seen = await resolveHeldDecision({
      decisionId: input.decisionId,
      outcome: asked ? asked.outcome : 'expired',
      note: asked ? (asked.note ?? null) : null,
      reviewer: asked ? (asked.reviewer ?? null) : null,
      via: asked ? (asked.via ?? 'operator') : 'system',
      ...(asked ? authorityOf(asked) : {}),
    });
    // A notice that the hold was resolved elsewhere, but it is still pending (a forged notice):
    // keep waiting as before.
    if (asked?.via === 'notice' && seen.status === 'pending') {
      requested = undefined;
      continue;
    }
    // An approval sent straight to the engine, refused by the activity (recorded as
    // `approval.refused`): the hold stays pending and the wait goes on, open to other outcomes.
    if (seen.refusal !== undefined && asked !== undefined && patched(REFUSED_APPROVALS_PATCH)) {
      refusals.set(asked, seen);
      requested = undefined;
      waitOver = false;
      continue;
    }
    result ??= seen;
    break;
  }
  upsertSearchAttributes([{ key: ApprovalStatusKey, value: result.status }]);
  await condition(allHandlersFinished);
  return result;
}
