import { actorOf, ADMIN, requireRole, type Caller } from '../kernel/caller.js';
import type { Db, DbOrTrx } from '../db/database.js';
import { appendAudit, decisionAuditFields, type AuditInput } from '../audit/audit.repository.js';
import { findDecisionById, findDecisionInScope, lockAgentThenDecision } from '../decisions/decisions.repository.js';
import { changeSpend } from '../decisions/spend.repository.js';
import { decisionEventData, toDecisionView, type DecisionRow, type DecisionView } from '../decisions/decision.view.js';
import { AppError, conflict, invalid, notFound } from '../kernel/errors.js';
import { emitEvent } from '../events/events.repository.js';
import type { IdempotencyHandle } from '../kernel/idempotency.js';
import { overdueUncapturedIds, settleCapture } from './capture.repository.js';

export interface CaptureDeps {
  db: Db;
  now?: () => Date;
}

type Settlement = 'captured' | 'voided' | 'expired';
const TYPE_OF = { captured: 'authorization.captured', voided: 'authorization.voided', expired: 'authorization.expired' } as const;

/** The capture deadline has passed (an approval older than captures has none). */
const pastDeadline = (row: DecisionRow, now: Date) => row.capture_expires_at !== null && row.capture_expires_at.getTime() <= now.getTime();

/**
 * Records a capture, void or expiry of an uncaptured approval inside the caller's transaction,
 * which holds the agent's row lock: the capture status, the release of what was not captured from
 * the agent's spend in the period the approval counted in, an audit record and an event. Returns
 * undefined (nothing written) when the approval was no longer uncaptured.
 */
async function settle(trx: DbOrTrx, row: DecisionRow, to: Settlement, actor: AuditInput['actor'], now: Date, capturedAmount?: number): Promise<DecisionRow | undefined> {
  const updated = await settleCapture(trx, row.id, to, now, capturedAmount);
  if (!updated) return undefined;
  const amount = Number(row.amount);
  const released = to === 'captured' ? amount - capturedAmount! : amount;
  // Counted where the approval was counted (its own month and day), not in today's period.
  if (released > 0) await changeSpend(trx, row.agent_id, { month: row.spend_month, day: row.spend_day }, { approved: -released, reserved: 0 });
  await appendAudit(trx, {
    ...decisionAuditFields(row),
    type: TYPE_OF[to],
    actor,
    reason: to,
    metadata: { approved_amount: amount, captured_amount: to === 'captured' ? capturedAmount! : 0, released_amount: released },
    amount: to === 'captured' ? capturedAmount! : amount,
  });
  await emitEvent(trx, { accountId: row.account_id, livemode: row.livemode, type: TYPE_OF[to], data: decisionEventData(updated), now });
  return updated;
}

/** The agent's row lock, then the decision's: the order every spend change takes. */
const lockForSettlement = async (trx: DbOrTrx, row: DecisionRow): Promise<DecisionRow> => (await lockAgentThenDecision(trx, row.agent_id, row.id))!;

function refuseUnlessUncaptured(row: DecisionRow, action: 'capture' | 'void'): void {
  if (row.decision !== 'approved' || !row.capture_status) {
    throw conflict(`Only an approved decision can be ${action === 'capture' ? 'captured' : 'voided'}; this one is ${row.status}.`);
  }
  if (row.capture_status !== 'uncaptured') throw conflict(`This approval is already ${row.capture_status}.`);
}

async function loadForAdmin(deps: CaptureDeps, caller: Caller, id: string): Promise<DecisionRow> {
  requireRole(caller, ADMIN);
  const row = await findDecisionInScope(deps.db, caller.accountId, caller.livemode, id);
  if (!row) throw notFound('decision', 'id');
  return row;
}

/**
 * `POST /v1/decisions/:id/capture`: the rail charged `amount` (default: all of it) of an approval.
 * Once only. The rest is released from the agent's budget in the same transaction. A capture
 * arriving after the capture deadline records the expiry the sweep would have and answers 409.
 */
export async function captureDecision(deps: CaptureDeps, caller: Caller, id: string, input: { amount?: number | undefined }, idem?: IdempotencyHandle<DbOrTrx>): Promise<DecisionView> {
  const first = await loadForAdmin(deps, caller, id);
  const outcome = await deps.db.transaction().execute(async (trx) => {
    const row = await lockForSettlement(trx, first);
    const amount = input.amount ?? Number(row.amount);
    if (amount > Number(row.amount)) throw invalid(`Invalid amount: at most the approved amount (${row.amount}).`, 'amount');
    refuseUnlessUncaptured(row, 'capture');
    const now = deps.now?.() ?? new Date();
    if (pastDeadline(row, now)) {
      await settle(trx, row, 'expired', { type: 'system', id: null }, now);
      return { expired: true as const };
    }
    const view = toDecisionView((await settle(trx, row, 'captured', actorOf(caller), now, amount))!);
    if (idem) await idem.complete(trx, 200, JSON.stringify(view));
    return { expired: false as const, view };
  });
  if (outcome.expired) throw new AppError('conflict', 'This approval expired: it was not captured within its capture window.');
  return outcome.view;
}

/** `POST /v1/decisions/:id/void`: the whole amount of an uncaptured approval is released; its token stops verifying. */
export async function voidDecision(deps: CaptureDeps, caller: Caller, id: string, idem?: IdempotencyHandle<DbOrTrx>): Promise<DecisionView> {
  const first = await loadForAdmin(deps, caller, id);
  return deps.db.transaction().execute(async (trx) => {
    const row = await lockForSettlement(trx, first);
    refuseUnlessUncaptured(row, 'void');
    const now = deps.now?.() ?? new Date();
    const view = toDecisionView((await settle(trx, row, 'voided', actorOf(caller), now))!);
    if (idem) await idem.complete(trx, 200, JSON.stringify(view));
    return view;
  });
}

export const CAPTURE_EXPIRY_BATCH = 200;

/**
 * Expires approvals not captured by their deadline (amount released, status `expired`, audit
 * record and event, actor system). Safe to run twice and beside captures: each approval is
 * re-checked under its agent's lock and changed only while still uncaptured. Returns the ids it
 * expired in this batch.
 */
export async function expireUncapturedApprovals(deps: CaptureDeps, opts: { limit?: number } = {}): Promise<{ expired: string[]; more: boolean }> {
  const now = deps.now?.() ?? new Date();
  const limit = opts.limit ?? CAPTURE_EXPIRY_BATCH;
  const ids = await overdueUncapturedIds(deps.db, now, limit);
  const expired: string[] = [];
  for (const id of ids) {
    const changed = await deps.db.transaction().execute(async (trx) => {
      const first = await findDecisionById(trx, id);
      if (!first) throw new Error(`decision ${id} is gone`);
      const row = await lockForSettlement(trx, first);
      if (row.capture_status !== 'uncaptured' || !pastDeadline(row, now)) return false;
      return (await settle(trx, row, 'expired', { type: 'system', id: null }, now)) !== undefined;
    });
    if (changed) expired.push(id);
  }
  return { expired, more: ids.length === limit };
}
