/**
 * The card's later life finds the agents to lock from its answers (`rail_authorizations.agent_id`),
 * not by reading each approving decision first; the locks keep their order: the agent's row, then
 * the decision's.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { accountWithRail, asStripeReadsIt, authorizationAfter, postToRail, requestEvent, stripeEvent } from '../support/stripe-issuing.js';

let ctx: TestContext;
let acct: TestAccount;
let rail: { id: string; secret: string };
let agentId: string;
let queries: string[] = [];

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000, onQuery: (q) => void queries.push(q) });
  ({ acct, rail, agentId } = await accountWithRail(ctx, { budget_monthly: 100_000, budget_single_max: 10_000 }));
});
afterAll(() => ctx?.close());

const DECISION_READ = 'select * from "decisions" where "id" = $1';

test('a reversal locks the agent, then the decision, without reading the decision first', async () => {
  const request = requestEvent({ agentId, amount: 2_000, merchantUrl: 'shop.example' });
  const answer = asStripeReadsIt(await postToRail(ctx, rail.id, request, { secret: rail.secret }));
  expect(answer.approved).toBe(true);

  queries = [];
  const res = await postToRail(ctx, rail.id, stripeEvent('issuing_authorization.updated', authorizationAfter(request, { approved: true, status: 'reversed', amount: 0 })), { secret: rail.secret });
  expect(res.status, res.text).toBe(200);
  const seen = [...queries];
  expect(seen.filter((q) => q === DECISION_READ)).toEqual([]);
  const agentLock = seen.findIndex((q) => q.startsWith('select "id" from "agents" where "id" = $1 for update'));
  const decisionLock = seen.indexOf(`${DECISION_READ} for update`);
  expect(agentLock).toBeGreaterThanOrEqual(0);
  expect(decisionLock).toBeGreaterThan(agentLock);

  // The reversal was applied: nothing of the approval counts any more.
  const decision = await acct.test.get(`/v1/decisions/${answer.metadata.decision_id}`);
  expect(decision.body.capture.status).toBe('voided');
});
