import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createLogger } from '../../src/kernel/logger.js';
import { TemporalGateway } from '../../src/temporal/gateway.js';
import { OutboxRelay, relayBackoffMs } from '../../src/temporal/outbox-relay.js';
import { EngineMonitor } from '../../src/temporal/engine-status.js';
import { createTestContext, policyBody, UNREACHABLE_ENGINE_PORT, type TestAccount, type TestContext } from '../support/context.js';
import { FakeInlineGateway } from '../support/fake-gateway.js';

let ctx: TestContext;
let acct: TestAccount;
const log = createLogger('silent');

beforeAll(async () => {
  ctx = await createTestContext({ ownDatabase: true });
  acct = await ctx.account('growth');
});
afterAll(() => ctx?.close());

async function holdOne(): Promise<string> {
  const p = await acct.test.post('/v1/policies', policyBody({ require_approval_above: 100 }));
  const agentId = (await acct.test.post('/v1/agents', { name: 'held', policy_id: p.body.id })).body.id;
  const res = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 500, currency: 'USD', vendor: 'shop.example' });
  return res.body.decision_id;
}
/** The relay's engine monitor: the one place that logs the engine's state. */
const relayEngine = (log: ReturnType<typeof createLogger>) => ({ engine: new EngineMonitor({ address: 'test', probe: async () => {}, log }) });
const rowOf = (id: string) => ctx.database.db.selectFrom('outbox').selectAll().where('ref_id', '=', id).where('topic', '=', 'held_decision').executeTakeFirstOrThrow();

describe('outbox relay', () => {
  test('backs off exponentially, with jitter, up to a minute', () => {
    expect(relayBackoffMs(1, () => 0.5)).toBe(1_000);
    expect(relayBackoffMs(2, () => 0.5)).toBe(2_000);
    expect(relayBackoffMs(5, () => 0.5)).toBe(16_000);
    expect(relayBackoffMs(30, () => 0.5)).toBe(60_000);
    expect(relayBackoffMs(1, () => 0)).toBe(800);
  });

  test('while the engine is unreachable it keeps the row, counts the attempt and reports lag; once back, the workflow starts exactly once', async () => {
    const decisionId = await holdOne();
    const downRelay = new OutboxRelay({ accountId: acct.id, db: ctx.database.db, gateway: new TemporalGateway({ address: `127.0.0.1:${UNREACHABLE_ENGINE_PORT}`, namespace: 'default', taskQueue: 'q' }), log });
    // The decision's event fans out (database work only); the workflow start cannot happen.
    await downRelay.tick();
    const after = await rowOf(decisionId);
    expect(after.processed_at).toBeNull();
    expect(after.attempts).toBe(1);
    expect(after.last_error).toMatch(/unreachable/);
    expect(after.next_attempt_at.getTime()).toBeGreaterThan(Date.now());
    const lag = await downRelay.lag();
    expect(lag.pending).toBeGreaterThanOrEqual(1);

    // The engine is back (a fake one recording starts); the row is due once its backoff has passed.
    const fake = new FakeInlineGateway({ db: ctx.database.db, signer: ctx.signer });
    const upRelay = new OutboxRelay({ accountId: acct.id, db: ctx.database.db, gateway: fake, log });
    expect(await upRelay.tick(new Date(Date.now() + 120_000))).toBeGreaterThanOrEqual(1);
    expect(fake.started).toContain(decisionId);
    expect((await rowOf(decisionId)).processed_at).not.toBeNull();
    expect(await upRelay.tick(new Date(Date.now() + 120_000))).toBe(0);
    expect(fake.started.filter((id) => id === decisionId)).toHaveLength(1);
    expect((await upRelay.lag()).pending).toBe(0);
  });

  test('while the engine stays down, rows that need no engine (event fan-out) never make it say the engine is reachable', async () => {
    const lines: Array<{ level: number; msg: string }> = [];
    const captured = createLogger('info', 'spend-auth', { write: (l: string) => void lines.push(JSON.parse(l)) });
    const down = new TemporalGateway({ address: `127.0.0.1:${UNREACHABLE_ENGINE_PORT}`, namespace: 'default', taskQueue: 'q' });
    const relay = new OutboxRelay({ accountId: acct.id, db: ctx.database.db, gateway: down, log: captured, ...relayEngine(captured) });
    const agentId = (await ctx.database.db.selectFrom('decisions').select('agent_id').where('id', '=', await holdOne()).executeTakeFirstOrThrow()).agent_id;
    await relay.tick();
    for (let i = 0; i < 3; i += 1) {
      // An approved decision's event: only database work is due while the hold's start backs off.
      expect((await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 50, currency: 'USD', vendor: 'shop.example' })).body.decision).toBe('approved');
      expect(await relay.tick()).toBeGreaterThanOrEqual(1);
    }
    const engineLines = lines.filter((l) => /engine/.test(l.msg));
    expect(engineLines.filter((l) => /reachable(?! *\()/.test(l.msg) && !/unreachable/.test(l.msg))).toEqual([]);
    expect(engineLines.filter((l) => /unreachable/.test(l.msg))).toHaveLength(1);
    await down.close();
  });

  test('a hold resolved before its workflow started is not started; its workflow is told once it exists', async () => {
    const decisionId = await holdOne();
    const decision = await ctx.database.db.selectFrom('decisions').select('agent_id').where('id', '=', decisionId).executeTakeFirstOrThrow();
    await acct.test.post(`/v1/agents/${decision.agent_id}/freeze`);
    const fake = new FakeInlineGateway({ db: ctx.database.db, signer: ctx.signer });
    await new OutboxRelay({ accountId: acct.id, db: ctx.database.db, gateway: fake, log }).tick(new Date(Date.now() + 120_000));
    expect(fake.started).not.toContain(decisionId);
    expect(fake.notified).toContain(decisionId);
  });

  test('a row that keeps failing for a reason of its own is dead-lettered after N failures: no longer claimed, out of the lag, counted in /metrics, logged once', async () => {
    const lines: Array<{ level: number; msg: string; outbox_id?: number }> = [];
    const capture = createLogger('info', 'relay-test', { write: (line: string) => void lines.push(JSON.parse(line)) });
    const decisionId = await holdOne();
    const row = await rowOf(decisionId);
    // FAKE engine that refuses this start for a reason of the request's own, as a server does for
    // an argument it rejects (INVALID_ARGUMENT): not an outage.
    const fake = new FakeInlineGateway({ db: ctx.database.db, signer: ctx.signer });
    fake.startHeld = async () => {
      throw new Error('3 INVALID_ARGUMENT: search attribute AgentId is not defined');
    };
    const relay = new OutboxRelay({ accountId: acct.id, db: ctx.database.db, gateway: fake, log: capture, maxFailures: 3 });
    for (let i = 1; i <= 5; i++) await relay.tick(new Date(Date.now() + i * 120_000));

    const after = await ctx.database.db.selectFrom('outbox').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
    expect(after).toMatchObject({ failures: 3, processed_at: null });
    expect(after.dead_lettered_at).not.toBeNull();
    expect(after.last_error).toMatch(/INVALID_ARGUMENT/);
    expect((await relay.lag()).pending).toBe(0);
    const deadLines = lines.filter((l) => l.msg.includes('dead-lettered'));
    expect(deadLines).toHaveLength(1);
    expect(deadLines[0]).toMatchObject({ level: 50, outbox_id: row.id });
    const metrics = await ctx.raw('/metrics');
    expect(metrics.text).toMatch(/^outbox_dead_letters [1-9]\d*$/m);
  });

  test('an engine outage never counts toward dead-lettering', async () => {
    const decisionId = await holdOne();
    const downRelay = new OutboxRelay({ accountId: acct.id, db: ctx.database.db, gateway: new TemporalGateway({ address: `127.0.0.1:${UNREACHABLE_ENGINE_PORT}`, namespace: 'default', taskQueue: 'q' }), log, maxFailures: 2 });
    for (let i = 1; i <= 4; i++) await downRelay.tick(new Date(Date.now() + i * 120_000));
    const row = await rowOf(decisionId);
    expect(row.attempts).toBeGreaterThanOrEqual(4);
    expect(row).toMatchObject({ failures: 0, dead_lettered_at: null, processed_at: null });
  });
});
