/**
 * A group commit batch's memory (batch-decide.ts): the approvals rule 1 may match, read once for
 * the whole batch, and the rows its members' decisions and captures write, flushed as one
 * statement per table, with one counter row per agent and period and one usage row per account.
 */

import type { DbOrTrx } from '../db/database.js';
import { auditJsonValues, auditRecord, type NewAuditRow } from '../audit/audit.repository.js';
import { capturedRow, settlementRecords } from '../capture/capture.service.js';
import { MAX_MATCH_CANDIDATES } from './authorization.repository.js';
import { executeTogether } from '../db/statements.js';
import type { StoredResponse } from '../kernel/idempotency.js';
import type { DecisionRow } from '../decisions/decision.view.js';
import { outboxRows } from '../outbox/outbox.repository.js';
import { eventRecord } from '../events/events.repository.js';
import { USAGE_COUNTER_SHARDS } from '../usage/usage.repository.js';
import { monthOf } from '../usage/month.js';
import { addChecks, addSpend, captureTaken, lowerSpend, completeKeys, countDecisions, insertJsonRows, readDecisionsById, readRailCandidates, type RailCandidate } from './batch.repository.js';
import { railActor, type RailRequest } from './rail-request.js';
import type { BatchMember, DecisionRecord } from './batch-decide.js';

/** A capture a batch writes: the row as captured, with its release, audit record and event. */
export type PendingCapture = ReturnType<typeof settlementRecords> & { row: DecisionRow; periods: { month: string; day: string } };

/** An approval rule 1 took, captured when the batch writes: its row is read then (unless this batch made it). */
export interface PendingTake {
  id: string;
  row?: DecisionRow | undefined;
  amount: number;
  actor: RailActor;
  now: Date;
  /** Settles the member with its capture; returns the rail's record of its answer. */
  done(captured: DecisionRow): Record<string, unknown>;
}
type RailActor = ReturnType<typeof railActor>;

/** What one member writes. */
export interface PendingEntry {
  agentId: string;
  /** A rail's request: written only if still in time when its rows are written. */
  rail?: RailRequest | undefined;
  decision?: DecisionRecord | undefined;
  /** An approval captured: the new decision's own (its row is written captured) or one taken by rule 1. */
  capture?: PendingCapture | undefined;
  take?: PendingTake | undefined;
  stored?: StoredResponse | undefined;
  /** The rail's record of its answer (a row of `rail_authorizations`). */
  answer?: Record<string, unknown> | undefined;
}

/**
 * Rule 1 for a batch (docs/rails/stripe-issuing.md): the approvals each rail request could take,
 * read for all of them by one statement under the batch's agent locks, then kept in step with
 * the batch in memory: approvals its earlier members took are gone, those they made are added.
 */
type Candidate = RailCandidate & { row?: DecisionRow | undefined };

export class RailMatcher {
  private readonly taken = new Set<string>();
  private readonly added = new Map<string, Candidate[]>();
  private readonly stale = new Set<string>();

  private constructor(
    private readonly read: Map<number, Candidate[]>,
    private readonly limit: number,
  ) {}

  static async read(trx: DbOrTrx, members: readonly BatchMember[], now: Date): Promise<RailMatcher> {
    const rails = [...members.entries()].filter(([, m]) => m.rail);
    // Room for every approval the batch itself could take before a request looks.
    const limit = MAX_MATCH_CANDIDATES + rails.length;
    const rows = await readRailCandidates(
      trx,
      rails.map(([, m]) => ({ agentId: m.input.agent_id, currency: m.input.currency, amount: m.input.amount })),
      now,
      limit,
    );
    return new RailMatcher(new Map(rails.map(([index], i) => [index, rows[i]!])), limit);
  }

  /** Ordered as `coveringApprovals` orders them; approvals made in this batch come after older equals. */
  async candidates(trx: DbOrTrx, index: number, agentId: string, r: { currency: string; amount: number }, now: Date): Promise<Candidate[]> {
    if (this.stale.has(agentId)) {
      this.read.set(index, (await readRailCandidates(trx, [{ agentId, currency: r.currency, amount: r.amount }], now, this.limit))[0]!);
    }
    const made = (this.added.get(agentId) ?? []).filter((a) => a.currency === r.currency && Number(a.amount) >= r.amount && (a.capture_expires_at === null || a.capture_expires_at > now));
    const all = [...(this.read.get(index) ?? []), ...made].filter((a) => !this.taken.has(a.id));
    all.sort((a, b) => Number(a.amount) - Number(b.amount) || a.created_at.getTime() - b.created_at.getTime());
    return all.slice(0, MAX_MATCH_CANDIDATES);
  }

  take(id: string): void {
    this.taken.add(id);
  }

  approved(agentId: string, row: DecisionRow): void {
    if (this.stale.has(agentId)) return;
    this.added.set(agentId, [...(this.added.get(agentId) ?? []), { ...row, row }]);
  }

  /** Written by statements of their own (the locked path): read the agent's approvals again. */
  forget(agentId: string): void {
    this.stale.add(agentId);
    this.added.delete(agentId);
  }
}

/** Decisions decided in memory and not yet written, and the rows they write. */
export class PendingWrites {
  private entries = new Map<number, PendingEntry>();
  private perAgent = new Set<string>();

  add(index: number, entry: PendingEntry): void {
    this.entries.set(index, entry);
    this.perAgent.add(entry.agentId);
  }

  has(agentId: string): boolean {
    return this.perAgent.has(agentId);
  }

  /**
   * Writes every pending member's rows, one statement per table. A rail's request past its
   * deadline is left out (its answer is given another way); returned with its error.
   */
  async flush(trx: DbOrTrx): Promise<[number, unknown][]> {
    const dropped: [number, unknown][] = [];
    const kept: PendingEntry[] = [];
    for (const [index, entry] of this.entries) {
      const late = entry.rail && lateError(entry.rail);
      if (late) dropped.push([index, late]);
      else kept.push(entry);
    }
    this.entries = new Map();
    this.perAgent = new Set();
    if (kept.length === 0) return dropped;
    // Rule 1's takes: their approvals' rows, read by one statement, become captures.
    const takes = kept.filter((e) => e.take);
    if (takes.length > 0) {
      const unread = takes.filter((e) => !e.take!.row).map((e) => e.take!.id);
      const read = unread.length > 0 ? await readDecisionsById(trx, unread) : new Map<string, DecisionRow>();
      for (const e of takes) {
        const { id, row = read.get(id), amount, actor, now } = e.take!;
        if (!row) throw new Error(`approval ${id} taken by rule 1 is gone`);
        const captured = capturedRow(row, amount, now);
        e.capture = { row: captured, ...settlementRecords(row, captured, 'captured', actor, now, amount), periods: { month: row.spend_month, day: row.spend_day } };
        e.answer = e.take!.done(captured);
      }
    }
    // A capture of an approval written by this same flush is written into its row.
    const inserted = new Map(kept.flatMap((e) => (e.decision ? [[e.decision.row.id, e.decision.row] as const] : [])));
    for (const e of kept) if (e.capture && inserted.has(e.capture.row.id)) inserted.set(e.capture.row.id, e.capture.row);
    const updates = kept.flatMap((e) => (e.capture && !inserted.has(e.capture.row.id) ? [e.capture.row] : []));
    const audits = kept.flatMap((e) => [e.decision?.audit, e.capture && auditRecord(e.capture.audit)].filter((a): a is NewAuditRow => a !== undefined));
    const captureEvents = new Map(kept.flatMap((e) => (e.capture ? [[e, { ...eventRecord({ ...e.capture.event, data: {} }), data: e.capture.event.data }] as const] : [])));
    const events = kept.flatMap((e) => [e.decision?.event, captureEvents.get(e)].filter((x) => x !== undefined));
    const outbox = kept.flatMap((e) => [
      ...(e.decision ? outboxRows(e.decision.outbox, e.decision.row.account_id, e.decision.row.created_at) : []),
      ...(captureEvents.has(e) ? outboxRows([{ topic: 'event', refId: captureEvents.get(e)!.id }], e.capture!.row.account_id, captureEvents.get(e)!.created_at) : []),
    ]);
    const decisions = kept.flatMap((e) => (e.decision ? [inserted.get(e.decision.row.id)!] : []));
    const spend = spendRows(kept);
    const counts = new Map<string, number>();
    for (const e of kept) if (e.decision) counts.set(e.agentId, (counts.get(e.agentId) ?? 0) + 1);
    await executeTogether(
      trx,
      [
        countDecisions(counts),
        insertJsonRows('decisions', decisions),
        // A row may be changed once per statement: each agent and period's net change goes to one
        // of the two (a net release lowers a row its approval's decision created).
        addSpend(spend.filter((r) => r.approved >= 0 && r.reserved >= 0)),
        lowerSpend(spend.filter((r) => r.approved < 0 || r.reserved < 0)),
        insertJsonRows(
          'audit_records',
          audits.map((a) => auditJsonValues(a)),
        ),
        insertJsonRows('events', events),
        insertJsonRows('outbox', outbox),
        addChecks(checkRows(kept.flatMap((e) => (e.decision ? [e.decision] : [])))),
        completeKeys(kept.flatMap((e) => (e.stored ? [e.stored] : []))),
        insertJsonRows(
          'rail_authorizations',
          kept.flatMap((e) => (e.answer ? [e.answer] : [])),
        ),
      ],
      { precondition: captureTaken(updates), preconditionRows: updates.length },
    );
    return dropped;
  }
}

/** One row per agent and period (a statement may change a row only once): decisions' spend, less what captures released. */
function spendRows(entries: readonly PendingEntry[]) {
  const rows = new Map<string, { agent_id: string; period: string; approved: number; reserved: number }>();
  const add = (agentId: string, period: string, approved: number, reserved: number) => {
    const key = `${agentId}\0${period}`;
    const r = rows.get(key) ?? { agent_id: agentId, period, approved: 0, reserved: 0 };
    r.approved += approved;
    r.reserved += reserved;
    rows.set(key, r);
  };
  for (const { decision, capture } of entries) {
    if (decision?.spend) for (const period of [decision.periods.month, decision.periods.day]) add(decision.row.agent_id, period, decision.spend.approved, decision.spend.reserved);
    if (capture && capture.released > 0) for (const period of [capture.periods.month, capture.periods.day]) add(capture.row.agent_id, period, -capture.released, 0);
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

/** A rail request's deadline error, when its time is up. */
export function lateError(rail: RailRequest): unknown {
  try {
    rail.checkInTime();
    return undefined;
  } catch (error) {
    return error;
  }
}
