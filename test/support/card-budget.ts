import { afterAll, beforeAll, expect } from 'vitest';
import { createTestContext, policyBody, type TestAccount, type TestContext } from './context.js';
import { accountWithRail, asStripeReadsIt, postToRail, requestEvent } from './stripe-issuing.js';

/**
 * A test file's card program: an account with a Stripe Issuing connection (set up before the file's
 * tests, closed after), agents with a 50.00 budget, signed events posted and answered 200, and the
 * decision and spend they leave.
 */
export function cardBudgetKit() {
  const kit = {} as { ctx: TestContext; acct: TestAccount; rail: { id: string; secret: string } };
  beforeAll(async () => {
    kit.ctx = await createTestContext({ testModeRateLimit: 100_000 });
    ({ acct: kit.acct, rail: kit.rail } = await accountWithRail(kit.ctx));
  });
  afterAll(() => kit.ctx?.close());

  /** An agent with a 50.00 budget. */
  async function newAgent(): Promise<string> {
    const p = await kit.acct.test.post('/v1/policies', policyBody({ budget_monthly: 5_000, budget_single_max: 5_000 }));
    expect(p.status, p.text).toBe(201);
    return (await kit.acct.test.post('/v1/agents', { name: 'card buyer', policy_id: p.body.id })).body.id;
  }
  const post = async (event: unknown) => {
    const res = await postToRail(kit.ctx, kit.rail.id, event, { secret: kit.rail.secret });
    expect(res.status, res.text).toBe(200);
    return res;
  };
  const decision = async (id: string) => (await kit.acct.test.get(`/v1/decisions/${id}`)).body;
  const monthSpend = async (agentId: string) =>
    Number((await kit.ctx.database.db.selectFrom('agent_spend').select('approved').where('agent_id', '=', agentId).where('period', 'like', 'M:%').executeTakeFirst())?.approved ?? 0);
  /** A swipe of 40.00 at shop.example, approved. */
  async function swipe40(agentId: string) {
    const request = requestEvent({ agentId, amount: 4_000, merchantUrl: 'shop.example' });
    const answer = asStripeReadsIt(await post(request));
    expect(answer.approved).toBe(true);
    return { request, authorizationId: request.data.object.id as string, decisionId: answer.metadata.decision_id! };
  }
  return { kit, newAgent, post, decision, monthSpend, swipe40 };
}
