/**
 * Attack: replaying a captured Stripe request. A fresh timestamp with the old signature does not
 * verify; the old header as it was is stale after 300 s; within the tolerance a replay only gets
 * the first answer back, and nothing new is decided or recorded.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { accountWithRail, asStripeReadsIt, postToRail, requestEvent, signature } from '../support/stripe-issuing.js';

let ctx: TestContext;
let acct: TestAccount;
let rail: { id: string; secret: string };
let agentId: string;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  ({ acct, rail, agentId } = await accountWithRail(ctx));
});
afterAll(() => ctx?.close());

const counts = async () => ({
  decisions: (await ctx.database.db.selectFrom('decisions').select('id').where('agent_id', '=', agentId).execute()).length,
  answers: (await ctx.database.db.selectFrom('rail_authorizations').select('authorization_id').where('connection_id', '=', rail.id).execute()).length,
});

test('the old v1 under a fresh t= does not verify: 400, nothing recorded', async () => {
  const payload = JSON.stringify(requestEvent({ agentId, amount: 100 }));
  const old = Math.floor(Date.now() / 1000) - 3_600;
  const v1 = /v1=([0-9a-f]+)/.exec(signature(payload, rail.secret, old))![1];
  const before = await counts();
  const res = await postToRail(ctx, rail.id, payload, { header: `t=${Math.floor(Date.now() / 1000)},v1=${v1}` });
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'Stripe-Signature' });
  expect(await counts()).toEqual(before);
});

test('the old header as it was: stale beyond 300 s, 400, nothing recorded', async () => {
  const payload = JSON.stringify(requestEvent({ agentId, amount: 100 }));
  const before = await counts();
  const stale = await postToRail(ctx, rail.id, payload, { header: signature(payload, rail.secret, Math.floor(Date.now() / 1000) - 301) });
  expect(stale.status).toBe(400);
  expect(stale.body.error.param).toBe('Stripe-Signature');
  expect(await counts()).toEqual(before);
  // 299 s old still verifies (Stripe's own tolerance).
  expect((await postToRail(ctx, rail.id, payload, { header: signature(payload, rail.secret, Math.floor(Date.now() / 1000) - 299) })).status).toBe(200);
});

test('a replay within the tolerance gets the first answer and decides nothing again', async () => {
  const payload = JSON.stringify(requestEvent({ agentId, amount: 250 }));
  const header = signature(payload, rail.secret);
  const first = asStripeReadsIt(await postToRail(ctx, rail.id, payload, { header }));
  const before = await counts();
  const replays = await Promise.all(Array.from({ length: 5 }, () => postToRail(ctx, rail.id, payload, { header })));
  for (const r of replays) expect(asStripeReadsIt(r)).toEqual(first);
  expect(await counts()).toEqual(before);
});

test('a header with several v1 signatures passes only when one of them is right', async () => {
  const payload = JSON.stringify(requestEvent({ agentId, amount: 100 }));
  const t = Math.floor(Date.now() / 1000);
  const good = /v1=([0-9a-f]+)/.exec(signature(payload, rail.secret, t))![1];
  const forged = 'ab'.repeat(32);
  expect((await postToRail(ctx, rail.id, payload, { header: `t=${t},v1=${forged},v1=${forged.replace('a', 'c')}` })).status).toBe(400);
  expect((await postToRail(ctx, rail.id, payload, { header: `t=${t},v1=${forged},v1=${good}` })).status).toBe(200);
});
