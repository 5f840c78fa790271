/**
 * Attack: a signature over one body sent with another. The signature covers the raw bytes as sent,
 * so the same event re-serialized (other spacing, other key order) or altered (a smaller amount, a
 * different agent) does not verify; and a body Stripe signed with unusual spacing is accepted as it is.
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
  ({ acct, rail, agentId } = await accountWithRail(ctx, { budget_single_max: 1_000 }));
});
afterAll(() => ctx?.close());

const recorded = async () => (await ctx.database.db.selectFrom('rail_authorizations').select('authorization_id').where('connection_id', '=', rail.id).execute()).length;

test.each([
  ['pretty-printed', (e: any) => JSON.stringify(e, null, 2)],
  ['keys in another order', (e: any) => JSON.stringify(Object.fromEntries(Object.entries(e).reverse()))],
  ['a smaller amount', (e: any) => JSON.stringify({ ...e, data: { object: { ...e.data.object, pending_request: { ...e.data.object.pending_request, amount: 1 } } } })],
  ['a trailing newline', (e: any) => `${JSON.stringify(e)}\n`],
])('the signature of the compact body with the body %s → 400, nothing recorded', async (_name, reserialize) => {
  const event = requestEvent({ agentId, amount: 5_000 });
  const header = signature(JSON.stringify(event), rail.secret);
  const before = await recorded();
  const res = await postToRail(ctx, rail.id, reserialize(event), { header });
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'Stripe-Signature' });
  expect(await recorded()).toBe(before);
});

test('a body signed as sent, with its own spacing, verifies over its raw bytes', async () => {
  const payload = JSON.stringify(requestEvent({ agentId, amount: 300 }), null, 3);
  const answer = asStripeReadsIt(await postToRail(ctx, rail.id, payload, { secret: rail.secret }));
  expect(answer.approved).toBe(true);
});

test('a duplicate member name cannot smuggle a second amount past the signature', async () => {
  // Whatever a parser makes of a repeated member, the bytes are what was signed: only Stripe could sign it.
  const event = requestEvent({ agentId, amount: 100 });
  const signed = JSON.stringify(event);
  const smuggled = signed.replace('"amount":100,', '"amount":100,"amount":900000,');
  const res = await postToRail(ctx, rail.id, smuggled, { header: signature(signed, rail.secret) });
  expect(res.status).toBe(400);
});

test('a body signed with a member named twice is refused as I-JSON once the signature holds: 400 naming it, nothing recorded', async () => {
  // Even a body the signature covers is read as every other body is (docs/api.md, "Request bodies"):
  // a reader that takes the first `amount` would see another request than the one decided.
  const event = requestEvent({ agentId, amount: 100 });
  const doubled = JSON.stringify(event).replace('"amount":100,', '"amount":100,"amount":900000,');
  const before = await recorded();
  const res = await postToRail(ctx, rail.id, doubled, { header: signature(doubled, rail.secret) });
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('invalid_request');
  expect(res.body.error.param).toMatch(/amount$/);
  expect(await recorded()).toBe(before);
});
