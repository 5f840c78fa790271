import type { Db } from '../db/database.js';
import { sealedDecision } from '../audit/decision-terms.js';
import { findDecisionById } from '../decisions/decisions.repository.js';
import type { Logger } from '../kernel/logger.js';
import { findHoldNames } from '../approvals/approvals.repository.js';
import { fanOutEvent } from '../webhooks/webhooks.service.js';
import { eventsWithSubscribers, findDelivery } from '../webhooks/webhooks.repository.js';
import {
  claimDueOutbox,
  deadLetterOutbox,
  markOutboxRowsDone,
  OUTBOX_LEASE_MS,
  outboxLag,
  releaseOutbox,
  rescheduleOutbox,
  type OutboxRow,
  type OutboxTopic,
} from '../outbox/outbox.repository.js';
import { EngineUnavailable } from '../approvals/hold-engine.js';
import type { WorkflowGateway } from './gateway.js';
import type { EngineMonitor } from './engine-status.js';

export const RELAY_POLL_INTERVAL_MS = 500;
export const RELAY_BATCH_SIZE = 100;
/**
 * Rows carried at once. A row holds a database connection only for each of its short queries, not
 * while it waits on the engine, so these share the pool with the activities' slots (ACTIVITY_SLOTS).
 */
export const RELAY_CONCURRENCY = 8;
export const RELAY_MAX_BACKOFF_MS = 60_000;
/** A batch stops starting rows after this long and hands the rest back (half the claim's lease). */
export const RELAY_BATCH_BUDGET_MS = OUTBOX_LEASE_MS / 2;
/** Failures of a row's own (not engine outages) before it is dead-lettered: about 10 minutes of backoff. */
export const OUTBOX_MAX_FAILURES = 10;
export const RELAY_TOPICS: OutboxTopic[] = ['held_decision', 'held_resolved', 'event', 'webhook_delivery'];

/** Exponential backoff with jitter: 1 s, 2 s, 4 s … capped at one minute. */
export function relayBackoffMs(attempts: number, random = Math.random): number {
  const base = Math.min(RELAY_MAX_BACKOFF_MS, 1_000 * 2 ** Math.min(attempts - 1, 16));
  return Math.round(base * (0.8 + 0.4 * random()));
}

/**
 * Carries committed outbox rows to the workflow engine. Starts are idempotent by workflow id, so
 * a row carried twice (crash after the start, before marking it done) changes nothing.
 */
export class OutboxRelay {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = true;

  constructor(
    private readonly deps: {
      db: Db;
      gateway: WorkflowGateway;
      log: Logger;
      pollIntervalMs?: number;
      /** Carry only this account's rows (tests sharing one database; an operator draining one account). */
      accountId?: string;
      /** Overrides OUTBOX_MAX_FAILURES. */
      maxFailures?: number;
      /** Told what the engine did; it logs the engine's state (the relay does not). */
      engine?: Pick<EngineMonitor, 'report'>;
    },
  ) {}

  /**
   * Processes one batch of due rows; returns how many were carried out. Rows are carried
   * RELAY_CONCURRENCY at once (each mostly waits on the engine or the database), except that the rows
   * of one reference (a hold's start, then its resolution) are carried in order, one after the
   * other. Events nobody subscribed to need no fan-out; the rows carried out are marked done together.
   */
  async tick(now = new Date()): Promise<number> {
    const rows = await claimDueOutbox(this.deps.db, RELAY_TOPICS, RELAY_BATCH_SIZE, now, this.deps.accountId);
    if (rows.length === 0) return 0;
    const started = Date.now();
    const done: { id: number; at: Date }[] = [];
    const events = rows.filter((r) => r.topic === 'event');
    const subscribed = await eventsWithSubscribers(this.deps.db, events.map((r) => r.ref_id));
    for (const r of events) if (!subscribed.has(r.ref_id)) done.push({ id: r.id, at: new Date() });
    const lanes = new Map<string, OutboxRow[]>();
    for (const r of rows) if (r.topic !== 'event' || subscribed.has(r.ref_id)) lanes.set(r.ref_id, [...(lanes.get(r.ref_id) ?? []), r]);

    let outage: EngineUnavailable | undefined;
    /** Rows not tried: handed back (the batch ran out of time) or backed off (the engine is down). */
    const untried: OutboxRow[] = [];
    const carryLane = async (lane: OutboxRow[]) => {
      for (const [i, row] of lane.entries()) {
        // Well inside the lease: past it another relay could claim the rest and start them too.
        if (outage || Date.now() - started > RELAY_BATCH_BUDGET_MS) return void untried.push(...lane.slice(i));
        try {
          const usedEngine = await this.carry(row);
          done.push({ id: row.id, at: new Date() });
          // Only a call the engine answered says it is up: fan-out rows are database work.
          if (usedEngine) this.deps.engine?.report('up');
        } catch (err) {
          if (err instanceof EngineUnavailable) {
            // The engine is down for every row alike: the rest are backed off rather than tried.
            outage ??= err;
            return void untried.push(...lane.slice(i));
          }
          await this.fail(row, (err as Error).message);
        }
      }
    };
    const queue = [...lanes.values()];
    const results = await Promise.allSettled(
      Array.from({ length: Math.min(RELAY_CONCURRENCY, queue.length) }, async () => {
        for (let lane = queue.shift(); lane; lane = queue.shift()) await carryLane(lane);
      }),
    );
    // Marked even when a lane failed: what was carried out stays carried out.
    await markOutboxRowsDone(this.deps.db, done);
    if (outage) {
      for (const r of untried.sort((a, b) => a.id - b.id)) await this.reschedule(r, outage.message);
      this.deps.engine?.report('down', outage);
    } else if (untried.length) {
      await releaseOutbox(this.deps.db, untried.map((r) => r.id), new Date());
    }
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    return done.length;
  }

  /** Backs a row off for its next attempt; `failures` counts toward dead-lettering (outages do not). */
  private async reschedule(row: OutboxRow, error: string, failures?: number): Promise<void> {
    const attempts = row.attempts + 1;
    await rescheduleOutbox(this.deps.db, row.id, attempts, new Date(Date.now() + relayBackoffMs(attempts)), error, failures);
  }

  /** A failure of the row's own: retried with backoff, dead-lettered after the last allowed one. */
  private async fail(row: OutboxRow, error: string): Promise<void> {
    const failures = row.failures + 1;
    const max = this.deps.maxFailures ?? OUTBOX_MAX_FAILURES;
    if (failures >= max) {
      await deadLetterOutbox(this.deps.db, row.id, failures, error, new Date());
      this.deps.log.error(
        { outbox_id: row.id, topic: row.topic, ref_id: row.ref_id, failures, err: error },
        `outbox row dead-lettered after ${failures} failures: it is no longer retried (see docs/operations.md, "Dead letters")`,
      );
      return;
    }
    await this.reschedule(row, error, failures);
    this.deps.log.warn({ err: error, outbox_id: row.id, topic: row.topic, failures }, 'outbox row failed; will retry');
  }

  /** Carries one row; true when that needed the engine (and so shows it answers). */
  private async carry(row: OutboxRow): Promise<boolean> {
    if (row.topic === 'held_decision') {
      const stored = await findDecisionById(this.deps.db, row.ref_id);
      // Resolved before its workflow existed (agent frozen, or expired by the database meanwhile): nothing to start.
      if (!stored || stored.status !== 'pending') return false;
      // The workflow's quorum comes from the decision's sealed record (DECISIONS §7), never the row.
      const { row: decision } = await sealedDecision(this.deps.db, stored);
      // The names are read at each attempt; the start is idempotent by workflow id whatever they are.
      await this.deps.gateway.startHeld(decision, await findHoldNames(this.deps.db, decision));
      return true;
    }
    if (row.topic === 'held_resolved') {
      await this.deps.gateway.notifyResolved(row.ref_id);
      return true;
    }
    if (row.topic === 'event') {
      // Fan-out is database work only; each delivery gets its own outbox row for its workflow.
      await fanOutEvent(this.deps.db, row.ref_id);
      return false;
    }
    if (row.topic === 'webhook_delivery') {
      const delivery = await findDelivery(this.deps.db, row.ref_id);
      if (!delivery || delivery.status !== 'pending') return false;
      await this.deps.gateway.startWebhookDelivery(delivery);
      return true;
    }
    throw new Error(`unknown outbox topic ${JSON.stringify(row.topic)}`);
  }

  lag(now = new Date()) {
    return outboxLag(this.deps.db, now, RELAY_TOPICS, this.deps.accountId);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const loop = async () => {
      if (this.stopped) return;
      this.running = (async () => {
        try {
          // Drain while there is work; then wait for the next poll.
          while (!this.stopped && (await this.tick()) === RELAY_BATCH_SIZE);
        } catch (err) {
          this.deps.log.warn({ err: (err as Error).message }, 'outbox relay could not read the outbox; retrying');
        }
      })();
      await this.running;
      if (!this.stopped) this.timer = setTimeout(() => void loop(), this.deps.pollIntervalMs ?? RELAY_POLL_INTERVAL_MS);
    };
    void loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
