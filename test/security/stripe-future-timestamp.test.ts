/**
 * Attack: a Stripe-Signature made for later. The official package refuses only timestamps more
 * than 300 s in the past, so a header signed with `t` an hour (or ten years) ahead would stay
 * valid for as long: whoever captured or pre-signed it could replay it until then. The tolerance
 * holds on both sides of now: more than 300 s ahead is refused as a stale one is (400 naming the
 * header, nothing recorded); a clock a little ahead (within 300 s) is still accepted. Signed with
 * the official `stripe` package over events built from Stripe's published fixtures.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { accountWithRail, asStripeReadsIt, postToRail, requestEvent, signature } from '../support/stripe-issuing.js';

let ctx: TestContext;
let rail: { id: string; secret: string };
let agentId: string;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  ({ rail, agentId } = await accountWithRail(ctx));
});
afterAll(() => ctx?.close());

const now = () => Math.floor(Date.now() / 1000);
const counts = async () => ({
  decisions: (await ctx.database.db.selectFrom('decisions').select('id').where('agent_id', '=', agentId).execute()).length,
  answers: (await ctx.database.db.selectFrom('rail_authorizations').select('request_event_id').where('connection_id', '=', rail.id).execute()).length,
  events: (await ctx.database.db.selectFrom('rail_events').select('event_id').where('connection_id', '=', rail.id).execute()).length,
});

test.each([
  ['one hour ahead', 3_600],
  ['ten years ahead', 10 * 365 * 86_400],
  ['301 s ahead', 301],
])('a timestamp %s: 400 naming Stripe-Signature, nothing recorded', async (_name, ahead) => {
  const payload = JSON.stringify(requestEvent({ agentId, amount: 100 }));
  const before = await counts();
  const res = await postToRail(ctx, rail.id, payload, { header: signature(payload, rail.secret, now() + ahead) });
  expect(res.status, res.text).toBe(400);
  expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'Stripe-Signature' });
  expect(await counts()).toEqual(before);
});

test('the card-life events are held to the same tolerance', async () => {
  const payload = JSON.stringify({ ...requestEvent({ agentId, amount: 100 }), type: 'issuing_authorization.updated' });
  const before = await counts();
  const res = await postToRail(ctx, rail.id, payload, { header: signature(payload, rail.secret, now() + 3_600) });
  expect(res.status).toBe(400);
  expect(await counts()).toEqual(before);
});

test('a second t= cannot smuggle the future past the check: the timestamp that was signed is the one judged', async () => {
  const payload = JSON.stringify(requestEvent({ agentId, amount: 100 }));
  const future = now() + 3_600;
  const v1 = /v1=([0-9a-f]+)/.exec(signature(payload, rail.secret, future))![1];
  const before = await counts();
  for (const header of [`t=${now()},t=${future},v1=${v1}`, `t=${future},v1=${v1},t=${future}`]) {
    const res = await postToRail(ctx, rail.id, payload, { header });
    expect(res.status, header).toBe(400);
  }
  expect(await counts()).toEqual(before);
});

test('a clock a little ahead (within 300 s) is still accepted', async () => {
  const payload = JSON.stringify(requestEvent({ agentId, amount: 100 }));
  const res = await postToRail(ctx, rail.id, payload, { header: signature(payload, rail.secret, now() + 240) });
  expect(asStripeReadsIt(res).approved).toBe(true);
});
