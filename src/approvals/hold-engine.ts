import type { DecisionRow } from '../decisions/decision.view.js';

/**
 * What the approvals feature asks of the workflow engine that waits on each hold: start the wait,
 * tell it the hold was resolved elsewhere, hand it a reviewer's outcome, and (for the reconciler)
 * see whether it still runs. `temporal/gateway.ts` implements it; the feature never sees Temporal.
 */
export interface HoldEngine {
  /**
   * Starts the hold's wait; a second start of the same hold is not an error. `names`: the agent's
   * and policy's names for the operators' view of the wait; ids only without them.
   */
  startHeld(decision: DecisionRow, names?: HoldNames): Promise<'started' | 'already_started'>;
  /** Tells the hold's wait its decision was resolved elsewhere (agent frozen); a missing wait is fine. */
  notifyResolved(decisionId: string): Promise<void>;
  /**
   * A reviewer's outcome, answered once the wait has recorded it (starting the wait if it has not
   * started yet). Throws ResolutionRejected when the wait refuses it, EngineUnavailable when the
   * engine does not answer within `deadlineMs`.
   */
  resolve(decision: DecisionRow, outcome: ReviewerDecision, names?: HoldNames, deadlineMs?: number): Promise<HoldResolution>;
  /** Whether the hold's wait is running, closed (completed, failed, terminated…) or was never started. */
  heldWorkflowState(decisionId: string): Promise<'running' | 'closed' | 'missing'>;
  /** Starts the hold's wait again after it closed without resolving the hold. */
  restartHeld(decision: DecisionRow, names?: HoldNames): Promise<'started' | 'already_started'>;
}

/** The names a hold is shown with; looked up when its wait is started (absent: ids only). */
export interface HoldNames {
  agentName?: string | null | undefined;
  policyName?: string | null | undefined;
}

/** A reviewer's outcome as the API sends it to the hold's wait. */
export interface ReviewerDecision {
  outcome: 'approved' | 'denied';
  note: string | null;
  /** The reviewer's API key id: one approval per key counts towards a quorum. */
  reviewer: string;
  via: 'api';
  /** The API's mark on this outcome (approval-authority.ts): what lets the worker approve a live hold. */
  authority: string;
}

/** What the wait recorded; the decision row in PostgreSQL stays the source of truth. */
export interface HoldResolution {
  /** False when the hold was no longer pending: nothing was recorded. */
  changed: boolean;
  status: 'approved' | 'denied' | 'pending' | 'expired';
  /** Set when the worker refused the approval as not coming through the API (a worker that cannot check the mark). */
  refusal?: string | undefined;
}

/** The engine could not be reached or did not answer in time. */
export class EngineUnavailable extends Error {
  override name = 'EngineUnavailable';
}

/**
 * The hold's wait refused the outcome; the message says why: `already resolved`, `expired`,
 * `already approved` (this key's approval already counts towards the quorum).
 */
export class ResolutionRejected extends Error {
  override name = 'ResolutionRejected';
}
