/**
 * The deadline of a rail's decision (docs/rails/stripe-issuing.md, "The 2-second budget"): with a
 * database that answers every query 2 s late, a card authorization request still gets the
 * connection's `on_timeout` answer by 1.5 s after it arrived; the answer is recorded (a repeat gets
 * it again) and counted in /metrics, and the decision that finished late is rolled back.
 *
 * The slow database is the real one behind a query-builder plugin that holds each result back
 * while `slowness.ms` is set: a second app instance on the same database uses it.
 */
import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { authorizeSchema } from '../../src/authorization/authorize.schemas.js';
import { decide } from '../../src/authorization/authorization.service.js';
import type { DecisionWaiter } from '../../src/authorization/decision-waiter.js';
import type { Caller } from '../../src/kernel/caller.js';
import { createLogger } from '../../src/kernel/logger.js';
import { answerRailAuthorization, DeadlinePassed } from '../../src/rail-connections/rail-answers.service.js';
import type { EndpointConnection } from '../../src/rail-connections/rail-connections.service.js';
import { startHttpServer, type RunningServer } from '../../src/http/server.js';
import { stripeIssuingRail } from '../../src/rails/stripe-issuing/endpoint.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';
import { TEST_IDEMPOTENCY_KEY } from '../support/server-keys.js';
import { asStripeReadsIt, connectStripeIssuing, requestEvent, signature, stripeEvent } from '../support/stripe-issuing.js';
import { until } from '../support/wait.js';

const DEADLINE_MS = 1_500;
/** Loopback and timer jitter on a busy two-core machine; the deadline itself is measured from arrival. */
const GRACE_MS = 300;

let ctx: TestContext;
let acct: TestAccount;
let slowServer: RunningServer;
const slowness = { ms: 0, failing: false };

/** Holds each query's result back by `slowness.ms` (checked when the result arrives), or fails it while `failing`. */
const slowPlugin: KyselyPlugin = {
  transformQuery: (args) => args.node,
  transformResult: async (args) => {
    if (slowness.failing) throw Object.assign(new Error('Connection terminated unexpectedly'), { code: '57P01' });
    if (slowness.ms > 0) await new Promise((r) => setTimeout(r, slowness.ms));
    return args.result;
  },
};

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  acct = await ctx.account('growth');
  slowServer = await startHttpServer(
    { ...ctx.database, db: ctx.database.db.withPlugin(slowPlugin) },
    { port: 0 },
    { signer: ctx.signer, gateway: ctx.gateway, engine: ctx.engine, rails: { stripeIssuing: stripeIssuingRail }, idempotencyKey: TEST_IDEMPOTENCY_KEY, rateLimit: { limits: { testMode: 100_000 } }, railDeadlineMs: DEADLINE_MS },
    createLogger('silent'),
    '127.0.0.1',
  );
});
afterAll(async () => {
  slowness.ms = 0;
  slowness.failing = false;
  await slowServer?.close(100);
  await ctx?.close();
});

const post = (connectionId: string, payload: string, secret: string) =>
  fetch(`http://127.0.0.1:${slowServer.port}/rails/stripe-issuing/${connectionId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature(payload, secret) },
    body: payload,
  });

async function timedSwipe(onTimeout: 'decline' | 'approve') {
  const p = await acct.test.post('/v1/policies', policyBody());
  const agentId = (await acct.test.post('/v1/agents', { name: 'card', policy_id: p.body.id })).body.id as string;
  const rail = await connectStripeIssuing(acct.test, { on_timeout: onTimeout });
  // The endpoint has seen its connection once (as it has in production: every swipe reads it).
  const warm = await post(rail.id, JSON.stringify(stripeEvent('issuing_card.updated', { id: 'ic_1', object: 'issuing.card', livemode: false })), rail.secret);
  expect(warm.status).toBe(200);

  const payload = JSON.stringify(requestEvent({ agentId, amount: 500 }));
  slowness.ms = 2_000;
  const started = performance.now();
  const res = await post(rail.id, payload, rail.secret);
  const text = await res.text();
  const elapsed = performance.now() - started;
  slowness.ms = 0;
  return { agentId, rail, payload, res, text, elapsed };
}

const answerOf = (res: Response, text: string) => asStripeReadsIt({ status: res.status, headers: res.headers, body: JSON.parse(text), text });

test('on_timeout decline: declined with reason timeout by 1.5 s; recorded, counted, and the late decision rolled back', async () => {
  const { agentId, rail, payload, res, text, elapsed } = await timedSwipe('decline');
  expect(res.status).toBe(200);
  expect(answerOf(res, text)).toEqual({ approved: false, metadata: { reason_code: 'timeout' } });
  expect(elapsed).toBeGreaterThanOrEqual(DEADLINE_MS - 100);
  expect(elapsed).toBeLessThan(DEADLINE_MS + GRACE_MS);

  const db = ctx.database.db;
  await until('the timeout answer on record', async () => (await db.selectFrom('rail_authorizations').selectAll().where('connection_id', '=', rail.id).execute())[0]);
  const [recorded] = await db.selectFrom('rail_authorizations').selectAll().where('connection_id', '=', rail.id).execute();
  expect(recorded).toMatchObject({ outcome: 'timeout', approved: false, reason_code: 'timeout', decision_id: null });
  // The decision that was still being made when the answer went out never commits.
  const settled = await db.transaction().execute(async (trx) => trx.selectFrom('agents').select('id').where('id', '=', agentId).forUpdate().execute());
  expect(settled).toHaveLength(1);
  expect(await db.selectFrom('decisions').select('id').where('agent_id', '=', agentId).execute()).toEqual([]);

  // Stripe's retry of the event gets the answer on record.
  const again = await post(rail.id, payload, rail.secret);
  expect(answerOf(again, await again.text())).toEqual({ approved: false, metadata: { reason_code: 'timeout' } });
  const metrics = await (await fetch(`http://127.0.0.1:${slowServer.port}/metrics`)).text();
  expect(metrics).toMatch(/rail_answers_total\{rail="stripe_issuing",outcome="timeout"\} 1\b/);
});

test('on_timeout approve: approved by 1.5 s', async () => {
  const { res, text, elapsed, rail } = await timedSwipe('approve');
  expect(answerOf(res, text)).toEqual({ approved: true, metadata: {} });
  expect(elapsed).toBeLessThan(DEADLINE_MS + GRACE_MS);
  const recorded = await until('the timeout answer on record', async () => (await ctx.database.db.selectFrom('rail_authorizations').selectAll().where('connection_id', '=', rail.id).execute())[0]);
  expect(recorded).toMatchObject({ outcome: 'timeout', approved: true, reason_code: null });
});

test('a database that fails outright: the on_timeout answer at once, not an error Stripe would read as its own fallback', async () => {
  const p = await acct.test.post('/v1/policies', policyBody());
  const agentId = (await acct.test.post('/v1/agents', { name: 'card', policy_id: p.body.id })).body.id as string;
  const rail = await connectStripeIssuing(acct.test);
  await post(rail.id, JSON.stringify(stripeEvent('issuing_card.updated', { id: 'ic_1', object: 'issuing.card', livemode: false })), rail.secret);
  slowness.failing = true;
  try {
    const started = performance.now();
    const res = await post(rail.id, JSON.stringify(requestEvent({ agentId, amount: 500 })), rail.secret);
    const text = await res.text();
    expect(answerOf(res, text)).toEqual({ approved: false, metadata: { reason_code: 'timeout' } });
    expect(performance.now() - started).toBeLessThan(DEADLINE_MS);
  } finally {
    slowness.failing = false;
  }
});

test("a swipe whose time ran out while it waited is dropped: no query, no decision, the agent's turn given back", async () => {
  const p = await acct.test.post('/v1/policies', policyBody());
  const agentId = (await acct.test.post('/v1/agents', { name: 'card', policy_id: p.body.id })).body.id as string;
  const rail = await connectStripeIssuing(acct.test);
  const deps = { db: ctx.database.db, signer: ctx.signer, waiter: {} as DecisionWaiter };
  const connection: EndpointConnection = { id: rail.id, accountId: acct.id, livemode: false, signingSecret: rail.secret, stripeVersion: '2026-10-28.endive', onTimeout: 'decline', plan: 'growth', rateLimit: null };
  const request = { eventId: 'evt_late1', authorizationId: 'iauth_late1', agentId, amount: 500, currency: 'USD', vendor: 'shop.example', category: null, metadata: {} };

  // Its time already out when it is taken up (it waited for its connection or the rate limit): not one query.
  const untouchable = new Proxy({}, { get: () => { throw new Error('the database was used'); } }) as typeof ctx.database.db;
  await expect(answerRailAuthorization({ ...deps, db: untouchable }, connection, request, Date.now() - 1)).rejects.toBeInstanceOf(DeadlinePassed);

  // Its time runs out while it waits for the agent's turn, or for the agent's lock: nothing decided or recorded.
  const caller: Caller = { accountId: acct.id, livemode: false, keyId: rail.id, role: 'admin', agentId: null, plan: 'growth', rateLimit: null };
  const input = authorizeSchema.parse({ agent_id: agentId, amount: 500, currency: 'USD', vendor: 'shop.example' });
  const ref = { type: 'stripe_issuing' as const, connection_id: rail.id, authorization_id: 'iauth_late2' };
  for (const failingCheck of [1, 2]) {
    let checks = 0;
    let recorded = 0;
    const late = { ref, record: async () => void (recorded += 1), answerRow: () => ({}), checkInTime: () => { if (++checks === failingCheck) throw new DeadlinePassed(); } };
    await expect(decide(deps, caller, input, { rail: late })).rejects.toBeInstanceOf(DeadlinePassed);
    expect({ checks, recorded }).toEqual({ checks: failingCheck, recorded: 0 });
  }
  expect(await ctx.database.db.selectFrom('decisions').select('id').where('agent_id', '=', agentId).execute()).toEqual([]);
  expect(await ctx.database.db.selectFrom('rail_authorizations').select('authorization_id').where('connection_id', '=', rail.id).execute()).toEqual([]);

  // The agent's turn was given back: its next swipe is decided.
  const next = await post(rail.id, JSON.stringify(requestEvent({ agentId, amount: 500 })), rail.secret);
  expect(answerOf(next, await next.text())).toMatchObject({ approved: true });
});
