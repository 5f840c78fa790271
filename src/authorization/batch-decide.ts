import type { AgentsTable, DbOrTrx, Selectable } from '../db/database.js';
import type { NewAuditRow } from '../audit/audit.repository.js';
import { capturedRow, settlementRecords } from '../capture/capture.service.js';
import { toDecisionView } from '../decisions/decision.view.js';
import type { Caller } from '../kernel/caller.js';
import { AppError, notFound } from '../kernel/errors.js';
import { commitOutcome } from '../db/commit-outcome.js';
import type { IdempotencyHandle } from '../kernel/idempotency.js';
import type { DecisionRow, DecisionView } from '../decisions/decision.view.js';
import { periodsOf } from '../decisions/spend.repository.js';
import type { OutboxTopic } from '../outbox/outbox.repository.js';
import { eventRecord } from '../events/events.repository.js';
import type { SpendState } from '../policies/evaluate.js';
import type { AuthorizationDeps, DecisionVia } from './authorization.deps.js';
import type { AuthorizeInput } from './authorize.schemas.js';
import type { BoundPolicy } from './authorization.repository.js';
import { lockAgentsWithPolicies, readSpends, savepoint, batchPass } from './batch.repository.js';
import type { Settled } from './decision-batcher.js';
import { lateError, PendingWrites, RailMatcher, type PendingCapture, type PendingTake } from './batch-writes.js';
import { admitOnce, type Admission } from './admission.js';
import { pickCovering, railActor, type RailOutcome, type RailRequest } from './rail-request.js';

/** One request waiting in a batch. */
export interface BatchMember {
  caller: Caller;
  input: AuthorizeInput;
  idem: IdempotencyHandle<DbOrTrx> | undefined;
  rail: RailRequest | undefined;
  /** Its bound on waiting (admission.ts); checked once, when its work starts. */
  admission?: Admission | undefined;
}

/** Everything one decision writes, as rows (the one-by-one path turns them into its own statements). */
export interface DecisionRecord {
  row: DecisionRow;
  audit: NewAuditRow;
  event: Omit<ReturnType<typeof eventRecord>, 'data'> & { data: Record<string, unknown> };
  outbox: { topic: OutboxTopic; refId: string }[];
  /** Added to the agent's month and day counters. */
  spend: { approved: number; reserved: number } | undefined;
  periods: { month: string; day: string };
  /** A billable check (live mode). */
  counted: boolean;
}

/** The state a decision is evaluated against. */
export interface AgentState {
  agent: Selectable<AgentsTable>;
  policy: BoundPolicy | undefined;
  spend: SpendState;
}

/** The one-by-one path's steps a batch reuses, so both decide by exactly the same code. */
export interface DecisionSteps {
  prepare(
    deps: AuthorizationDeps,
    db: DbOrTrx,
    caller: Caller,
    input: AuthorizeInput,
    idem: IdempotencyHandle<DbOrTrx> | undefined,
    state: AgentState | undefined,
    now: Date,
    via?: DecisionVia,
  ): Promise<{ view: DecisionView; record: DecisionRecord }>;
  /** `now`: the batch's clock (one per batch); absent, the locked path reads its own after the lock. */
  decideLocked(deps: AuthorizationDeps, trx: DbOrTrx, caller: Caller, input: AuthorizeInput, idem: IdempotencyHandle<DbOrTrx> | undefined, rail: RailRequest | undefined, now?: Date): Promise<RailOutcome>;
  decideAlone(deps: AuthorizationDeps, member: BatchMember): Promise<RailOutcome>;
}

/**
 * Decides a batch in one transaction (docs/operations.md, "Group commit"): its agents are locked
 * and read once, each request is decided in arrival order against the state the ones before it
 * left, all rows are written by one statement per table, and the batch commits once. A request
 * that fails (an unknown or frozen agent) fails alone. If the transaction fails before its COMMIT,
 * each request is decided again on its own, so no answer is given that was not committed. If the
 * COMMIT's answer is lost, the database is asked whether it committed (`commitOutcome`) until it
 * says: a request is never decided twice.
 */
export async function decideBatch(deps: AuthorizationDeps, members: BatchMember[], steps: DecisionSteps, afterCommit?: () => void): Promise<Settled<RailOutcome>[]> {
  // The batch's start is its members' end of waiting: those that waited past their bound are shed
  // here, before anything is read, and the others decided as a batch without them.
  const shed = new Map<number, Settled<RailOutcome>>();
  members.forEach((m, i) => {
    try {
      admitOnce(m, deps.onAdmission);
    } catch (error) {
      shed.set(i, { ok: false, error });
    }
  });
  if (shed.size === 0) return decideAdmitted(deps, members, steps, afterCommit);
  const admitted = members.filter((_, i) => !shed.has(i));
  const decided = admitted.length > 0 ? await decideAdmitted(deps, admitted, steps, afterCommit) : [];
  let next = 0;
  return members.map((_, i) => shed.get(i) ?? decided[next++]!);
}

async function decideAdmitted(deps: AuthorizationDeps, members: BatchMember[], steps: DecisionSteps, afterCommit?: () => void): Promise<Settled<RailOutcome>[]> {
  // Alone, a request is cheaper on its own path (two statements, no lock to wait for); a rail's is
  // not (its match and capture are a dozen statements there), so it takes the batch's way.
  if (members.length === 1 && !members[0]!.rail) {
    const alone = await settle(() => steps.decideAlone(deps, members[0]!));
    deps.onBatch?.(1);
    return [alone];
  }
  // Set once every statement ran: from then on, only the COMMIT can have failed.
  let decided: Awaited<ReturnType<typeof decideInTransaction>> | undefined;
  const clock = new PhaseClock();
  try {
    await deps.db.transaction().execute(async (trx) => {
      clock.mark('connect');
      decided = await decideInTransaction(deps, trx, members, steps, clock);
    });
    clock.mark('commit');
  } catch {
    // Before COMMIT (or with nothing written) nothing can have committed: decide each again.
    const wrote = decided?.settled.some((s) => s.ok);
    const outcome = decided?.txid === undefined || !wrote ? 'aborted' : await commitOutcome(deps.db, decided.txid);
    if (outcome === 'aborted') {
      const settled: Settled<RailOutcome>[] = [];
      for (const m of members) settled.push(await settle(() => steps.decideAlone(deps, m)));
      return settled;
    }
    // Neither answer came in time: deciding again could decide twice, answering could give an
    // answer that was never committed. A retry with the same Idempotency-Key gets the stored one.
    if (outcome === 'unknown') return members.map(() => ({ ok: false, error: inDoubt() }));
  }
  afterCommit?.();
  deps.onBatch?.(members.length);
  deps.onBatchPhases?.(clock.phases);
  return decided!.settled;
}

/** The phases of a batch, as `decision_batch_phase_seconds` labels them (benches read them by these names). */
export const BATCH_PHASES = ['connect', 'lock', 'read', 'decide', 'write', 'commit'] as const;
export type BatchPhase = (typeof BATCH_PHASES)[number];

/** Where a batch's time goes, phase by phase (the `decision_batch_phase_seconds` metric). */
class PhaseClock {
  readonly phases = Object.fromEntries(BATCH_PHASES.map((p) => [p, 0])) as Record<BatchPhase, number>;
  private last = performance.now();

  /** The time since the last mark ends `phase`. */
  mark(phase: BatchPhase): void {
    const now = performance.now();
    this.phases[phase] += (now - this.last) / 1000;
    this.last = now;
  }
}

const inDoubt = () => new AppError('service_unavailable', 'The database did not say whether this decision was committed; retry shortly (with the same Idempotency-Key, a committed decision is replayed).');

async function settle<T>(f: () => Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await f() };
  } catch (error) {
    return { ok: false, error };
  }
}

async function decideInTransaction(deps: AuthorizationDeps, trx: DbOrTrx, members: BatchMember[], steps: DecisionSteps, clock?: PhaseClock) {
  const named = new Map(members.map((m) => [`${m.input.agent_id}\0${m.caller.accountId}\0${m.caller.livemode}`, { id: m.input.agent_id, accountId: m.caller.accountId, livemode: m.caller.livemode }]));
  const { agents: locked, txid } = await lockAgentsWithPolicies(trx, [...named.values()]);
  clock?.mark('lock');
  // One clock for every member, also one decided on the locked path: the velocity and duplicate
  // rules of later members then see its decision inside their windows.
  const now = deps.now?.() ?? new Date();
  // A rail's request found late when the batch writes is left out, and the batch must then stand
  // as if it had never joined (what it released or spent in memory was seen by later members): the
  // pass is undone and run again without it. Only a batch with a rail's request can lose one.
  const droppable = members.some((m) => m.rail);
  const late = new Map<number, unknown>();
  for (;;) {
    if (droppable) await batchPass.set(trx);
    const pass = await decidePass(deps, trx, members, steps, new Map(locked), now, late, clock);
    if (pass.dropped.length === 0) {
      if (droppable) await batchPass.release(trx);
      return { settled: pass.settled, txid };
    }
    await batchPass.rollback(trx);
    for (const [index, error] of pass.dropped) late.set(index, error);
  }
}

type LockedAgents = Awaited<ReturnType<typeof lockAgentsWithPolicies>>['agents'];

/**
 * One pass over the batch under its agent locks: each member decided in memory against what the
 * members before it did, and the rows written. Members in `excluded` (dropped by an earlier pass) are
 * settled with their error and take no part. Returns the members the write found late: if any,
 * the caller undoes the pass.
 */
async function decidePass(
  deps: AuthorizationDeps,
  trx: DbOrTrx,
  members: BatchMember[],
  steps: DecisionSteps,
  locked: LockedAgents,
  now: Date,
  excluded: ReadonlyMap<number, unknown>,
  clock?: PhaseClock,
): Promise<{ settled: Settled<RailOutcome>[]; dropped: [number, unknown][] }> {
  const periods = periodsOf(now);
  const spends = await readSpends(trx, [...locked.keys()], periods);
  const matcher = await RailMatcher.read(trx, members, now);
  clock?.mark('read');
  const pending = new PendingWrites();
  const settled: Settled<RailOutcome>[] = Array.from({ length: members.length });
  const dropped: [number, unknown][] = [];
  /** Writes what is pending; a rail's request found late by then is noted, and the pass undone. */
  const flush = async () => {
    for (const [index, error] of await pending.flush(trx)) {
      settled[index] = { ok: false, error };
      dropped.push([index, error]);
    }
    return dropped.length === 0;
  };
  for (const [index, m] of members.entries()) {
    if (excluded.has(index)) {
      settled[index] = { ok: false, error: excluded.get(index) };
      continue;
    }
    const { caller, input } = m;
    const found = locked.get(input.agent_id);
    // Another account's or mode's agent is no agent of this caller's (nor read, nor locked).
    const state = found && found.agent.account_id === caller.accountId && found.agent.livemode === caller.livemode ? { ...found, spend: spends.get(found.agent.id)! } : undefined;
    if (!state) {
      settled[index] = { ok: false, error: notFound('agent', 'agent_id') };
      continue;
    }
    // A rail's request whose answer is already given another way (past its deadline) is dropped here.
    const late = m.rail && lateError(m.rail);
    if (late) {
      settled[index] = { ok: false, error: late };
      continue;
    }
    if (state.policy?.auto_freeze || (m.idem && !m.idem.stored)) {
      // More than writing rows (tipping auto-freeze; a stored response written by its own query):
      // the one-by-one locked path, after the rows before it, in a savepoint so that its failure is its own.
      if (!(await flush())) return { settled, dropped };
      await savepoint.set(trx);
      const outcome = await settle(() => steps.decideLocked(deps, trx, caller, input, m.idem, m.rail, now));
      if (outcome.ok) {
        await savepoint.release(trx);
        const { agents: again } = await lockAgentsWithPolicies(trx, [{ id: state.agent.id, accountId: caller.accountId, livemode: caller.livemode }]);
        const agent = again.get(state.agent.id)!;
        locked.set(state.agent.id, agent);
        spends.set(state.agent.id, (await readSpends(trx, [state.agent.id], periods)).get(state.agent.id)!);
        // What rule 1 may take of this agent is read again when next asked.
        matcher.forget(state.agent.id);
      } else {
        await savepoint.rollback(trx);
      }
      settled[index] = outcome;
      continue;
    }
    const rail = m.rail && { request: m.rail, actor: railActor(m.rail.ref) };
    if (rail) {
      // Rule 1, in memory: the approval the locked path would take, given what this batch took and approved before.
      const match = pickCovering(await matcher.candidates(trx, index, state.agent.id, input, now), state, input);
      if (match) {
        matcher.take(match.id);
        // Released where the approval counted: the batch's state knows only this month and day.
        const released = Number(match.amount) - input.amount;
        if (match.spend_month === periods.month) state.spend.month.approved -= released;
        if (match.spend_day === periods.day) state.spend.day.approved -= released;
        const request = rail.request;
        // Its records are made when written, from the approval's row (read then, with the batch's others).
        const take: PendingTake = {
          id: match.id,
          row: match.row,
          amount: input.amount,
          actor: rail.actor,
          now,
          done: (captured) => {
            const outcome: RailOutcome = { kind: 'matched', decision: toDecisionView(captured) };
            settled[index] = { ok: true, value: outcome };
            return request.answerRow(outcome);
          },
        };
        pending.add(index, { agentId: state.agent.id, rail: request, take });
        continue;
      }
    }
    // Velocity and duplicate rules read earlier decisions: this agent's are written first.
    if ((state.policy?.velocity_limits?.length || state.policy?.duplicate_window_seconds) && pending.has(state.agent.id) && !(await flush())) return { settled, dropped };
    const via = rail && { actor: rail.actor, rail: rail.request.ref, incrementOf: rail.request.incrementOf };
    const decided = await settle(() => steps.prepare(deps, trx, caller, input, m.idem, state, now, via));
    if (!decided.ok) {
      settled[index] = decided;
      continue;
    }
    const { record } = decided.value;
    let view = decided.value.view;
    let capture: PendingCapture | undefined;
    if (rail && view.decision === 'approved') {
      // A rail's new approval is captured at once: its row is written captured, beside both records.
      const captured = capturedRow(record.row, input.amount, now);
      capture = { row: captured, ...settlementRecords(record.row, captured, 'captured', rail.actor, now, input.amount), periods: record.periods };
      view = toDecisionView(captured);
    } else if (view.decision === 'approved') {
      matcher.approved(state.agent.id, record.row);
    }
    const outcome: RailOutcome = { kind: 'decided', decision: view };
    pending.add(index, { agentId: state.agent.id, rail: rail?.request, decision: record, capture, stored: m.idem?.stored?.(200, JSON.stringify(view)), answer: rail?.request.answerRow(outcome) });
    const { spend } = record;
    if (spend) {
      for (const p of [state.spend.month, state.spend.day]) {
        p.approved += spend.approved;
        p.reserved += spend.reserved;
      }
    }
    settled[index] = { ok: true, value: outcome };
  }
  clock?.mark('decide');
  await flush();
  clock?.mark('write');
  return { settled, dropped };
}
