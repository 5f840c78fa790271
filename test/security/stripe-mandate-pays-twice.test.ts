/**
 * Attack: one approval, two payments. `POST /v1/mandates/verify` approves a payment under an AP2
 * mandate and issues its `gca_` token: that decision is already a payment. A card swipe at the same
 * payee for the same amount then asks the Stripe Issuing rail, whose rule 1 takes an uncaptured
 * approval of the agent at that vendor: were it to take the mandate's, the swipe would pay a second
 * time and be counted once. Rule 1 matches only approvals made by `POST /v1/authorize` (DECISIONS
 * §17); the swipe is decided by rule 2, against the budget the mandate's payment already spent.
 * Events signed with the official `stripe` package, built from Stripe's published fixtures.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { mandateFixture } from '../support/mandates.js';
import { presenting } from '../support/mandate-presenting.js';
import { asStripeReadsIt, connectStripeIssuing, postToRail, requestEvent } from '../support/stripe-issuing.js';

let ctx: TestContext;
let acct: TestAccount;
let rail: { id: string; secret: string };

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 10_000 });
  acct = await ctx.account('growth');
  rail = await connectStripeIssuing(acct.test);
});
afterAll(() => ctx?.close());

const swipe = async (agentId: string, amount: number) =>
  asStripeReadsIt(await postToRail(ctx, rail.id, requestEvent({ agentId, amount, merchantName: 'Cat Store', merchantUrl: 'https://cats.example/checkout' }), { secret: rail.secret }));

test("a swipe at the mandate's payee never takes the mandate's approval: it is decided afresh, against the budget the mandate spent", async () => {
  // Budget 1,500: the mandate's 1,000 leaves 500, so a fresh decision on a 1,000 swipe is denied.
  const fx = await mandateFixture(acct.test, { policy: { budget_monthly: 1_500 } });
  const p = presenting(ctx);
  const paid = await p.verify(acct.test, fx, await p.close(fx, { payment_amount: { amount: 1_000, currency: 'USD' } }));
  expect(paid.body, paid.text).toMatchObject({ status: 'Success' });
  expect(paid.body.authorization_token).toMatch(/^gca_/);

  const answer = await swipe(fx.agentId, 1_000);
  expect(answer).toMatchObject({ approved: false, metadata: { reason_code: 'budget_exceeded' } });
  expect(answer.metadata.decision_id).not.toBe(paid.body.decision_id);
  expect((await acct.test.get(`/v1/decisions/${paid.body.decision_id}`)).body.capture).toMatchObject({ status: 'uncaptured' });
});

test('with budget to spare the swipe is a decision of its own, counted beside the mandate payment', async () => {
  const fx = await mandateFixture(acct.test, { policy: { budget_monthly: 100_000 } });
  const p = presenting(ctx);
  const paid = await p.verify(acct.test, fx, await p.close(fx, { payment_amount: { amount: 1_000, currency: 'USD' } }));
  expect(paid.body).toMatchObject({ status: 'Success' });

  const answer = await swipe(fx.agentId, 1_000);
  expect(answer.approved).toBe(true);
  expect(answer.metadata.decision_id).not.toBe(paid.body.decision_id);
  const swiped = (await acct.test.get(`/v1/decisions/${answer.metadata.decision_id}`)).body;
  expect(swiped).toMatchObject({ decision: 'approved', amount: 1_000, rail: { type: 'stripe_issuing', connection_id: rail.id } });
  expect((await acct.test.get(`/v1/decisions/${paid.body.decision_id}`)).body.capture).toMatchObject({ status: 'uncaptured' });
  const verify = await acct.test.get('/v1/audit-logs/verify');
  expect(verify.body).toMatchObject({ valid: true, ledger_mismatches: 0 });
});

test("an approval made by POST /v1/authorize is still matched (the rule's own case)", async () => {
  const fx = await mandateFixture(acct.test, { policy: { budget_monthly: 100_000 } });
  const asked = await acct.test.post('/v1/authorize', { agent_id: fx.agentId, amount: 2_000, currency: 'USD', vendor: 'cats.example' });
  expect(asked.body.decision).toBe('approved');
  expect(await swipe(fx.agentId, 1_500)).toEqual({ approved: true, metadata: { decision_id: asked.body.decision_id } });
});
