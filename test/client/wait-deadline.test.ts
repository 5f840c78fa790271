/**
 * Waiting for a held decision through a real proxy on 127.0.0.1 that fails the long-polls: the
 * wait is a deadline (no retry is slept for past it, a Retry-After included), and a service out of
 * reach while waiting returns the held decision as it last stood instead of throwing (the caller
 * has its decision_id and can follow it later). The engine is the FAKE inline gateway
 * (test/support/fake-gateway.ts): nothing resolves these decisions, they stay held.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import { SpendAuth, SpendAuthError } from '../../src/client/index.js';
import { agentWithPolicy, createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { FakeInlineGateway } from '../support/fake-gateway.js';
import { startFaultyProxy, type Fault, type FaultyProxy } from '../support/faulty-proxy.js';

let ctx: TestContext;
let proxy: FaultyProxy;
let acct: TestAccount;
let agentId: string;

beforeAll(async () => {
  ctx = await createTestContext({ gateway: (deps) => new FakeInlineGateway(deps), testModeRateLimit: 10_000 });
  proxy = await startFaultyProxy(ctx.baseUrl);
  acct = await ctx.account();
  ({ agentId } = await agentWithPolicy(acct.test, { require_approval_above: 1_000 }));
});
// Each test plans its own faults: none left over from the one before.
beforeEach(() => proxy?.plan());
afterAll(async () => {
  await proxy?.close();
  await ctx?.close();
});

const spend = (maxRetries = 3) => new SpendAuth({ baseUrl: `${proxy.url}/v1`, apiKey: acct.test.key, maxRetries });
const held = (vendor: string) => ({ agent_id: agentId, amount: 5_000, currency: 'USD', vendor });

/** The POST passes; every request after it meets `fault`. */
const pollsFail = (fault: Fault) => proxy.plan('pass', ...Array.from({ length: 40 }, () => fault));

test('the long-polls cannot reach the service: the held decision is returned, within the wait', async () => {
  pollsFail('reset-before');
  const started = Date.now();
  const d = await spend(20).authorize(held('unreachable-while-held.example'), { wait: 3 });
  expect(d).toMatchObject({ decision: 'held', status: 'pending' });
  // Twenty retries' backoff would take far longer: the retries stopped at the deadline.
  expect(Date.now() - started).toBeLessThan(3_000 + 1_000);
  expect((await acct.test.get(`/v1/decisions/${d.decision_id}`)).body.decision).toBe('held');
});

test("a poll's Retry-After beyond the wait is not slept: the held decision at once", async () => {
  pollsFail({ status: 503, retryAfter: '30', forward: false });
  const started = Date.now();
  const d = await spend().authorize(held('retry-after-while-held.example'), { wait: 2 });
  expect(d.decision).toBe('held');
  expect(Date.now() - started).toBeLessThan(2_000 + 1_000);
});

test('getDecision with wait: the same; an error that is no network failure (404) is still thrown', async () => {
  const d = await spend().authorize(held('get-while-held.example'));
  pollsFail({ status: 429, retryAfter: '1.5', forward: false });
  const started = Date.now();
  expect(await spend(10).getDecision(d.decision_id, { wait: 2 })).toMatchObject({ decision: 'held', decision_id: d.decision_id });
  expect(Date.now() - started).toBeLessThan(2_000 + 1_000);
  proxy.plan();
  await expect(spend().getDecision('dec_doesnotexist', { wait: 2 })).rejects.toSatisfy((e) => e instanceof SpendAuthError && e.status === 404);
});
