/**
 * Attack: reaching another account through the rail. A connection id of another account does not
 * verify with one's own secret; one's own connection cannot decide for another account's agent
 * (a card whose metadata names it is declined as an unknown agent, and nothing is written for that
 * agent); a test connection does not take live events.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';
import { asStripeReadsIt, connectStripeIssuing, postToRail, requestEvent } from '../support/stripe-issuing.js';

let ctx: TestContext;
let victim: TestAccount;
let attacker: TestAccount;
let victimRail: { id: string; secret: string };
let attackerRail: { id: string; secret: string };
let victimAgent: string;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  victim = await ctx.account('growth');
  attacker = await ctx.account('growth');
  victimRail = await connectStripeIssuing(victim.test);
  attackerRail = await connectStripeIssuing(attacker.test);
  const p = await victim.test.post('/v1/policies', policyBody({ budget_monthly: 1_000_000, budget_single_max: 1_000_000 }));
  victimAgent = (await victim.test.post('/v1/agents', { name: 'victim card', policy_id: p.body.id })).body.id;
});
afterAll(() => ctx?.close());

const victimRows = async () => ({
  decisions: (await ctx.database.db.selectFrom('decisions').select('id').where('account_id', '=', victim.id).execute()).length,
  answers: (await ctx.database.db.selectFrom('rail_authorizations').select('authorization_id').where('account_id', '=', victim.id).execute()).length,
});

test("the victim's connection id with the attacker's secret → 400, nothing recorded", async () => {
  const before = await victimRows();
  const res = await postToRail(ctx, victimRail.id, requestEvent({ agentId: victimAgent, amount: 50_000 }), { secret: attackerRail.secret });
  expect(res.status).toBe(400);
  expect(res.body.error.param).toBe('Stripe-Signature');
  expect(await victimRows()).toEqual(before);
});

test("the attacker's own connection naming the victim's agent: declined unknown_agent, nothing written for the victim", async () => {
  const before = await victimRows();
  const answer = asStripeReadsIt(await postToRail(ctx, attackerRail.id, requestEvent({ agentId: victimAgent, amount: 50_000 }), { secret: attackerRail.secret }));
  expect(answer).toEqual({ approved: false, metadata: { reason_code: 'unknown_agent' } });
  expect(await victimRows()).toEqual(before);
  // Nor can it match the victim's approvals.
  const asked = await victim.test.post('/v1/authorize', { agent_id: victimAgent, amount: 9_000, currency: 'USD', vendor: 'shop.example' });
  expect(asked.body.decision).toBe('approved');
  const again = asStripeReadsIt(await postToRail(ctx, attackerRail.id, requestEvent({ agentId: victimAgent, amount: 100, merchantUrl: 'shop.example' }), { secret: attackerRail.secret }));
  expect(again.approved).toBe(false);
  expect((await victim.test.get(`/v1/decisions/${asked.body.decision_id}`)).body.capture.status).toBe('uncaptured');
});

test('a live event on a test connection (and the reverse) → 400, nothing recorded', async () => {
  const liveRail = await connectStripeIssuing(victim.live!);
  const before = await victimRows();
  const toTest = await postToRail(ctx, victimRail.id, requestEvent({ agentId: victimAgent, amount: 100, livemode: true }), { secret: victimRail.secret });
  expect(toTest.status).toBe(400);
  expect(toTest.body.error).toMatchObject({ code: 'invalid_request', param: 'livemode' });
  const toLive = await postToRail(ctx, liveRail.id, requestEvent({ agentId: victimAgent, amount: 100, livemode: false }), { secret: liveRail.secret });
  expect(toLive.status).toBe(400);
  expect(await victimRows()).toEqual(before);
});

test('unknown, malformed and deleted connection ids → 400 without a lookup that could fail', async () => {
  for (const id of ['rail_doesnotexist00000000000', 'not-a-rail', 'rail_%00', 'rail_' + 'a'.repeat(300)]) {
    const res = await postToRail(ctx, id, requestEvent({ agentId: victimAgent, amount: 100 }), { secret: victimRail.secret });
    expect(res.status, id).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'id' });
  }
});
