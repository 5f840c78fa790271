/**
 * The closing story of the Stripe Issuing rail (scripts/card-purchase-story.ts), run against the
 * test service: the agent asks → approved → the card swipe matches and captures the approval →
 * the transaction settles → the audit log verifies.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { cardPurchaseStory } from '../../scripts/card-purchase-story.js';
import { createTestContext, type TestContext } from '../support/context.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
});
afterAll(() => ctx?.close());

test('one whole card purchase, in one log', async () => {
  const acct = await ctx.account('growth');
  const lines: string[] = [];
  const story = await cardPurchaseStory(ctx.baseUrl, acct.test.key, (line) => lines.push(line));
  expect(story.swipeAnswer).toEqual({ approved: true, metadata: { decision_id: story.decisionId } });
  expect(story.decision).toMatchObject({ decision: 'approved', amount: 4_200, capture: { status: 'captured', captured_amount: 3_980 }, rail: null });
  expect(story.auditTypes).toEqual(['agent.created', 'api_key.created', 'authorization.decision', 'authorization.captured']);
  expect(story.verification).toMatchObject({ valid: true });
  expect(lines.join('\n')).toMatch(/issuing_authorization\.request .* → HTTP 200 \{"approved":true/);
});
