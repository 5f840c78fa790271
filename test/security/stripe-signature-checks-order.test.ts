/**
 * Attack: probing the rail endpoint's checks for what each one reveals. The signature is checked
 * over the raw bytes before anything is parsed, and the body is then parsed once (I-JSON): a
 * request learns which check failed and no more, in the same order whatever the mix of faults: a
 * bad signature first; then text that is not JSON; then a timestamp too far ahead; then a member
 * named twice. Nothing is recorded for any of them.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { accountWithRail, postToRail, requestEvent, signature } from '../support/stripe-issuing.js';

let ctx: TestContext;
let rail: { id: string; secret: string };
let agentId: string;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  ({ rail, agentId } = await accountWithRail(ctx));
});
afterAll(() => ctx?.close());

const now = () => Math.floor(Date.now() / 1000);
const AHEAD = 3_600;
const recorded = async () => (await ctx.database.db.selectFrom('rail_authorizations').select('request_event_id').where('connection_id', '=', rail.id).execute()).length;

/** A request event with its `id` member written twice (the second one wins in JSON.parse). */
const twice = (): string => JSON.stringify(requestEvent({ agentId, amount: 100 })).replace(/^\{/, '{"id":"evt_first",');

test.each([
  ['not JSON, signed by another secret', (): string => 'not json', 'other', 0, 'Stripe-Signature'],
  ['a member twice, signed by another secret', twice, 'other', 0, 'Stripe-Signature'],
  ['not JSON, signed', (): string => 'not json', 'own', 0, 'body'],
  ['not JSON, signed an hour ahead', (): string => 'not json', 'own', AHEAD, 'body'],
  ['a member twice, signed an hour ahead', twice, 'own', AHEAD, 'Stripe-Signature'],
  ['a member twice, signed', twice, 'own', 0, 'id'],
] as const)('%s → 400 naming %s, nothing recorded', async (_name, body, secret, ahead, param) => {
  const payload = body();
  const before = await recorded();
  const res = await postToRail(ctx, rail.id, payload, { header: signature(payload, secret === 'own' ? rail.secret : 'whsec_another', now() + ahead) });
  expect(res.status, res.text).toBe(400);
  expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
  expect(await recorded()).toBe(before);
});
