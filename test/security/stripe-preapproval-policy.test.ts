/**
 * Attack: spending where the policy forbids by riding an approval asked for elsewhere. An agent
 * pre-approved at `shop.example` swipes at `casino.shop.example` (denylisted), or at
 * `shop.example` in a category its policy does not allow, or after its policy changed: rule 1 of
 * the Stripe Issuing rail must match only the same vendor in normal form, and only a swipe that
 * passes the agent's policy as it stands now; anything else is decided by rule 2 (and declined).
 * Events signed with the official `stripe` package, built from Stripe's published fixtures.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { resolveHeldDecision } from '../../src/approvals/resolution.service.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';
import { accountWithRail, asStripeReadsIt, postToRail, requestEvent, type Swipe } from '../support/stripe-issuing.js';

let ctx: TestContext;
let acct: TestAccount;
let rail: { id: string; secret: string };

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  ({ acct, rail } = await accountWithRail(ctx));
});
afterAll(() => ctx?.close());

async function newAgent(policy: Record<string, unknown> = {}): Promise<{ agentId: string; policyId: string }> {
  const p = await acct.test.post('/v1/policies', policyBody({ budget_monthly: 100_000, budget_single_max: 50_000, ...policy }));
  expect(p.status, p.text).toBe(201);
  const a = await acct.test.post('/v1/agents', { name: 'card buyer', policy_id: p.body.id });
  return { agentId: a.body.id, policyId: p.body.id };
}

/** An approval asked for through the API, before the swipe. */
async function preApprove(agentId: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 5_000, currency: 'USD', vendor: 'shop.example', ...body });
  expect(res.body.decision, res.text).toBe('approved');
  return res.body.decision_id;
}

const swipe = async (s: Swipe) => asStripeReadsIt(await postToRail(ctx, rail.id, requestEvent(s), { secret: rail.secret }));
const capture = async (id: string) => (await acct.test.get(`/v1/decisions/${id}`)).body.capture;

describe('rule 1 matches the same vendor in normal form only', () => {
  test('a denylisted subdomain of the pre-approved vendor: declined policy_denied, the approval untouched', async () => {
    const { agentId } = await newAgent({ vendor_denylist: ['casino.shop.example'] });
    const asked = await preApprove(agentId);
    const a = await swipe({ agentId, amount: 3_000, merchantName: 'Casino', merchantUrl: 'https://casino.shop.example/chips' });
    expect(a).toMatchObject({ approved: false, metadata: { reason_code: 'policy_denied' } });
    expect(a.metadata.decision_id).not.toBe(asked);
    expect(await capture(asked)).toMatchObject({ status: 'uncaptured' });
  });

  test('a subdomain not on any list is not the same vendor: a decision of its own, the approval untouched', async () => {
    const { agentId } = await newAgent();
    const asked = await preApprove(agentId);
    const a = await swipe({ agentId, amount: 3_000, merchantUrl: 'https://checkout.shop.example/pay' });
    expect(a.approved).toBe(true);
    expect(a.metadata.decision_id).not.toBe(asked);
    expect(await capture(asked)).toMatchObject({ status: 'uncaptured' });
  });

  test('the same vendor written otherwise (scheme, case, www., path, trailing dot) matches', async () => {
    const { agentId } = await newAgent();
    const asked = await preApprove(agentId);
    const a = await swipe({ agentId, amount: 3_000, merchantUrl: 'HTTPS://WWW.Shop.Example./cart?x=1' });
    expect(a).toEqual({ approved: true, metadata: { decision_id: asked } });
  });
});

describe('rule 1 matches only a swipe the policy allows as it stands now', () => {
  test('a category the policy does not allow: declined policy_denied, never matched', async () => {
    const { agentId } = await newAgent({ categories_allowed: ['computer_software_stores'] });
    const asked = await preApprove(agentId, { category: 'computer_software_stores' });
    const a = await swipe({ agentId, amount: 3_000, merchantUrl: 'shop.example', category: 'betting_casino_gambling' });
    expect(a).toMatchObject({ approved: false, metadata: { reason_code: 'policy_denied' } });
    expect(await capture(asked)).toMatchObject({ status: 'uncaptured' });
    // An allowed category at the same vendor still matches.
    expect(await swipe({ agentId, amount: 3_000, merchantUrl: 'shop.example', category: 'computer_software_stores' })).toEqual({ approved: true, metadata: { decision_id: asked } });
  });

  test('the vendor denylisted after the approval was given: declined, never matched', async () => {
    const { agentId, policyId } = await newAgent();
    const asked = await preApprove(agentId);
    expect((await acct.test.patch(`/v1/policies/${policyId}`, { vendor_denylist: ['shop.example'] })).status).toBe(200);
    const a = await swipe({ agentId, amount: 3_000, merchantUrl: 'shop.example' });
    expect(a).toMatchObject({ approved: false, metadata: { reason_code: 'policy_denied' } });
    expect(await capture(asked)).toMatchObject({ status: 'uncaptured' });
  });

  test('the vendor taken off the allowlist after the approval was given: decided by rule 2 (held, so declined)', async () => {
    const { agentId, policyId } = await newAgent({ vendor_allowlist: ['shop.example'] });
    const asked = await preApprove(agentId);
    expect((await acct.test.patch(`/v1/policies/${policyId}`, { vendor_allowlist: ['other.example'] })).status).toBe(200);
    const a = await swipe({ agentId, amount: 3_000, merchantUrl: 'shop.example' });
    expect(a).toMatchObject({ approved: false, metadata: { reason_code: 'approval_required' } });
    expect(await capture(asked)).toMatchObject({ status: 'uncaptured' });
  });

  test("an unlisted vendor a reviewer approved is matched: the reviewer's approval is what the allowlist asks for", async () => {
    const { agentId } = await newAgent({ vendor_allowlist: ['other.example'] });
    const held = await swipe({ agentId, amount: 3_000, merchantUrl: 'shop.example' });
    expect(held).toMatchObject({ approved: false, metadata: { reason_code: 'approval_required' } });
    await resolveHeldDecision({ db: ctx.database.db, signer: ctx.signer }, { decisionId: held.metadata.decision_id!, outcome: 'approved', resolvedBy: 'key_r', actor: { type: 'reviewer', id: 'key_r' } });
    expect(await swipe({ agentId, amount: 3_000, merchantUrl: 'shop.example' })).toEqual({ approved: true, metadata: { decision_id: held.metadata.decision_id } });
  });

  test('a frozen or a deactivated agent: declined with its reason, the approval untouched', async () => {
    for (const [action, reason] of [['freeze', 'agent_frozen'], ['deactivate', 'agent_deactivated']] as const) {
      const { agentId } = await newAgent();
      const asked = await preApprove(agentId);
      const res = action === 'freeze' ? await acct.test.post(`/v1/agents/${agentId}/freeze`) : await acct.test.delete(`/v1/agents/${agentId}`);
      expect(res.status, res.text).toBe(200);
      expect(await swipe({ agentId, amount: 3_000, merchantUrl: 'shop.example' })).toEqual({ approved: false, metadata: { reason_code: reason } });
      expect((await acct.test.get(`/v1/decisions/${asked}`)).body.capture?.status ?? 'released').not.toBe('captured');
    }
  });
});
