/**
 * A retry that reaches the service while the call's first attempt is still being processed: the
 * service answers 409 `conflict` (param `Idempotency-Key`, "still being processed"). Within one
 * call the key and body are the same, so `SpendAuth` retries it with its backoff until the first
 * attempt's decision is there to replay: one decision returned, one in the database. On a call's
 * first attempt the same 409 is the caller's own key in use elsewhere: thrown, with the key.
 *
 * The service is made slow with a real setting, a group-commit linger of 1.5 s (each decision
 * waits that long for others to share its transaction); the real proxy on 127.0.0.1 holds the
 * first answer past the client's timeout on top.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { SpendAuth, SpendAuthError } from '../../src/client/index.js';
import { agentWithPolicy, createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { startFaultyProxy, type FaultyProxy } from '../support/faulty-proxy.js';

const LINGER_MS = 1_500;

let ctx: TestContext;
let proxy: FaultyProxy;
let acct: TestAccount;
let agentId: string;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 10_000, authorizeBatch: { size: 64, lingerMs: LINGER_MS, inFlight: 2 } });
  proxy = await startFaultyProxy(ctx.baseUrl);
  acct = await ctx.account();
  ({ agentId } = await agentWithPolicy(acct.test));
});
afterAll(async () => {
  await proxy?.close();
  await ctx?.close();
});

const request = (vendor: string) => ({ agent_id: agentId, amount: 300, currency: 'USD', vendor });
const decisionsFor = (vendor: string) => ctx.database.db.selectFrom('decisions').select('id').where('agent_id', '=', agentId).where('vendor', '=', vendor).execute();

test("a retry answered 409 while the first attempt is still processing is retried: one decision, the first attempt's", async () => {
  const spend = new SpendAuth({ baseUrl: `${proxy.url}/v1`, apiKey: acct.test.key, timeoutMs: 400, maxRetries: 8 });
  const from = proxy.requests.length;
  proxy.plan({ holdMs: LINGER_MS + 1_000 });
  const d = await spend.authorize(request('in-progress.example'));
  expect(d.decision).toBe('approved');
  const attempts = proxy.requests.slice(from);
  // The first timed out; the second came within 0.4 + 0.5 s, while the first was lingering.
  expect(attempts[1]!.status).toBe(409);
  expect(attempts.at(-1)!.status).toBe(200);
  expect(new Set(attempts.map((a) => a.headers['idempotency-key'])).size).toBe(1);
  expect(await decisionsFor('in-progress.example')).toEqual([{ id: d.decision_id }]);
});

test("on a call's first attempt the same 409 is thrown, with the call's idempotencyKey to call again with", async () => {
  const spend = new SpendAuth({ baseUrl: `${ctx.baseUrl}/v1`, apiKey: acct.test.key });
  const first = spend.authorize(request('key-in-use.example'), { idempotencyKey: 'purchase-in-use' });
  await new Promise((resolve) => setTimeout(resolve, 300));
  const e = (await spend.authorize(request('key-in-use.example'), { idempotencyKey: 'purchase-in-use' }).catch((x: unknown) => x)) as SpendAuthError;
  expect(e).toBeInstanceOf(SpendAuthError);
  expect({ status: e.status, code: e.code, param: e.param, idempotencyKey: e.idempotencyKey }).toEqual({ status: 409, code: 'conflict', param: 'Idempotency-Key', idempotencyKey: 'purchase-in-use' });
  const d = await first;
  // Called again with that key once the first is done: its decision, not a second one.
  expect((await spend.authorize(request('key-in-use.example'), { idempotencyKey: e.idempotencyKey! })).decision_id).toBe(d.decision_id);
  expect(await decisionsFor('key-in-use.example')).toEqual([{ id: d.decision_id }]);
});

test('a network failure after the retries carries the idempotencyKey too', async () => {
  const spend = new SpendAuth({ baseUrl: `${proxy.url}/v1`, apiKey: acct.test.key, maxRetries: 1 });
  proxy.plan('reset-before', 'reset-before');
  const e = (await spend.authorize(request('unreached.example'), { idempotencyKey: 'purchase-unreached' }).catch((x: unknown) => x)) as SpendAuthError;
  expect({ status: e.status, code: e.code, idempotencyKey: e.idempotencyKey }).toEqual({ status: null, code: 'network_error', idempotencyKey: 'purchase-unreached' });
});
