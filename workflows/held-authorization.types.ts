/** Shared by the workflow, its activities and the API; plain data only. */
import type { ApprovalRefusal } from '../src/approvals/approval-authority.js';

export interface HeldAuthorizationInput {
  decisionId: string;
  /** When the hold expires (ISO 8601): the workflow's timer is derived from it, so a late start still expires on time. */
  expiresAt: string;
  /**
   * False when operators may not resolve holds by signal (TEMPORAL_ALLOW_SIGNAL_APPROVALS=false):
   * signals then only tell the workflow its hold was resolved elsewhere. Absent (older starts): allowed.
   */
  signalApprovals?: boolean;
  /** Distinct approvals the hold needs (docs/api.md, "Approval chains"), fixed when held. Absent (older starts): 1. */
  approvalsRequired?: number;
  /** When a hold still pending escalates (ISO 8601). Absent: never. */
  escalatesAt?: string;
}

/** What a reviewer (Update from the API) or an operator (signal from the Temporal UI) sends. */
export interface ReviewerOutcome {
  outcome: 'approved' | 'denied';
  note?: string | null;
  reviewer?: string | null;
  /** `api` when a reviewer's key resolved it (Update); a signal from the UI or CLI always counts as `operator`. */
  via?: 'api' | 'operator' | 'notice';
  /** Optional on a signal: the decision it is meant for; a signal naming another decision is ignored. */
  decision_id?: string;
  /**
   * The API's mark on a reviewer's Update (src/approvals/approval-authority.ts): the resolving
   * activity approves a live hold only with a valid one. Never taken from a signal.
   */
  authority?: string;
}

/** The recorded resolution, without the token: workflow history never holds a secret. */
export interface ResolutionSummary {
  decisionId: string;
  changed: boolean;
  decision: 'approved' | 'denied' | 'held';
  status: 'approved' | 'denied' | 'pending' | 'expired';
  reasonCode: string | null;
  resolvedAt: string | null;
  resolvedBy: string | null;
  /**
   * Set when the activity refused an approval sent straight to the engine (recorded as
   * `approval.refused`): the hold is still pending and the workflow keeps waiting.
   */
  refusal?: ApprovalRefusal;
  /**
   * Set when an approval that came by Update without the API's valid mark was counted as the
   * operators' one approval (never as the key it named): that key may still approve through the API.
   */
  countedAs?: 'operator';
}

/** One approval towards a quorum: a reviewer's key (`api`) or an operator's signal. */
export interface ApprovalActivityInput {
  decisionId: string;
  note: string | null;
  reviewer: string | null;
  via: 'api' | 'operator';
  /** The API's mark, on a reviewer's Update only (absent otherwise). */
  authority?: string;
}

export interface EscalationSummary {
  decisionId: string;
  escalated: boolean;
  status: ResolutionSummary['status'];
}

export interface ResolveActivityInput {
  decisionId: string;
  outcome: 'approved' | 'denied' | 'expired';
  note: string | null;
  reviewer: string | null;
  /** `notice`: the hold was resolved elsewhere (a freeze); the activity reads it and changes nothing. */
  via: 'api' | 'operator' | 'system' | 'notice';
  /** The API's mark, on a reviewer's Update only (absent otherwise). */
  authority?: string;
}

/** The mark an outcome carries, as the activity input takes it: from a reviewer's Update only, and only a string. */
export function authorityOf(outcome: ReviewerOutcome): { authority: string } | Record<string, never> {
  return outcome.via === 'api' && typeof outcome.authority === 'string' ? { authority: outcome.authority } : {};
}

export function isReviewerOutcome(value: unknown): value is ReviewerOutcome {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    (v.outcome === 'approved' || v.outcome === 'denied') &&
    (v.note === undefined || v.note === null || (typeof v.note === 'string' && v.note.length <= 1000)) &&
    (v.reviewer === undefined || v.reviewer === null || (typeof v.reviewer === 'string' && v.reviewer.length <= 200)) &&
    (v.decision_id === undefined || typeof v.decision_id === 'string')
  );
}
