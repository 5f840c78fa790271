import { actorOf, type Caller } from '../kernel/caller.js';
import type { DbOrTrx } from '../db/database.js';
import type { AuthorizeBatchSettings } from '../kernel/config.js';
import { DecisionBatcher } from './decision-batcher.js';
import { decideBatch, type BatchMember, type DecisionSteps } from './batch-decide.js';
import { forbidden, notFound } from '../kernel/errors.js';
import type { IdempotencyHandle } from '../kernel/idempotency.js';
import { executeTogether, PreconditionFailed } from '../db/statements.js';
import { agentUnchanged, countDecision, deniedCount, lockAgentWithPolicy, readAgentState } from './authorization.repository.js';
import { periodsOf, readSpend } from '../decisions/spend.repository.js';
import type { AuthorizeInput } from './authorize.schemas.js';
import type { DecisionView } from '../decisions/decision.view.js';
import { captureAtOnce, railActor, takeCoveringApproval, type RailOutcome, type RailRequest } from './rail-request.js';
import { autoFreezeTips } from '../policies/evaluate.js';
import type { MandateRequest } from './mandate-request.js';
import { admissionOf, admitOnce } from './admission.js';
import { transitionAgent } from '../agents/agents.service.js';
import { agentStopHooks } from '../approvals/agent-hooks.js';
import type { AuthorizationDeps } from './authorization.deps.js';
import { prepareDecision, writesOf, type PreparedDecision } from './prepare-decision.js';


/**
 * Turns on group commit for these deps (a batch size of 1 leaves each decision its own
 * transaction). `afterCommit` is told of each batch committed, before any of its answers.
 */
export function groupDecisions(deps: AuthorizationDeps, settings: AuthorizeBatchSettings, afterCommit?: () => void): void {
  if (settings.size <= 1) return;
  const steps: DecisionSteps = { prepare: prepareDecision, decideLocked, decideAlone };
  deps.batcher = new DecisionBatcher(settings, (members) => decideBatch(deps, members, steps, afterCommit));
}

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
