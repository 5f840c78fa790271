import type { AgentsTable, DbOrTrx, Selectable } from '../db/database.js';
import { auditJsonValues, type NewAuditRow } from '../audit/audit.repository.js';
import { executeTogether } from '../db/statements.js';
import type { Caller } from '../kernel/caller.js';
import { AppError, notFound } from '../kernel/errors.js';
import { commitOutcome } from '../db/commit-outcome.js';
import type { IdempotencyHandle, StoredResponse } from '../kernel/idempotency.js';
import type { DecisionRow, DecisionView } from '../decisions/decision.view.js';
import { periodsOf } from '../decisions/spend.repository.js';
import { outboxRows, type OutboxTopic } from '../outbox/outbox.repository.js';
import type { eventRecord } from '../events/events.repository.js';
import type { SpendState } from '../policies/evaluate.js';
import { USAGE_COUNTER_SHARDS } from '../usage/usage.repository.js';
import { monthOf } from '../usage/month.js';
import type { AuthorizationDeps } from './authorization.service.js';
import type { AuthorizeInput } from './authorize.schemas.js';
import type { BoundPolicy } from './authorization.repository.js';
import { addChecks, addSpend, completeKeys, countDecisions, insertJsonRows, lockAgentsWithPolicies, readSpends, savepoint } from './batch.repository.js';
import type { Settled } from './decision-batcher.js';
import type { RailOutcome, RailRequest } from './rail-request.js';

/** One request waiting in a batch. */
export interface BatchMember {
  caller: Caller;
  input: AuthorizeInput;
  idem: IdempotencyHandle<DbOrTrx> | undefined;
  rail: RailRequest | undefined;
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
  prepare(deps: AuthorizationDeps, db: DbOrTrx, caller: Caller, input: AuthorizeInput, idem: IdempotencyHandle<DbOrTrx> | undefined, state: AgentState | undefined, now: Date): Promise<{ view: DecisionView; record: DecisionRecord }>;
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
  // Alone, a request is cheaper on its own path (two statements, no lock to wait for).
  if (members.length === 1) {
    const alone = await settle(() => steps.decideAlone(deps, members[0]!));
    deps.onBatch?.(1);
    return [alone];
  }
  // Set once every statement ran: from then on, only the COMMIT can have failed.
  let decided: Awaited<ReturnType<typeof decideInTransaction>> | undefined;
  try {
    await deps.db.transaction().execute(async (trx) => {
      decided = await decideInTransaction(deps, trx, members, steps);
    });
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
  return decided!.settled;
}

const inDoubt = () => new AppError('service_unavailable', 'The database did not say whether this decision was committed; retry shortly (with the same Idempotency-Key, a committed decision is replayed).');

async function settle<T>(f: () => Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await f() };
  } catch (error) {
    return { ok: false, error };
  }
}

async function decideInTransaction(deps: AuthorizationDeps, trx: DbOrTrx, members: BatchMember[], steps: DecisionSteps) {
  const named = new Map(members.map((m) => [`${m.input.agent_id}\0${m.caller.accountId}\0${m.caller.livemode}`, { id: m.input.agent_id, accountId: m.caller.accountId, livemode: m.caller.livemode }]));
  const { agents: locked, txid } = await lockAgentsWithPolicies(trx, [...named.values()]);
  // One clock for every member, also one decided on the locked path: the velocity and duplicate
  // rules of later members then see its decision inside their windows.
  const now = deps.now?.() ?? new Date();
  const periods = periodsOf(now);
  const spends = await readSpends(trx, [...locked.keys()], periods);
  const pending = new PendingWrites();
  const settled: Settled<RailOutcome>[] = [];
  for (const m of members) {
    const { caller, input } = m;
    const found = locked.get(input.agent_id);
    // Another account's or mode's agent is no agent of this caller's (nor read, nor locked).
    const state = found && found.agent.account_id === caller.accountId && found.agent.livemode === caller.livemode ? { ...found, spend: spends.get(found.agent.id)! } : undefined;
    if (!state) {
      settled.push({ ok: false, error: notFound('agent', 'agent_id') });
      continue;
    }
    if (m.rail || state.policy?.auto_freeze || (m.idem && !m.idem.stored)) {
      // More than writing rows (tipping auto-freeze; a rail's match and capture, though rails are
      // not batched today): the one-by-one locked path, after the rows before it, in a savepoint so
      // that its failure is its own.
      await pending.flush(trx);
      await savepoint.set(trx);
      const outcome = await settle(() => steps.decideLocked(deps, trx, caller, input, m.idem, m.rail, now));
      if (outcome.ok) {
        await savepoint.release(trx);
        const { agents: again } = await lockAgentsWithPolicies(trx, [{ id: state.agent.id, accountId: caller.accountId, livemode: caller.livemode }]);
        const agent = again.get(state.agent.id)!;
        locked.set(state.agent.id, agent);
        spends.set(state.agent.id, (await readSpends(trx, [state.agent.id], periods)).get(state.agent.id)!);
      } else {
        await savepoint.rollback(trx);
      }
      settled.push(outcome);
      continue;
    }
    // Velocity and duplicate rules read earlier decisions: this agent's are written first.
    if ((state.policy?.velocity_limits?.length || state.policy?.duplicate_window_seconds) && pending.has(state.agent.id)) await pending.flush(trx);
    const decided = await settle(() => steps.prepare(deps, trx, caller, input, m.idem, state, now));
    if (!decided.ok) {
      settled.push(decided);
      continue;
    }
    pending.add(state.agent.id, decided.value.record, m.idem?.stored?.(200, JSON.stringify(decided.value.view)));
    const { spend } = decided.value.record;
    if (spend) {
      for (const p of [state.spend.month, state.spend.day]) {
        p.approved += spend.approved;
        p.reserved += spend.reserved;
      }
    }
    settled.push({ ok: true, value: { kind: 'decided', decision: decided.value.view } });
  }
  await pending.flush(trx);
  return { settled, txid };
}

/** Decisions decided in memory and not yet written, and the rows they write. */
class PendingWrites {
  private records: DecisionRecord[] = [];
  private stored: StoredResponse[] = [];
  private perAgent = new Map<string, number>();

  add(agentId: string, record: DecisionRecord, stored: StoredResponse | undefined): void {
    this.records.push(record);
    if (stored) this.stored.push(stored);
    this.perAgent.set(agentId, (this.perAgent.get(agentId) ?? 0) + 1);
  }

  has(agentId: string): boolean {
    return this.perAgent.has(agentId);
  }

  async flush(trx: DbOrTrx): Promise<void> {
    if (this.records.length === 0) return;
    const { records } = this;
    await executeTogether(trx, [
      countDecisions(this.perAgent),
      insertJsonRows(
        'decisions',
        records.map((r) => r.row),
      ),
      addSpend(spendRows(records)),
      insertJsonRows(
        'audit_records',
        records.map((r) => auditJsonValues(r.audit)),
      ),
      insertJsonRows(
        'events',
        records.map((r) => r.event),
      ),
      insertJsonRows(
        'outbox',
        records.flatMap((r) => outboxRows(r.outbox, r.row.account_id, r.row.created_at)),
      ),
      addChecks(checkRows(records)),
      completeKeys(this.stored),
    ]);
    this.records = [];
    this.stored = [];
    this.perAgent = new Map();
  }
}

/** One row per agent and period (a statement may change a row only once). */
function spendRows(records: readonly DecisionRecord[]) {
  const rows = new Map<string, { agent_id: string; period: string; approved: number; reserved: number }>();
  for (const { row, spend, periods } of records) {
    if (!spend) continue;
    for (const period of [periods.month, periods.day]) {
      const key = `${row.agent_id}\0${period}`;
      const r = rows.get(key) ?? { agent_id: row.agent_id, period, approved: 0, reserved: 0 };
      r.approved += spend.approved;
      r.reserved += spend.reserved;
      rows.set(key, r);
    }
  }
  return [...rows.values()];
}

/** One row per account and month, on a shard of its own per batch (usage.repository.ts). */
function checkRows(records: readonly DecisionRecord[]) {
  const rows = new Map<string, { account_id: string; month: string; shard: number; checks: number }>();
  for (const { row, counted } of records) {
    if (!counted) continue;
    const month = monthOf(row.created_at);
    const key = `${row.account_id}\0${month}`;
    const r = rows.get(key) ?? { account_id: row.account_id, month, shard: Math.floor(Math.random() * USAGE_COUNTER_SHARDS), checks: 0 };
    r.checks += 1;
    rows.set(key, r);
  }
  return [...rows.values()];
}
