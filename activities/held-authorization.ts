import { ApplicationFailure } from '@temporalio/common';
import { findDecisionById } from '../src/decisions/decisions.repository.js';
import { escalateHold, recordApproval, resolveHeldDecision as recordResolution, type Resolution } from '../src/approvals/resolution.service.js';
import { approvalRefusal, refuseApproval, verifyApprovalAuthority, type ApprovalAttempt } from '../src/approvals/approval-authority.js';
import type { AuditInput } from '../src/audit/audit.repository.js';
import { toDecisionView } from '../src/decisions/decision.view.js';
import type { Db } from '../src/db/database.js';
import type { SignalApprovals } from '../src/kernel/config.js';
import { AppError } from '../src/kernel/errors.js';
import type { TokenSigner } from '../src/tokens/authorization-token.js';
import type { ApprovalActivityInput, EscalationSummary, ResolutionSummary, ResolveActivityInput } from '../workflows/held-authorization.types.js';

export interface HeldActivityDeps {
  db: Db;
  signer: TokenSigner;
  /** Told after a resolution is committed (wakes long-polls in this process). */
  onResolved?: (decisionId: string) => void;
  /** TEMPORAL_ALLOW_SIGNAL_APPROVALS: which holds an approval sent straight to the engine may approve (default `test`). */
  signalApprovals?: SignalApprovals;
}

const ACTOR: Record<Exclude<ResolveActivityInput['via'], 'notice'>, (reviewer: string | null) => AuditInput['actor']> = {
  api: (reviewer) => ({ type: 'reviewer', id: reviewer }),
  // An outcome signalled from the Temporal UI or CLI; its id is the signal's `reviewer` field.
  operator: (reviewer) => ({ type: 'operator', id: reviewer }),
  system: () => ({ type: 'system', id: null }),
};

/** A notice that the hold was resolved elsewhere: read it, change nothing. */
async function readResolution(db: Db, decisionId: string) {
  const row = await findDecisionById(db, decisionId);
  if (!row) throw new AppError('not_found', `decision ${decisionId} does not exist`);
  return { changed: false, decision: toDecisionView(row) };
}

const SENT_AS = { api: 'update', operator: 'signal', system: 'workflow', notice: 'workflow' } as const;

/**
 * Who an outcome is recorded as. A reviewer's Update speaks for its key only with the API's valid
 * mark for this hold, key and outcome; anything else claiming `api` (an Update sent by hand, a run
 * started with forged input) is the operator's, like a signal: actor `operator` with the claimed
 * `reviewer` as its id, and in a quorum the operators' one approver. So a made-up or borrowed key
 * id never fills a quorum nor has a denial put in a real key's name.
 */
function author<T extends { decisionId: string; reviewer: string | null; via: ResolveActivityInput['via']; authority?: string | undefined }>(input: T, outcome: string): T['via'] {
  if (input.via !== 'api') return input.via;
  const marked = (outcome === 'approved' || outcome === 'denied') && input.reviewer !== null && verifyApprovalAuthority({ decisionId: input.decisionId, reviewer: input.reviewer, outcome }, input.authority);
  return marked ? 'api' : 'operator';
}

/** Activities of the held-authorization workflow, built from injected dependencies. */
export function createHeldActivities(deps: HeldActivityDeps) {
  /**
   * The one check an approval cannot get past by way of the engine (src/approvals/approval-authority.ts):
   * an approval of a pending hold that is not allowed is recorded as `approval.refused` and answered
   * with the hold still pending and `refusal` set; undefined lets the approval go on.
   */
  async function refused(input: ApprovalAttempt & { note: string | null }, sentAs: (typeof SENT_AS)[keyof typeof SENT_AS]): Promise<ResolutionSummary | undefined> {
    const row = await findDecisionById(deps.db, input.decisionId);
    // Unknown or no longer pending: the usual path answers (not found, or the hold as it is).
    if (!row || row.status !== 'pending') return undefined;
    const reason = approvalRefusal(row, input, deps.signalApprovals ?? 'test');
    if (!reason) return undefined;
    const resolution = await refuseApproval(deps.db, { decisionId: input.decisionId, reviewer: input.reviewer, note: input.note, sentAs, reason });
    const summary = summaryOf(resolution, null);
    return resolution.decision.status === 'pending' ? { ...summary, refusal: reason } : summary;
  }

  return {
    /** Idempotent: only a pending decision changes (`… WHERE status = 'pending'` under lock); a retry records nothing twice. */
    async resolveHeldDecision(input: ResolveActivityInput): Promise<ResolutionSummary> {
      // A notice only reads the hold: there is nothing to refuse.
      if (input.outcome === 'approved' && input.via !== 'notice') {
        const refusal = await refused(input, SENT_AS[input.via]);
        if (refusal) return refusal;
      }
      const via = author(input, input.outcome);
      let resolution;
      try {
        resolution =
          via === 'notice'
            ? await readResolution(deps.db, input.decisionId)
            : await recordResolution(deps, {
                decisionId: input.decisionId,
                outcome: input.outcome,
                note: input.note,
                resolvedBy: input.reviewer ?? 'system',
                actor: ACTOR[via](input.reviewer),
              });
      } catch (err) {
        if (err instanceof AppError && err.code === 'not_found') {
          throw ApplicationFailure.nonRetryable(`decision ${input.decisionId} does not exist`, 'DecisionNotFound');
        }
        throw err;
      }
      if (resolution.changed) deps.onResolved?.(input.decisionId);
      // An outcome that came too late is recorded as the system's expiry.
      return summaryOf(resolution, resolution.decision.status === 'expired' ? 'system' : (input.reviewer ?? 'system'));
    },

    /**
     * One approval towards the hold's quorum; the one that completes it resolves the hold.
     * Idempotent: the approver's second approval records nothing (`changed: false`, still pending).
     */
    async recordApproval(input: ApprovalActivityInput): Promise<ResolutionSummary> {
      const refusal = await refused(input, SENT_AS[input.via]);
      if (refusal) return refusal;
      const via = author(input, 'approved');
      const actor = via === 'api' ? { type: 'reviewer' as const, id: input.reviewer ?? '' } : { type: 'operator' as const, id: input.reviewer };
      const resolution = await notFoundIsFinal(input.decisionId, () => recordApproval(deps, { decisionId: input.decisionId, note: input.note, actor }));
      if (resolution.changed && resolution.decision.status !== 'pending') deps.onResolved?.(input.decisionId);
      const d = resolution.decision;
      // Who resolved it, when this approval did (the last of the quorum); null while pending or resolved before.
      const resolvedBy = d.status === 'expired' ? 'system' : d.status !== 'pending' && resolution.changed ? (input.reviewer ?? 'operator') : null;
      const summary = summaryOf(resolution, resolvedBy);
      // Told to the workflow, so the key the Update named is not taken as having approved.
      return input.via === 'api' && via === 'operator' ? { ...summary, countedAs: 'operator' } : summary;
    },

    /** Escalates a hold still pending once its escalation time has come (event and audit record, once). */
    async escalateHold(input: { decisionId: string }): Promise<EscalationSummary> {
      const out = await notFoundIsFinal(input.decisionId, () => escalateHold(deps, input.decisionId));
      return { decisionId: input.decisionId, escalated: out.escalated, status: out.decision.status };
    },
  };
}

async function notFoundIsFinal<T>(decisionId: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError && err.code === 'not_found') {
      throw ApplicationFailure.nonRetryable(`decision ${decisionId} does not exist`, 'DecisionNotFound');
    }
    throw err;
  }
}

function summaryOf(resolution: Resolution, resolvedBy: string | null): ResolutionSummary {
  const d = resolution.decision;
  return {
    decisionId: d.decision_id,
    changed: resolution.changed,
    decision: d.decision,
    status: d.status,
    reasonCode: d.reason_code,
    resolvedAt: d.resolved_at,
    resolvedBy,
  };
}

export type HeldActivities = ReturnType<typeof createHeldActivities>;
