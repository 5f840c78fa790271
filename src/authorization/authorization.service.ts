import { approvalsRequiredFor, escalatesAt } from '../policies/approval-rules.js';
import { actorOf, requireRole, signedByOf, ADMIN, ANY_ROLE, type Caller } from '../kernel/caller.js';
import type { Db, DbOrTrx, MandateRef } from '../db/database.js';
import { appendAudit, auditInsertStatement, auditRecord, decisionAuditFields, type AuditInput } from '../audit/audit.repository.js';
import type { AuthorizeBatchSettings } from '../kernel/config.js';
import { DecisionBatcher } from './decision-batcher.js';
import { decideBatch, type BatchMember, type BatchPhase, type DecisionRecord, type DecisionSteps } from './batch-decide.js';
import { consumeToken } from '../decisions/decisions.repository.js';
import { AppError, forbidden, notFound } from '../kernel/errors.js';
import { eventInsert, eventRecord } from '../events/events.repository.js';
import type { IdempotencyHandle } from '../kernel/idempotency.js';
import { newId } from '../kernel/ids.js';
import { outboxInsert } from '../outbox/outbox.repository.js';
import { executeTogether, PreconditionFailed } from '../db/statements.js';
import { signAuthorizationToken, verifyAuthorizationToken, type TokenSigner, type VerifyResult } from '../tokens/authorization-token.js';
import { agentUnchanged, countDecision, decisionInsert, deniedCount, lockAgentWithPolicy, readAgentState } from './authorization.repository.js';
import { findDecisionInScope } from '../decisions/decisions.repository.js';
import { periodsOf, readSpend, spendIncrease } from '../decisions/spend.repository.js';
import type { AuthorizeInput } from './authorize.schemas.js';
import { decisionEventData, toDecisionView, type DecisionRow, type DecisionView, type RailRef } from '../decisions/decision.view.js';
import { captureAtOnce, railActor, takeCoveringApproval, type RailOutcome, type RailRequest } from './rail-request.js';
import type { DecisionWaiter } from './decision-waiter.js';
import { autoFreezeTips, evaluate, type Evaluation } from '../policies/evaluate.js';
import type { MandateRefusal, MandateRequest } from './mandate-request.js';
import { admissionOf, admitOnce } from './admission.js';
import { loadSafetyInputs } from './safety.js';
import { transitionAgent } from '../agents/agents.service.js';
import { findAgentInScope } from '../agents/agents.repository.js';
import { agentStopHooks } from '../approvals/agent-hooks.js';
import { countCheckStatement } from '../usage/usage.repository.js';
import { monthOf } from '../usage/month.js';
import { DEFAULT_CAPTURE_WINDOW_SECONDS } from '../policies/policies.schemas.js';

export interface AuthorizationDeps {
  db: Db;
  signer: TokenSigner;
  waiter: DecisionWaiter;
  now?: () => Date;
  /** Told of each decision once committed (metrics); never of an idempotent replay. */
  onDecision?: (outcome: DecisionView['decision']) => void;
  /** Told of the size of each batch committed together (metrics). */
  onBatch?: (size: number) => void;
  /** Told where each committed batch's time went (seconds by phase; metrics). */
  onBatchPhases?: (phases: Readonly<Record<BatchPhase, number>>) => void;
  /** Set by `groupDecisions`: decisions are committed in batches (docs/operations.md, "Group commit"). */
  batcher?: DecisionBatcher<BatchMember, RailOutcome>;
  /** MAX_QUEUE_MS: how long a spend request may wait for its work to start (admission.ts). */
  maxQueueMs?: number | undefined;
  /** Told how long each spend request with a bound waited, and whether it was shed (metrics). */
  onAdmission?: ((waitedMs: number, shed: boolean) => void) | undefined;
}

/**
 * Turns on group commit for these deps (a batch size of 1 leaves each decision its own
 * transaction). `afterCommit` is told of each batch committed, before any of its answers.
 */
export function groupDecisions(deps: AuthorizationDeps, settings: AuthorizeBatchSettings, afterCommit?: () => void): void {
  if (settings.size <= 1) return;
  const steps: DecisionSteps = { prepare: prepareDecision, decideLocked, decideAlone };
  deps.batcher = new DecisionBatcher(settings, (members) => decideBatch(deps, members, steps, afterCommit));
}

const EVENT_OF = { approved: 'authorize.approved', denied: 'authorize.denied', held: 'authorize.held' } as const;

type AgentState = NonNullable<Awaited<ReturnType<typeof readAgentState>>>;
type PreparedDecision = Awaited<ReturnType<typeof prepareDecision>>;
/**
 * Who a decision is recorded as, and the rail or the mandate that asked for it. With `mandate`, no
 * hold or duplicate step applies, and `refusal` (the mandate's own rules, failed) is the decision.
 */
export type DecisionVia = {
  actor: AuditInput['actor'];
  rail?: RailRef | undefined;
  incrementOf?: string | null | undefined;
  mandate?: MandateRef | undefined;
  /** With `mandate`: the closed mandate's digest, sealed in the record's terms. */
  mandateDigest?: string | undefined;
  refusal?: MandateRefusal | undefined;
};

/**
 * Decides one spend request. Everything it changes (decision, spend counters, audit record, event,
 * workflow outbox row, usage count, stored idempotent response) is written by one statement, so it
 * commits completely or not at all, and every decision of an agent is evaluated against the state
 * the previous one left: budgets can never be overrun.
 *
 * With group commit on (`groupDecisions`), requests that arrive together are decided in one
 * transaction that locks their agents once (batch-decide.ts); a request alone (or a rail's) takes the one-by-one
 * path: first without a lock, one read, then one write that applies only if the agent's decision
 * counter, status and policy are unchanged. When another decision got there first (or the outcome
 * must do more than write, like tipping auto-freeze), it is decided again in a transaction holding
 * the agent's row lock, which queues concurrent requests of one agent instead of retrying them.
 */
export async function authorize(deps: AuthorizationDeps, caller: Caller, input: AuthorizeInput, idem?: IdempotencyHandle<DbOrTrx>, arrivedAt?: number): Promise<DecisionView> {
  return (await decide(deps, caller, input, { idem, arrivedAt })).decision;
}

/**
 * The one entry point of every spend decision: `POST /v1/authorize` (and the quick-start surface)
 * and the rails that ask first. With `rail`, the request is decided under the agent's row lock,
 * where an uncaptured approval that covers it is taken first (rule 1), and the rail's record is
 * written in the same transaction (rail-request.ts).
 */
export async function decide(
  deps: AuthorizationDeps,
  caller: Caller,
  input: AuthorizeInput,
  opts: { idem?: IdempotencyHandle<DbOrTrx> | undefined; rail?: RailRequest | undefined; arrivedAt?: number | undefined } = {},
): Promise<RailOutcome> {
  if (caller.role === 'reviewer') throw forbidden('Reviewer keys cannot request spend authorizations.');
  if (caller.role === 'agent' && caller.agentId !== input.agent_id) throw notFound('agent', 'agent_id');
  // A rail's request is bound by its own deadline (checkInTime), any other by MAX_QUEUE_MS from its arrival.
  const admission = opts.arrivedAt !== undefined && !opts.rail ? admissionOf(opts.arrivedAt, deps.maxQueueMs) : undefined;
  const member: BatchMember = { caller, input, idem: opts.idem, rail: opts.rail, admission };
  // A rail's request joins the batches too: its match and capture are decided in memory under the
  // batch's agent locks and written with the batch's rows (batch-decide.ts), and one agent's swipes
  // and authorizations keep their arrival order.
  const decided = deps.batcher ? await deps.batcher.submit(agentKey(caller, input.agent_id), member) : await decideAlone(deps, member);
  if (decided.kind === 'decided') deps.onDecision?.(decided.decision.decision);
  return decided;
}

const agentKey = (caller: Caller, agentId: string) => `${caller.accountId}:${caller.livemode}:${agentId}`;

/** One request in a transaction of its own: unlocked when it can be, else under the agent's lock. */
async function decideAlone(deps: AuthorizationDeps, member: BatchMember): Promise<RailOutcome> {
  const { caller, input, idem, rail } = member;
  // Requests of one agent take turns in this process: each then finds the state the previous one
  // committed, so its unlocked write holds (two statements), where racing would have sent it to
  // the locked path (five). Other processes, and changes made elsewhere, are still caught by the
  // write's condition.
  const turn = takeTurn(agentKey(caller, input.agent_id));
  try {
    await turn.ready;
    admitOnce(member, deps.onAdmission);
    rail?.checkInTime();
    const unlocked = rail ? undefined : await decideWithoutLock(deps, caller, input, idem);
    return unlocked ? { kind: 'decided', decision: unlocked } : await deps.db.transaction().execute((trx) => decideLocked(deps, trx, caller, input, idem, rail));
  } finally {
    turn.done();
  }
}

/** The last authorization queued per agent in this process: the next one waits for it to finish. */
const turns = new Map<string, Promise<void>>();

function takeTurn(key: string): { ready: Promise<void>; done: () => void } {
  const ready = turns.get(key) ?? Promise.resolve();
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const tail = ready.then(() => finished);
  turns.set(key, tail);
  return {
    ready,
    done: () => {
      done();
      if (turns.get(key) === tail) turns.delete(key);
    },
  };
}

async function decideWithoutLock(deps: AuthorizationDeps, caller: Caller, input: AuthorizeInput, idem?: IdempotencyHandle<DbOrTrx>): Promise<DecisionView | undefined> {
  // A stored response that must be written by its own query needs the transaction.
  if (idem && !idem.completion) return undefined;
  const now = deps.now?.() ?? new Date();
  const state = await readAgentState(deps.db, caller.accountId, caller.livemode, input.agent_id, periodsOf(now));
  const decision = await prepareDecision(deps, deps.db, caller, input, idem, state, now);
  if (decision.needsLock) return undefined;
  try {
    await executeTogether(deps.db, writesOf(deps.db, decision, idem), { precondition: agentUnchanged(deps.db, decision.agent) });
  } catch (err) {
    if (err instanceof PreconditionFailed) return undefined;
    throw err;
  }
  return decision.view;
}

/**
 * Decides one request in `trx`, holding the agent's row lock from its first statement: the way of
 * every request that must do more than write (a rail's match and capture, tipping auto-freeze).
 */
async function decideLocked(
  deps: AuthorizationDeps,
  trx: DbOrTrx,
  caller: Caller,
  input: AuthorizeInput,
  idem: IdempotencyHandle<DbOrTrx> | undefined,
  rail: RailRequest | undefined,
  batchNow?: Date,
): Promise<RailOutcome> {
  const locked = await lockAgentWithPolicy(trx, caller.accountId, caller.livemode, input.agent_id);
  rail?.checkInTime();
  // Inside a batch, the batch's clock (one per batch, batch-decide.ts); alone, read after the lock.
  const now = batchNow ?? deps.now?.() ?? new Date();
  const actor = rail ? railActor(rail.ref) : actorOf(caller);
  if (rail && locked?.agent.status === 'active') {
    const matched = await takeCoveringApproval(trx, locked, input, actor, now);
    if (matched) {
      const outcome = { kind: 'matched' as const, decision: matched };
      await rail.record(trx, outcome);
      return outcome;
    }
  }
  // Spend is read after the lock is granted, by its own statement, so it is the latest committed.
  const state = locked && { ...locked, spend: await readSpend(trx, locked.agent.id, periodsOf(now)) };
  const decision = await prepareDecision(deps, trx, caller, input, idem, state, now, { actor, rail: rail?.ref, incrementOf: rail?.incrementOf });
  await executeTogether(trx, [countDecision(trx, decision.agent.id), ...writesOf(trx, decision, idem)]);
  const view = rail && decision.view.decision === 'approved' ? await captureAtOnce(trx, decision.record.row, actor, now) : decision.view;
  if (idem && !idem.completion) await idem.complete(trx, 200, JSON.stringify(view));
  await freezeIfTipped(trx, decision, now);
  const outcome = { kind: 'decided' as const, decision: view };
  if (rail) await rail.record(trx, outcome);
  return outcome;
}

/**
 * Decides an AP2 mandate's payment (DECISIONS §20 steps 5–9): in one transaction of its own, never
 * batched and never unlocked, holding the agent's row lock and then the mandate's (`mandate.check`
 * takes it: agent first, as deactivation does, design Q1), so concurrent presentations of one
 * mandate never jointly pass its budget, its count or its single use, nor the agent's budgets.
 * The mandate's own refusal is recorded as a denied decision; otherwise the policy decides, without
 * the hold and duplicate steps. `mandate.record`'s statements (the mandate's side) are written with
 * the decision's, in one statement. A frozen or deactivated agent is an error (step 5): nothing is written.
 */
export async function decideMandate(deps: AuthorizationDeps, caller: Caller, input: AuthorizeInput, mandate: MandateRequest): Promise<DecisionView> {
  if (caller.role === 'reviewer') throw forbidden('Reviewer keys cannot request spend authorizations.');
  if (caller.role === 'agent' && caller.agentId !== input.agent_id) throw notFound('agent', 'agent_id');
  // Behind this process's earlier requests of the agent, as authorize's one-by-one path.
  const turn = takeTurn(agentKey(caller, input.agent_id));
  try {
    await turn.ready;
    const view = await deps.db.transaction().execute((trx) => decideMandateLocked(deps, trx, caller, input, mandate));
    deps.onDecision?.(view.decision);
    return view;
  } finally {
    turn.done();
  }
}

async function decideMandateLocked(deps: AuthorizationDeps, trx: DbOrTrx, caller: Caller, input: AuthorizeInput, mandate: MandateRequest): Promise<DecisionView> {
  const locked = await lockAgentWithPolicy(trx, caller.accountId, caller.livemode, input.agent_id);
  const now = deps.now?.() ?? new Date();
  const periods = periodsOf(now);
  // An agent that cannot transact is prepareDecision's error (step 5), before the mandate is looked at.
  const checked = locked?.agent.status === 'active' ? await mandate.check(trx, locked.agent.id, now, periods) : undefined;
  // The spend comes with the mandate's lock (a statement begun under the agent's lock, as readSpend would be).
  const state = locked && { ...locked, spend: checked?.spend ?? (await readSpend(trx, locked.agent.id, periods)) };
  const decision = await prepareDecision(deps, trx, caller, input, undefined, state, now, { actor: actorOf(caller), mandate: mandate.ref, mandateDigest: mandate.closedDigest, refusal: checked?.refusal });
  // The mandate's side in the decision's own statement: one round trip writes both.
  await executeTogether(trx, [countDecision(trx, decision.agent.id), ...writesOf(trx, decision, undefined), ...mandate.record(decision.view)]);
  await freezeIfTipped(trx, decision, now);
  return decision.view;
}

/** Runaway protection (auto_freeze): this denial still gets its answer; the agent stops here. */
async function freezeIfTipped(trx: DbOrTrx, decision: PreparedDecision, now: Date): Promise<void> {
  if (!decision.tipsAutoFreeze) return;
  const denied = await deniedCount(trx, decision.agent.id, decision.tipsAutoFreeze.window_seconds, now);
  if (autoFreezeTips(decision.tipsAutoFreeze, denied)) {
    await transitionAgent(trx, decision.agent, 'frozen', { type: 'system', id: null }, agentStopHooks, 'runaway protection');
  }
}

/**
 * Evaluates the request against `state` and returns the answer with the statements that record it.
 * Errors (unknown, frozen or deactivated agent) are thrown here, before anything is written.
 */
async function prepareDecision(
  deps: AuthorizationDeps,
  db: DbOrTrx,
  caller: Caller,
  input: AuthorizeInput,
  idem: IdempotencyHandle<DbOrTrx> | undefined,
  state: AgentState | undefined,
  now: Date,
  via: DecisionVia = { actor: actorOf(caller) },
) {
  if (!state) throw notFound('agent', 'agent_id');
  const { agent, policy, spend } = state;
  if (agent.status === 'frozen') throw new AppError('agent_frozen', 'The agent is frozen and cannot transact.', 'agent_id');
  if (agent.status === 'deactivated') throw new AppError('agent_deactivated', 'The agent is deactivated and cannot transact.', 'agent_id');
  // The policy as read here, not as the caller's cache last saw it: a flag turned on in another
  // process holds from the next decision (DECISIONS §19). Not stored: a signed retry gets an answer.
  if (caller.role === 'agent' && policy?.require_signed_requests && !caller.signature) {
    throw new AppError('signature_required', "The agent's policy requires signed requests: sign this request (RFC 9421, tag \"web-bot-auth\").", 'Signature-Input');
  }

  const periods = periodsOf(now);
  const request = { amount: input.amount, currency: input.currency, vendor: input.vendor, category: input.category ?? null };
  const outcome = via.refusal ? refused(policy, via.refusal) : await evaluated();
  async function evaluated(): Promise<Evaluation> {
    // A mandate's payment has no duplicate step: its lookalikes are not even read.
    const safety = await loadSafetyInputs(db, agent.id, policy, request, idem !== undefined || via.mandate !== undefined, now);
    return evaluate({ agent, policy: policy ?? null, request, spend, ...safety }, { holds: via.mandate === undefined });
  }

  const id = newId('dec');
  let token: { token: string; expiresAt: Date } | undefined;
  if (outcome.decision === 'approved') {
    token = await signAuthorizationToken(
      deps.signer,
      { aud: caller.accountId, sub: agent.id, jti: id, amount: input.amount, currency: input.currency, vendor: input.vendor, category: request.category, policy: outcome.policy_applied, livemode: caller.livemode },
      now,
    );
  }
  const held = outcome.decision === 'held';
  const row: DecisionRow = {
    id,
    account_id: caller.accountId,
    livemode: caller.livemode,
    agent_id: agent.id,
    policy_id: outcome.policy_applied,
    ...request,
    metadata: input.metadata ?? {},
    decision: outcome.decision,
    original_decision: outcome.decision,
    original_reason_code: outcome.reason_code,
    status: held ? 'pending' : outcome.decision,
    reason_code: outcome.reason_code,
    reason: outcome.reason,
    authorization_token: token?.token ?? null,
    token_expires_at: token?.expiresAt ?? null,
    spend_month: periods.month,
    spend_day: periods.day,
    idempotency_key: idem?.key ?? null,
    expires_at: held && policy ? new Date(now.getTime() + policy.approval_timeout_seconds * 1000) : null,
    resolved_at: held ? null : now,
    resolved_by: null,
    resolution_note: null,
    // The quorum and escalation are fixed when held: a later policy change does not move them.
    approvals_required: held ? approvalsRequiredFor(policy?.approval_rules, input.amount) : null,
    approvals: [],
    escalates_at: held && policy ? escalatesAt(policy, now) : null,
    escalated_at: null,
    created_at: now,
    updated_at: now,
    // Set here, not left to the database's default, so the answer shows them (migration 015).
    capture_status: outcome.decision === 'approved' ? 'uncaptured' : null,
    captured_amount: null,
    captured_at: null,
    capture_expires_at: outcome.decision === 'approved' ? new Date(now.getTime() + (policy?.capture_window_seconds ?? DEFAULT_CAPTURE_WINDOW_SECONDS) * 1000) : null,
    capture_resolved_at: null,
    token_consumed_at: null,
    // No API key asks for a rail's request (docs/api.md, "Four eyes in live mode").
    requested_by: via.rail ? null : caller.keyId,
    capture_metadata: null,
    rail_type: via.rail?.type ?? null,
    rail_connection_id: via.rail?.connection_id ?? null,
    rail_authorization_id: via.rail?.authorization_id ?? null,
    increment_of: via.incrementOf ?? null,
    over_capture_amount: null,
    signature: caller.signature ?? null,
    capture_signature: null,
    mandate: via.mandate ?? null,
  };
  const view = toDecisionView(row);
  const event = { ...eventRecord({ accountId: caller.accountId, livemode: caller.livemode, type: EVENT_OF[outcome.decision], data: {}, now }), data: decisionEventData(row) };
  const record: DecisionRecord = {
    row,
    audit: auditRecord({
      accountId: caller.accountId,
      livemode: caller.livemode,
      type: 'authorization.decision',
      actor: via.actor,
      agentId: agent.id,
      decisionId: id,
      decision: outcome.decision,
      amount: input.amount,
      currency: input.currency,
      vendor: input.vendor,
      category: request.category,
      policyId: outcome.policy_applied,
      reason: outcome.reason_code,
      metadata: auditMetadata(input, via),
      // Each member of a batch carries its own caller, so its own signer.
      signedBy: signedByOf(caller),
      terms: {
        spend_month: row.spend_month,
        spend_day: row.spend_day,
        requested_by: row.requested_by ?? null,
        approvals_required: row.approvals_required,
        ...(via.mandate && via.mandateDigest ? { mandate: { ...via.mandate, closed_digest: via.mandateDigest } } : {}),
      },
    }),
    event,
    outbox: held ? [{ topic: 'event', refId: event.id }, { topic: 'held_decision', refId: id }] : [{ topic: 'event', refId: event.id }],
    spend: outcome.decision === 'approved' ? { approved: input.amount, reserved: 0 } : held ? { approved: 0, reserved: input.amount } : undefined,
    periods,
    // Billable (docs/api.md, "Usage"): this 200 in live mode, counted once with the decision.
    // Replays never reach here; errors roll the count back with everything else.
    counted: caller.livemode,
  };
  const tipsAutoFreeze = outcome.decision === 'denied' && policy?.auto_freeze ? policy.auto_freeze : null;
  return { agent, view, record, tipsAutoFreeze, needsLock: tipsAutoFreeze !== null };
}

/** A mandate's refusal as the decision's outcome; the policy applied is the one bound, if any. */
function refused(policy: { id: string } | undefined, refusal: MandateRefusal) {
  return { decision: 'denied' as const, reason_code: refusal.reason_code, reason: refusal.reason, policy_applied: policy?.id ?? null };
}

/** A rail's or a mandate's decision names it in its record (an object: request metadata never holds one). */
function auditMetadata(input: AuthorizeInput, via: DecisionVia): Record<string, unknown> {
  if (via.rail) return { ...input.metadata, rail: via.rail, ...(via.incrementOf ? { increment_of: via.incrementOf } : {}) };
  if (via.mandate) return { ...input.metadata, mandate: via.mandate };
  return input.metadata ?? {};
}

/** The statements that record one decision, run together as one (the one-by-one path). */
function writesOf(db: DbOrTrx, { agent, record, view }: PreparedDecision, idem: IdempotencyHandle<DbOrTrx> | undefined) {
  const { row, spend, periods, event } = record;
  return [
    decisionInsert(row),
    spend && spendIncrease(agent.id, periods, spend),
    auditInsertStatement(record.audit),
    eventInsert({ ...event, data: JSON.stringify(event.data) }),
    outboxInsert(record.outbox, row.account_id, row.created_at),
    record.counted && countCheckStatement(row.account_id, monthOf(row.created_at)),
    idem?.completion?.(db, 200, JSON.stringify(view)),
  ];
}

/**
 * The current state of a decision; with `waitSeconds`, long-polls while it is pending. The wait
 * reads nothing: it is woken by the resolution's commit notification (or its deadline), then reads
 * once, so a waiter costs two reads however long it waits.
 */
export async function getDecision(
  deps: Pick<AuthorizationDeps, 'db' | 'waiter'>,
  caller: Caller,
  id: string,
  waitSeconds = 0,
  signal?: AbortSignal,
): Promise<DecisionView> {
  requireRole(caller, ANY_ROLE);
  const deadline = Date.now() + waitSeconds * 1000;
  const watch = waitSeconds > 0 ? deps.waiter.watch(id) : undefined;
  try {
    for (let last = false; ; ) {
      const row = await findDecisionInScope(deps.db, caller.accountId, caller.livemode, id);
      // An agent key reads only its own agent's decisions; anything else is as if it did not exist.
      if (!row || (caller.role === 'agent' && row.agent_id !== caller.agentId)) throw notFound('decision', 'id');
      if (last || row.status !== 'pending' || !watch || Date.now() >= deadline || signal?.aborted) return toDecisionView(row);
      last = (await watch.next(deadline, signal)) === 'deadline';
      // Nobody is left to read the answer.
      if (signal?.aborted) return toDecisionView(row);
    }
  } finally {
    watch?.close();
  }
}

/**
 * For rails that prefer a call to offline verification. Beyond the offline checks: a token of
 * another account or mode is not valid for the caller, and a token stops verifying once its agent
 * is frozen or deactivated (it verifies again if the agent is unfrozen). After the approval is
 * captured, voided or expired, or once consumed, it never verifies again. With `consume` (admin
 * keys), a valid answer also marks the token consumed: of concurrent consumers exactly one is told
 * valid.
 */
export async function verifyToken(deps: Pick<AuthorizationDeps, 'db' | 'signer' | 'now'>, caller: Caller, token: string, consume = false): Promise<VerifyResult> {
  requireRole(caller, consume ? ADMIN : ANY_ROLE);
  const now = deps.now?.() ?? new Date();
  const result = await verifyAuthorizationToken(deps.signer, token, now);
  if (!result.valid) return result;
  const fail = (error: 'wrong_audience' | 'unknown_token' | 'agent_inactive' | 'consumed' | 'voided' | 'expired'): VerifyResult => ({ valid: false, claims: null, error });
  // Tokens minted before `aud` existed have none; the scoped lookup below still confines them.
  if ((result.claims.aud !== undefined && result.claims.aud !== caller.accountId) || result.claims.livemode !== caller.livemode) return fail('wrong_audience');
  const decision = await findDecisionInScope(deps.db, caller.accountId, caller.livemode, result.claims.jti);
  if (!decision || decision.decision !== 'approved') return fail('unknown_token');
  const agent = await findAgentInScope(deps.db, caller.accountId, caller.livemode, decision.agent_id);
  if (!agent || agent.status !== 'active') return fail('agent_inactive');
  const spent = spentTokenError(decision, now);
  if (spent) return fail(spent);
  if (consume) {
    const consumed = await deps.db.transaction().execute(async (trx) => {
      const row = await consumeToken(trx, decision.id, now);
      if (row) {
        await appendAudit(trx, {
          ...decisionAuditFields(row),
          type: 'authorization_token.consumed',
          actor: actorOf(caller),
        });
      }
      return row;
    });
    if (!consumed) {
      // Someone else consumed, captured, voided or expired it in the meantime.
      const current = await findDecisionInScope(deps.db, caller.accountId, caller.livemode, decision.id);
      return fail((current && spentTokenError(current, now)) || 'consumed');
    }
  }
  return result;
}

/** Why an approval's token no longer verifies, if it does not: used once, captured, voided or expired. */
function spentTokenError(row: DecisionRow, now: Date): 'consumed' | 'voided' | 'expired' | undefined {
  if (row.capture_status === 'voided') return 'voided';
  // Past its capture deadline an approval is expired, also in the minutes before the sweep records it.
  if (row.capture_status === 'expired' || (row.capture_status === 'uncaptured' && row.capture_expires_at !== null && row.capture_expires_at <= now)) return 'expired';
  if (row.capture_status === 'captured' || row.token_consumed_at !== null) return 'consumed';
  return undefined;
}
