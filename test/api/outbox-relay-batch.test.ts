import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EngineUnavailable } from '../../src/approvals/hold-engine.js';
import type { DecisionRow } from '../../src/decisions/decision.view.js';
import { createLogger } from '../../src/kernel/logger.js';
import { enqueueOutbox } from '../../src/outbox/outbox.repository.js';
import { EngineMonitor } from '../../src/temporal/engine-status.js';
import { OutboxRelay, RELAY_CONCURRENCY } from '../../src/temporal/outbox-relay.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';
import { FakeInlineGateway } from '../support/fake-gateway.js';

// How the relay carries a batch under load (bench/held.ts): several rows at once, a reference's
// rows in order, events nobody subscribed to without a fan-out each.
let ctx: TestContext;
const queries: string[] = [];
const log = createLogger('silent');
const later = () => new Date(Date.now() + 600_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  ctx = await createTestContext({ ownDatabase: true, allowPrivateUrls: true, onQuery: (q) => void queries.push(q) });
});
afterAll(() => ctx?.close());

/** `n` held decisions of one agent of `acct`. */
async function holds(acct: TestAccount, n: number): Promise<string[]> {
  const p = await acct.test.post('/v1/policies', policyBody({ require_approval_above: 100 }));
  const agentId = (await acct.test.post('/v1/agents', { name: 'held', policy_id: p.body.id })).body.id;
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 500, currency: 'USD', vendor: 'shop.example' })).body.decision_id);
  return ids;
}

const heldRows = (ids: string[]) => ctx.database.db.selectFrom('outbox').selectAll().where('topic', '=', 'held_decision').where('ref_id', 'in', ids).orderBy('id').execute();

/**
 * FAKE engine whose starts take a while, counting how many are in flight at once, and logging what it
 * was asked in order. With `together`, a start waits (at most 10 s) until that many are in flight
 * before its own delay, so how many the relay runs at once does not depend on how fast the machine
 * reads each row before its start.
 */
class SlowGateway extends FakeInlineGateway {
  inFlight = 0;
  maxInFlight = 0;
  readonly calls: string[] = [];
  private readonly gathered: Promise<void>;
  private gather = () => {};
  constructor(
    private readonly startMs: (decisionId: string) => number,
    private readonly together = 0,
  ) {
    super({ db: ctx.database.db, signer: ctx.signer });
    this.gathered = new Promise((resolve) => (this.gather = resolve));
  }
  override async startHeld(decision: DecisionRow) {
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    if (this.inFlight >= this.together) this.gather();
    else await Promise.race([this.gathered, new Promise((r) => setTimeout(r, 10_000).unref())]);
    await sleep(this.startMs(decision.id));
    this.inFlight -= 1;
    this.calls.push(`start ${decision.id}`);
    return super.startHeld(decision);
  }
  override async notifyResolved(decisionId: string) {
    this.calls.push(`notify ${decisionId}`);
    return super.notifyResolved(decisionId);
  }
}

describe('outbox relay batches', () => {
  test("starts a batch's holds several at once, yet tells a hold's workflow of its resolution only once its start has answered", async () => {
    const acct = await ctx.account('growth');
    const ids = await holds(acct, 12);
    // The same hold's resolution, in the same batch as its start (an agent frozen at once writes one).
    await enqueueOutbox(ctx.database.db, 'held_resolved', ids[0]!, acct.id);
    // Its start the slowest of the batch: the other rows are carried meanwhile, the resolution not.
    const gateway = new SlowGateway((id) => (id === ids[0] ? 300 : 30), Math.min(RELAY_CONCURRENCY, ids.length));
    const relay = new OutboxRelay({ accountId: acct.id, db: ctx.database.db, gateway, log });
    await relay.tick(later());
    expect(gateway.maxInFlight).toBe(Math.min(RELAY_CONCURRENCY, ids.length));
    expect(gateway.started.sort()).toEqual([...ids].sort());
    expect(gateway.calls.indexOf(`notify ${ids[0]}`)).toBeGreaterThan(gateway.calls.indexOf(`start ${ids[0]}`));
    const rows = await heldRows(ids);
    expect(rows.every((r) => r.processed_at !== null && r.last_error === null)).toBe(true);
    expect((await relay.lag()).pending).toBe(0);
  });

  test('the engine going down in the middle of a batch: what it started is done, every other row backed off with its attempt counted, none lost, and the engine reported down once', async () => {
    const acct = await ctx.account('growth');
    const ids = await holds(acct, 6);
    const gateway = new SlowGateway(() => 20);
    let calls = 0;
    const start = gateway.startHeld.bind(gateway);
    gateway.startHeld = async (decision) => {
      calls += 1;
      if (calls > 2) {
        await sleep(10);
        throw new EngineUnavailable('workflow engine at test is unreachable');
      }
      return start(decision);
    };
    const reports: string[] = [];
    const engine = new EngineMonitor({ address: 'test', probe: async () => {}, log });
    const relay = new OutboxRelay({ accountId: acct.id, db: ctx.database.db, gateway, log, engine: {
        report: (state, err) => {
          reports.push(state);
          engine.report(state, err);
        },
      },
    });
    const before = Date.now();
    expect(await relay.tick(later())).toBeGreaterThanOrEqual(2);
    const rows = await heldRows(ids);
    const done = rows.filter((r) => r.processed_at !== null);
    const backedOff = rows.filter((r) => r.processed_at === null);
    expect(done.map((r) => r.ref_id).sort()).toEqual([...gateway.started].sort());
    expect(done).toHaveLength(2);
    expect(backedOff).toHaveLength(4);
    for (const r of backedOff) {
      expect(r).toMatchObject({ attempts: 1, failures: 0, dead_lettered_at: null });
      expect(r.last_error).toMatch(/unreachable/);
      expect(r.next_attempt_at.getTime()).toBeGreaterThan(before);
    }
    expect(reports.filter((s) => s === 'down')).toHaveLength(1);
  });

  test('events nobody subscribed to are done without a fan-out each; an event an endpoint subscribed to gets its delivery', async () => {
    const quiet = await ctx.account('growth');
    const listening = await ctx.account('growth');
    // Subscribed elsewhere, or disabled: neither makes an authorization's event worth a fan-out.
    await quiet.test.post('/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', events: ['agent.frozen'] });
    const disabled = (await quiet.test.post('/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', events: ['*'] })).body;
    await quiet.test.patch(`/v1/webhook-endpoints/${disabled.id}`, { enabled: false });
    const endpoint = (await listening.test.post('/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', events: ['*'] })).body;
    for (const acct of [quiet, listening]) {
      const policy = (await acct.test.post('/v1/policies', { name: 'events', budget_monthly: 100_000, budget_single_max: 10_000 })).body;
      const agent = (await acct.test.post('/v1/agents', { name: 'events', policy_id: policy.id })).body.id;
      for (let i = 0; i < 5; i++) expect((await acct.test.post('/v1/authorize', { agent_id: agent, amount: 100, currency: 'USD', vendor: 'ok.example' })).body.decision).toBe('approved');
    }
    const gateway = new FakeInlineGateway({ db: ctx.database.db, signer: ctx.signer });

    queries.length = 0;
    expect(await new OutboxRelay({ accountId: quiet.id, db: ctx.database.db, gateway, log }).tick(later())).toBe(5);
    // fanOutEvent reads each event by id: not once here.
    expect(queries.filter((q) => /from "events"/i.test(q))).toEqual([]);
    const quietEvents = await ctx.database.db.selectFrom('outbox').selectAll().where('account_id', '=', quiet.id).where('topic', '=', 'event').execute();
    expect(quietEvents.every((r) => r.processed_at !== null)).toBe(true);
    expect(await ctx.database.db.selectFrom('webhook_deliveries').select('id').where('account_id', '=', quiet.id).execute()).toEqual([]);

    await new OutboxRelay({ accountId: listening.id, db: ctx.database.db, gateway, log }).tick(later());
    const deliveries = await ctx.database.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpoint.id).execute();
    expect(deliveries).toHaveLength(5);
  });
});
