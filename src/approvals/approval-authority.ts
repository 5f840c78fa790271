import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/database.js';
import { appendAudit, decisionAuditFields, type AuditInput } from '../audit/audit.repository.js';
import { toDecisionView, type DecisionRow } from '../decisions/decision.view.js';
import { lockDecision } from '../decisions/decisions.repository.js';
import { auditHmacKey } from '../kernel/audit-key.js';
import type { SignalApprovals } from '../kernel/config.js';
import { notFound } from '../kernel/errors.js';
import type { Resolution } from './resolution.service.js';

/**
 * Access to the workflow engine is not authority to approve money in live mode (docs/api.md,
 * "Approvals sent straight to the engine"). Whoever reaches the engine can signal a hold's
 * workflow, send it an Update, or start a workflow of their own with any input; none of that can be
 * told apart inside the workflow. So the API marks each reviewer's outcome with an HMAC under a key
 * derived from the server's audit key, which the engine never holds, and the resolving activity
 * (our code, on our database) approves a live hold only for an outcome that carries a valid mark,
 * unless the operator opted in with TEMPORAL_ALLOW_SIGNAL_APPROVALS=live.
 */

/** Why an approval that did not come through the API was refused (the `reason` of `approval.refused`). */
export type ApprovalRefusal = 'live_approval_outside_api' | 'signal_approvals_off';

const REFUSAL_TEXT: Record<ApprovalRefusal, string> = {
  live_approval_outside_api:
    'A live hold is approved only through the API (a key with the role, four eyes, quorum); an approval sent straight to the workflow engine is refused unless TEMPORAL_ALLOW_SIGNAL_APPROVALS=live.',
  signal_approvals_off: 'TEMPORAL_ALLOW_SIGNAL_APPROVALS=false: holds are approved only through the API.',
};

/** What the mark binds: one reviewer key's outcome for one hold. */
export interface AuthorityClaim {
  decisionId: string;
  reviewer: string;
  outcome: 'approved' | 'denied';
}

/** Derived, not the audit key itself: a mark is never a MAC of the audit chain. */
let derived: { from: Buffer; key: Buffer } | undefined;
function authorityKey(): Buffer {
  const base = auditHmacKey();
  if (derived?.from !== base) derived = { from: base, key: createHmac('sha256', base).update('spend-auth approval authority v1').digest() };
  return derived.key;
}

const mac = (c: AuthorityClaim): Buffer => createHmac('sha256', authorityKey()).update(`${c.decisionId}\n${c.reviewer}\n${c.outcome}`).digest();

/** The API's mark on a reviewer's outcome, sent with its Update (it is in the workflow's history: it binds this one outcome only). */
export function signApprovalAuthority(claim: AuthorityClaim): string {
  return mac(claim).toString('base64url');
}

export function verifyApprovalAuthority(claim: AuthorityClaim, mark: string | null | undefined): boolean {
  if (typeof mark !== 'string' || mark.length > 100) return false;
  const given = Buffer.from(mark, 'base64url');
  const expected = mac(claim);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** An approval as it reaches the resolving activity: `api` claims to be a reviewer's Update, `operator` is a signal. */
export interface ApprovalAttempt {
  decisionId: string;
  reviewer: string | null;
  via: 'api' | 'operator' | 'system' | 'notice';
  authority?: string | null | undefined;
}

/**
 * Whether an approval of this pending hold must be refused, and why. One with the API's valid mark
 * is the reviewer's, whatever the mode. Any other (a signal, a hand-made Update, a forged run) is an
 * approval sent straight to the engine: allowed on test-mode holds by default, on live holds only
 * with the `live` opt-in, never with `off`.
 */
export function approvalRefusal(row: Pick<DecisionRow, 'id' | 'livemode'>, attempt: ApprovalAttempt, setting: SignalApprovals): ApprovalRefusal | undefined {
  if (attempt.via === 'api' && attempt.reviewer && verifyApprovalAuthority({ decisionId: row.id, reviewer: attempt.reviewer, outcome: 'approved' }, attempt.authority)) return undefined;
  if (setting === 'live') return undefined;
  if (setting === 'test') return row.livemode ? 'live_approval_outside_api' : undefined;
  return 'signal_approvals_off';
}

/**
 * Records a refused approval: an `approval.refused` audit record (actor `operator`, id = the
 * outcome's `reviewer` field; nothing sent to the engine speaks for a key) while the hold is still
 * pending, which it stays. A hold resolved meanwhile is returned as it is, with nothing recorded.
 */
export async function refuseApproval(
  db: Db,
  input: { decisionId: string; reviewer: string | null; note: string | null; sentAs: 'signal' | 'update' | 'workflow'; reason: ApprovalRefusal },
): Promise<Resolution> {
  return db.transaction().execute(async (trx) => {
    const row = await lockDecision(trx, input.decisionId);
    if (!row) throw notFound('decision', 'decision_id');
    if (row.status === 'pending') {
      const actor: AuditInput['actor'] = { type: 'operator', id: input.reviewer };
      await appendAudit(trx, {
        ...decisionAuditFields(row),
        type: 'approval.refused',
        actor,
        reason: input.reason,
        metadata: { outcome: 'approved', sent_as: input.sentAs, message: REFUSAL_TEXT[input.reason], ...(input.note ? { note: input.note } : {}) },
      });
    }
    return { changed: false, decision: toDecisionView(row) };
  });
}
