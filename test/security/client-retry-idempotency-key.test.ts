/**
 * Attack on the client's retries: an on-path failure (a dropped connection after the service
 * decided, a gateway's 503 or 429, a reset) provokes a retry; a retry sent with a second, different
 * Idempotency-Key would be a second purchase decided (a second approval, twice the budget spent).
 * Every attempt of one `SpendAuth` call must carry the key of its first attempt, byte for byte, and
 * the body with it; only a new call has a new key. Through a real proxy on 127.0.0.1 in front of
 * the real service.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { SpendAuth } from '../../src/client/index.js';
import { agentWithPolicy, createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { startFaultyProxy, type Fault, type FaultyProxy } from '../support/faulty-proxy.js';

let ctx: TestContext;
let proxy: FaultyProxy;
let acct: TestAccount;
let agentId: string;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 10_000 });
  proxy = await startFaultyProxy(ctx.baseUrl);
  acct = await ctx.account();
  ({ agentId } = await agentWithPolicy(acct.test));
});
afterAll(async () => {
  await proxy?.close();
  await ctx?.close();
});

const FAULTS: Fault[] = ['drop-after', { status: 503, retryAfter: '0', forward: true }, 'reset-before', { status: 429, retryAfter: '0', forward: false }, { status: 503, forward: true, html: true }];

test('one authorize through five failures: six attempts, one key, one body, one decision; the next call another key', async () => {
  const spend = new SpendAuth({ baseUrl: `${proxy.url}/v1`, apiKey: acct.test.key, maxRetries: 5 });
  const from = proxy.requests.length;
  proxy.plan(...FAULTS);
  const d = await spend.authorize({ agent_id: agentId, amount: 700, currency: 'USD', vendor: 'twice.example' });
  const attempts = proxy.requests.slice(from);
  expect(attempts).toHaveLength(6);
  const keys = new Set(attempts.map((a) => a.headers['idempotency-key']));
  expect(keys.size).toBe(1);
  expect([...keys][0]).toMatch(/^[\x21-\x7e]{1,255}$/);
  expect(new Set(attempts.map((a) => a.body)).size).toBe(1);
  const decided = await ctx.database.db.selectFrom('decisions').select(['id', 'amount']).where('agent_id', '=', agentId).where('vendor', '=', 'twice.example').execute();
  expect(decided).toEqual([{ id: d.decision_id, amount: 700 }]);

  const next = proxy.requests.length;
  await spend.authorize({ agent_id: agentId, amount: 700, currency: 'USD', vendor: 'twice.example' });
  expect(proxy.requests[next]!.headers['idempotency-key']).not.toBe([...keys][0]);
});

test('capture and void keep their key across retries too; a key the caller gives is sent as given on every attempt', async () => {
  const admin = new SpendAuth({ baseUrl: `${proxy.url}/v1`, apiKey: acct.test.key, maxRetries: 5 });
  const direct = new SpendAuth({ baseUrl: `${ctx.baseUrl}/v1`, apiKey: acct.test.key });
  const a = await direct.authorize({ agent_id: agentId, amount: 100, currency: 'USD', vendor: 'capture.example' });
  const b = await direct.authorize({ agent_id: agentId, amount: 100, currency: 'USD', vendor: 'capture.example' });
  for (const [run, key] of [
    [() => admin.capture(a.decision_id, { amount: 90 }), undefined],
    [() => admin.void(b.decision_id, { idempotencyKey: 'void-b-1' }), 'void-b-1'],
  ] as const) {
    const from = proxy.requests.length;
    proxy.plan('drop-after', { status: 503, retryAfter: '0', forward: true });
    await run();
    const sent = proxy.requests.slice(from).map((r) => r.headers['idempotency-key']);
    expect(sent).toHaveLength(3);
    expect(new Set(sent).size).toBe(1);
    if (key) expect(sent[0]).toBe(key);
  }
  expect((await direct.getDecision(a.decision_id)).capture).toMatchObject({ status: 'captured', captured_amount: 90 });
  expect((await direct.getDecision(b.decision_id)).capture).toMatchObject({ status: 'voided' });
});
