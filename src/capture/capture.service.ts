import { actorOf, ADMIN, requireRole, signedByOf, type Caller, type RequestSignature, type Role } from '../kernel/caller.js';
import type { Db, DbOrTrx } from '../db/database.js';
import { appendAudit, decisionAuditFields, type AuditInput } from '../audit/audit.repository.js';
import { findDecisionById, findDecisionInScope, lockAgentThenDecision, lockDecision } from '../decisions/decisions.repository.js';
import { changeSpend } from '../decisions/spend.repository.js';
import { decisionEventData, toDecisionView, type DecisionRow, type DecisionView } from '../decisions/decision.view.js';
import { AppError, conflict, forbidden, invalid, notFound } from '../kernel/errors.js';
import { emitEvent } from '../events/events.repository.js';
import type { IdempotencyHandle } from '../kernel/idempotency.js';
import { overdueUncapturedIds, setCaptureMetadata, setCapturedAmount, settleCapture } from './capture.repository.js';
import type { CaptureInput, CaptureUpdateInput } from './capture.schemas.js';

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
async function settle(
  trx: DbOrTrx,
  row: DecisionRow,
  to: Settlement,
  actor: AuditInput['actor'],
  now: Date,
  capturedAmount?: number,
  captureMetadata?: Record<string, unknown>,
  signature?: RequestSignature | undefined,
): Promise<DecisionRow | undefined> {
  const updated = await settleCapture(trx, row.id, to, now, capturedAmount, captureMetadata, signature);
  if (!updated) return undefined;
  const records = settlementRecords(row, updated, to, actor, now, capturedAmount, signedByOf({ signature }));
  // Counted where the approval was counted (its own month and day), not in today's period.
  if (records.released > 0) await changeSpend(trx, row.agent_id, { month: row.spend_month, day: row.spend_day }, { approved: -records.released, reserved: 0 });
  await appendAudit(trx, records.audit);
  await emitEvent(trx, records.event);
  return updated;
}

/**
 * What a settlement records beside the decision's row, from the row before and after it: the
 * amount released from the agent's spend (in the approval's own month and day), the audit record
 * and the event. One shape for the statement-by-statement path and the group commit's rows.
 */
export function settlementRecords(row: DecisionRow, updated: DecisionRow, to: Settlement, actor: AuditInput['actor'], now: Date, capturedAmount?: number, signedBy: string | null = null) {
  const amount = Number(row.amount);
  const released = to === 'captured' ? amount - capturedAmount! : amount;
  const audit: AuditInput = {
    ...decisionAuditFields(row),
    type: TYPE_OF[to],
    actor,
    reason: to,
    metadata: {
      approved_amount: amount,
      captured_amount: to === 'captured' ? capturedAmount! : 0,
      released_amount: released,
      ...(to === 'captured' ? { capture_metadata: updated.capture_metadata ?? {} } : {}),
    },
    amount: to === 'captured' ? capturedAmount! : amount,
    signedBy,
  };
  const event = { accountId: row.account_id, livemode: row.livemode, type: TYPE_OF[to], data: decisionEventData(updated), now };
  return { released, audit, event };
}

/** The row a capture of `amount` leaves, as `settleCapture` writes it (for rows written by a batch). */
export function capturedRow(row: DecisionRow, amount: number, now: Date): DecisionRow {
  return {
    ...row,
    capture_status: 'captured',
    captured_amount: amount,
    captured_at: now,
    capture_metadata: {},
    // A rail's capture: no request signature. Set, not left as the row had it, as settleCapture does.
    capture_signature: null,
    capture_resolved_at: now,
    token_consumed_at: row.token_consumed_at ?? now,
    updated_at: now,
  };
}

/** The agent's row lock, then the decision's: the order every spend change takes. */
const lockForSettlement = async (trx: DbOrTrx, row: DecisionRow): Promise<DecisionRow> => (await lockAgentThenDecision(trx, row.agent_id, row.id))!;

function refuseUnlessUncaptured(row: DecisionRow, action: 'capture' | 'void'): void {
  if (row.decision !== 'approved' || !row.capture_status) {
    throw conflict(`Only an approved decision can be ${action === 'capture' ? 'captured' : 'voided'}; this one is ${row.status}.`);
  }
  if (row.capture_status !== 'uncaptured') throw conflict(`This approval is already ${row.capture_status}.`);
}

/** Roles that may capture: admins any approval, agent keys their own agent's in full (docs/api.md, Capture and void). */
const CAPTURERS: readonly Role[] = ['admin', 'agent'];

async function loadInScope(deps: CaptureDeps, caller: Caller, id: string, roles: readonly Role[]): Promise<DecisionRow> {
  requireRole(caller, roles);
  const row = await findDecisionInScope(deps.db, caller.accountId, caller.livemode, id);
  // An agent key sees only its own agent's decisions, as on GET /v1/decisions/:id: another's is not found.
  if (!row || (caller.role === 'agent' && row.agent_id !== caller.agentId)) throw notFound('decision', 'id');
  return row;
}

/**
 * `POST /v1/decisions/:id/capture`: the rail charged `amount` (default: all of it) of an approval.
 * Once only. The rest is released from the agent's budget in the same transaction; `metadata` is
 * kept with the capture. Agent keys capture their own agent's approvals in full only. A capture
 * arriving after the capture deadline records the expiry the sweep would have and answers 409.
 */
export async function captureDecision(deps: CaptureDeps, caller: Caller, id: string, input: CaptureInput, idem?: IdempotencyHandle<DbOrTrx>): Promise<DecisionView> {
  const first = await loadInScope(deps, caller, id, CAPTURERS);
  const outcome = await deps.db.transaction().execute(async (trx) => {
    const row = await lockForSettlement(trx, first);
    const amount = input.amount ?? Number(row.amount);
    if (amount > Number(row.amount)) throw invalid(`Invalid amount: at most the approved amount (${row.amount}).`, 'amount');
    // A smaller capture gives budget back: only an admin may say the rail charged less.
    if (caller.role !== 'admin' && amount !== Number(row.amount)) {
      throw forbidden(`Agent keys capture an approval in full only (no amount, or ${row.amount}); a smaller capture needs an admin key.`);
    }
    refuseUnlessUncaptured(row, 'capture');
    const now = deps.now?.() ?? new Date();
    if (pastDeadline(row, now)) {
      await settle(trx, row, 'expired', { type: 'system', id: null }, now);
      return { expired: true as const };
    }
    const view = toDecisionView((await settle(trx, row, 'captured', actorOf(caller), now, amount, input.metadata, caller.signature))!);
    if (idem) await idem.complete(trx, 200, JSON.stringify(view));
    return { expired: false as const, view };
  });
  if (outcome.expired) throw new AppError('conflict', 'This approval expired: it was not captured within its capture window.');
  return outcome.view;
}

/** A capture's metadata holds at most this many keys, as on authorize. */
const MAX_CAPTURE_METADATA_KEYS = 50;

/**
 * `PATCH /v1/decisions/:id/capture`: adds references to a captured approval's `capture.metadata`
 * (a rail that captures before it knows its settlement adds the transaction later). Keys are only
 * added: a key already recorded keeps its value (the same value again changes nothing; another
 * one → 409), so what was recorded at capture, e.g. the signed payment's nonce, stays as evidence.
 * Amounts and budgets are untouched. Same callers as a capture.
 */
export async function updateCaptureMetadata(deps: CaptureDeps, caller: Caller, id: string, input: CaptureUpdateInput): Promise<DecisionView> {
  await loadInScope(deps, caller, id, CAPTURERS);
  return deps.db.transaction().execute(async (trx) => {
    const row = (await lockDecision(trx, id))!;
    if (row.capture_status !== 'captured') {
      throw conflict(`Only a captured approval's capture metadata can be added to; this one is ${row.capture_status ?? row.status}.`);
    }
    const current = row.capture_metadata ?? {};
    const added: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(input.metadata)) {
      if (!Object.hasOwn(current, key)) added[key] = value;
      else if (current[key] !== value) throw conflict(`capture.metadata.${key} is already recorded with another value; recorded references do not change.`, 'metadata');
    }
    if (Object.keys(added).length === 0) return toDecisionView(row);
    const merged = { ...current, ...added };
    if (Object.keys(merged).length > MAX_CAPTURE_METADATA_KEYS) throw invalid(`capture metadata would hold more than ${MAX_CAPTURE_METADATA_KEYS} keys.`, 'metadata');
    const now = deps.now?.() ?? new Date();
    const updated = await setCaptureMetadata(trx, id, merged, now);
    await appendAudit(trx, { ...decisionAuditFields(row), type: 'authorization.capture_updated', actor: actorOf(caller), reason: 'capture_updated', metadata: { added }, amount: Number(row.captured_amount), signedBy: signedByOf(caller) });
    return toDecisionView(updated);
  });
}

/** `POST /v1/decisions/:id/void`: the whole amount of an uncaptured approval is released; its token stops verifying. */
export async function voidDecision(deps: CaptureDeps, caller: Caller, id: string, idem?: IdempotencyHandle<DbOrTrx>): Promise<DecisionView> {
  const first = await loadInScope(deps, caller, id, ADMIN);
  return deps.db.transaction().execute(async (trx) => {
    const row = await lockForSettlement(trx, first);
    refuseUnlessUncaptured(row, 'void');
    const now = deps.now?.() ?? new Date();
    const view = toDecisionView((await settle(trx, row, 'voided', actorOf(caller), now, undefined, undefined, caller.signature))!);
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

/**
 * Captures an uncaptured approval for `amount` inside the caller's transaction, which already holds
 * the agent's row lock (a rail that asks first captures at the moment it approves the card): the
 * same record as `POST /v1/decisions/:id/capture`. Undefined, with nothing written, when the
 * approval is no longer uncaptured, is past its capture deadline, or is smaller than `amount`.
 */
export async function captureLocked(trx: DbOrTrx, id: string, amount: number, actor: AuditInput['actor'], now: Date): Promise<DecisionRow | undefined> {
  const row = await lockDecision(trx, id);
  if (!row || row.decision !== 'approved' || row.capture_status !== 'uncaptured' || pastDeadline(row, now) || amount > Number(row.amount)) return undefined;
  return settle(trx, row, 'captured', actor, now, amount);
}

/**
 * Captures, in full, an approval the caller's transaction has just written (a rail's new approval):
 * from the row as written, without reading and locking it again; the transaction holds the
 * agent's row lock and wrote the row, so nobody else can have changed it.
 */
export async function captureWritten(trx: DbOrTrx, row: DecisionRow, actor: AuditInput['actor'], now: Date): Promise<DecisionRow> {
  const captured = await settle(trx, row, 'captured', actor, now, Number(row.amount));
  if (!captured) throw new Error(`a new approval ${row.id} could not be captured`);
  return captured;
}

/**
 * A rail that asks first reports what a captured approval finally charged (a partial reversal, a
 * settlement, a refund, a decline, a capture above what was approved): the approval then counts
 * `amount` (0 voids it), also above its approved amount, since what the card moved is what counts;
 * `over` is the part of it above what was approved for the card authorization. The difference goes
 * back to, or comes from, the agent's spend in the period the approval counted in, even past its
 * budget; an audit record and an event (`authorization.adjusted`, or `authorization.voided` at 0)
 * say so. The caller holds the agent's and the decision's row locks (lockAgentThenDecision).
 * Undefined, with nothing written, when nothing changes or the approval was never captured.
 */
export async function adjustCaptureLocked(
  trx: DbOrTrx,
  row: DecisionRow,
  amount: number,
  over: number,
  actor: AuditInput['actor'],
  now: Date,
  details: Record<string, unknown>,
): Promise<DecisionRow | undefined> {
  if (row.capture_status !== 'captured' && row.capture_status !== 'voided') return undefined;
  const before = row.capture_status === 'captured' ? Number(row.captured_amount) : 0;
  const overBefore = row.capture_status === 'captured' ? Number(row.over_capture_amount ?? 0) : 0;
  const after = Math.max(0, amount);
  const overAfter = after > 0 ? Math.max(0, Math.min(over, after)) : 0;
  if (after === before && overAfter === overBefore) return undefined;
  const updated = await setCapturedAmount(trx, row.id, after > 0 ? after : null, overAfter > 0 ? overAfter : null, now);
  if (after !== before) await changeSpend(trx, row.agent_id, { month: row.spend_month, day: row.spend_day }, { approved: after - before, reserved: 0 });
  const type = after === 0 ? 'authorization.voided' : 'authorization.adjusted';
  await appendAudit(trx, {
    ...decisionAuditFields(row),
    type,
    actor,
    reason: String(details.reason ?? type),
    amount: after,
    metadata: { ...details, previous_captured_amount: before, captured_amount: after, released_amount: Math.max(0, before - after), added_amount: Math.max(0, after - before) },
  });
  await emitEvent(trx, { accountId: row.account_id, livemode: row.livemode, type, data: decisionEventData(updated), now });
  return updated;
}
