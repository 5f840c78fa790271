/**
 * Attack: exhausting a card program's rate limit so its swipes are refused. A rail's endpoint is
 * limited per connection, at its account's limit for the mode, and only requests whose signature
 * holds count: a flood of forged requests leaves the connection's budget untouched.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createLogger } from '../../src/kernel/logger.js';
import { startHttpServer, type RunningServer } from '../../src/http/server.js';
import { stripeIssuingRail } from '../../src/rails/stripe-issuing/endpoint.js';
import { createTestContext, policyBody, type TestContext } from '../support/context.js';
import { TEST_IDEMPOTENCY_KEY } from '../support/server-keys.js';
import { connectStripeIssuing, newSigningSecret, requestEvent, signature } from '../support/stripe-issuing.js';

const LIMIT = 5;
let ctx: TestContext;
let server: RunningServer;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  // A clock pinned inside one minute, so no window boundary resets a count halfway.
  const pinned = Math.floor(Date.now() / 60_000) * 60_000 + 20_000;
  server = await startHttpServer(ctx.database, { port: 0 }, { signer: ctx.signer, gateway: ctx.gateway, engine: ctx.engine, rails: { stripeIssuing: stripeIssuingRail }, idempotencyKey: TEST_IDEMPOTENCY_KEY, rateLimit: { now: () => pinned, limits: { testMode: LIMIT } } }, createLogger('silent'), '127.0.0.1');
});
afterAll(async () => {
  await server?.close(100);
  await ctx?.close();
});

const post = (connectionId: string, payload: string, header: string) =>
  fetch(`http://127.0.0.1:${server.port}/rails/stripe-issuing/${connectionId}`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': header }, body: payload });

test('forged requests never count; signed ones count per connection up to the limit, then 429 with Retry-After', async () => {
  const acct = await ctx.account('growth');
  const rail = await connectStripeIssuing(acct.test);
  const other = await connectStripeIssuing(acct.test);
  const p = await acct.test.post('/v1/policies', policyBody());
  const agentId = (await acct.test.post('/v1/agents', { name: 'card', policy_id: p.body.id })).body.id;

  const forger = newSigningSecret();
  for (let i = 0; i < 3 * LIMIT; i++) {
    const payload = JSON.stringify(requestEvent({ agentId, amount: 100 }));
    const res = await post(rail.id, payload, signature(payload, forger));
    expect(res.status).toBe(400);
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
  }
  for (let i = 1; i <= LIMIT; i++) {
    const payload = JSON.stringify(requestEvent({ agentId, amount: 100 }));
    const res = await post(rail.id, payload, signature(payload, rail.secret));
    expect(res.status, await res.text()).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
    expect(res.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - i));
  }
  const payload = JSON.stringify(requestEvent({ agentId, amount: 100 }));
  const over = await post(rail.id, payload, signature(payload, rail.secret));
  expect(over.status).toBe(429);
  expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
  expect((await over.json()).error.code).toBe('rate_limited');
  // Nothing was recorded for the refused one; another connection of the account has its own count.
  expect(await ctx.database.db.selectFrom('rail_authorizations').select('authorization_id').where('authorization_id', '=', JSON.parse(payload).data.object.id).execute()).toEqual([]);
  const elsewhere = JSON.stringify(requestEvent({ agentId, amount: 100 }));
  expect((await post(other.id, elsewhere, signature(elsewhere, other.secret))).status).toBe(200);
});
