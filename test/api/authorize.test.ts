import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestContext, policyBody, type Client, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;

beforeAll(async () => {
  // This file makes more than 100 test-mode requests a minute with one account's keys.
  ctx = await createTestContext({ testModeRateLimit: 10_000 });
  acct = await ctx.account('growth');
});
afterAll(() => ctx?.close());

/** A fresh policy and agent; returns the agent id. */
async function agentWith(policy: Record<string, unknown> = {}, client: Client = acct.test): Promise<{ agentId: string; policyId: string }> {
  const p = await client.post('/v1/policies', policyBody(policy));
  expect(p.status).toBe(201);
  const a = await client.post('/v1/agents', { name: 'buyer', policy_id: p.body.id });
  expect(a.status).toBe(201);
  return { agentId: a.body.id, policyId: p.body.id };
}

const spend = (agentId: string, over: Record<string, unknown> = {}, client: Client = acct.test) =>
  client.post('/v1/authorize', { agent_id: agentId, amount: 1_000, currency: 'USD', vendor: 'openai.com', ...over });

describe('POST /v1/authorize rules, in their fixed order', () => {
  test.each([
    ['inactive policy fails closed', { active: false }, {}, 'denied', 'policy_denied'],
    ['currency other than the policy currency', {}, { currency: 'EUR' }, 'denied', 'policy_denied'],
    ['denylisted vendor', { vendor_denylist: ['amazon.com'] }, { vendor: 'amazon.com' }, 'denied', 'policy_denied'],
    ['denylisted parent domain matches a subdomain URL', { vendor_denylist: ['Amazon.com'] }, { vendor: 'https://www.AWS.amazon.com./console' }, 'denied', 'policy_denied'],
    ['a lookalike domain is not a subdomain', { vendor_denylist: ['amazon.com'] }, { vendor: 'notamazon.com' }, 'approved', null],
    ['category not in categories_allowed', { categories_allowed: ['saas'] }, { category: 'travel' }, 'denied', 'policy_denied'],
    ['category missing while categories_allowed is set', { categories_allowed: ['saas'] }, {}, 'denied', 'policy_denied'],
    ['category matches case-insensitively', { categories_allowed: ['saas'] }, { category: 'SaaS' }, 'approved', null],
    ['amount above budget_single_max', { budget_single_max: 999 }, {}, 'denied', 'budget_exceeded'],
    ['amount above the monthly budget', { budget_monthly: 999 }, {}, 'denied', 'budget_exceeded'],
    ['amount above the daily budget', { budget_daily: 999 }, {}, 'denied', 'budget_exceeded'],
    ['amount above require_approval_above', { require_approval_above: 999 }, {}, 'held', 'approval_required'],
    ['amount equal to require_approval_above', { require_approval_above: 1_000 }, {}, 'approved', null],
    ['vendor not on a non-empty allowlist', { vendor_allowlist: ['anthropic.com'] }, {}, 'held', 'approval_required'],
    ['allowlisted vendor above the threshold', { vendor_allowlist: ['openai.com'], require_approval_above: 10 }, { vendor: 'api.openai.com' }, 'approved', null],
    ['denylisted vendor above the threshold', { vendor_denylist: ['openai.com'], require_approval_above: 10 }, {}, 'denied', 'policy_denied'],
    ['above single max and above the threshold', { budget_single_max: 500, require_approval_above: 100 }, {}, 'denied', 'budget_exceeded'],
    ['allowlisted but denylisted', { vendor_allowlist: ['openai.com'], vendor_denylist: ['openai.com'] }, {}, 'denied', 'policy_denied'],
    ['allowlisted but over budget', { vendor_allowlist: ['openai.com'], budget_monthly: 10 }, {}, 'denied', 'budget_exceeded'],
    ['everything within policy', {}, {}, 'approved', null],
  ])('%s → %s', async (_name, policy, request, decision, reasonCode) => {
    const { agentId, policyId } = await agentWith(policy);
    const res = await spend(agentId, request);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'decision', decision, reason_code: reasonCode, policy_applied: policyId, agent_id: agentId });
    if (decision === 'approved') {
      expect(res.body.authorization_token).toMatch(/^gca_/);
      expect(res.body).not.toHaveProperty('reason');
    } else {
      expect(res.body).not.toHaveProperty('authorization_token');
      expect(res.body.reason).toEqual(expect.any(String));
    }
  });

  test('an agent with no policy bound is denied (fail closed) with policy_applied null', async () => {
    const { agentId } = await agentWith();
    await ctx.database.db.updateTable('agents').set({ policy_id: null }).where('id', '=', agentId).execute();
    const res = await spend(agentId);
    expect(res.body).toMatchObject({ decision: 'denied', reason_code: 'policy_denied', policy_applied: null });
  });

  test('an agent whose KYC was rejected is denied', async () => {
    const { agentId } = await agentWith();
    await acct.test.patch(`/v1/agents/${agentId}`, { kyc_status: 'rejected' });
    expect((await spend(agentId)).body).toMatchObject({ decision: 'denied', reason_code: 'policy_denied' });
  });

  test('a frozen agent answers 403 agent_frozen; a deactivated one 403 agent_deactivated; neither is a decision', async () => {
    const { agentId } = await agentWith();
    await acct.test.post(`/v1/agents/${agentId}/freeze`);
    const frozen = await spend(agentId);
    expect(frozen.status).toBe(403);
    expect(frozen.body.error).toMatchObject({ code: 'agent_frozen', param: 'agent_id' });
    await acct.test.delete(`/v1/agents/${agentId}`);
    const gone = await spend(agentId);
    expect(gone.status).toBe(403);
    expect(gone.body.error.code).toBe('agent_deactivated');
    const decisions = await acct.test.get(`/v1/audit-logs?agent_id=${agentId}&type=authorization.decision`);
    expect(decisions.body.data).toEqual([]);
  });
});

describe('reasons are written for people, amounts in the currency\'s decimal places', () => {
  test('a held request above a threshold of 5000 minor units says 50.00 USD; the machine fields stay minor units', async () => {
    const { agentId } = await agentWith({ require_approval_above: 5_000 });
    const res = await spend(agentId, { amount: 7_500 });
    expect(res.body).toMatchObject({ decision: 'held', amount: 7_500, currency: 'USD', reason: 'Amount is above the approval threshold of 50.00 USD; a reviewer must approve.' });
    expect(res.text).not.toContain('minor units');
    const listed = (await acct.test.get(`/v1/approvals?status=pending&agent_id=${agentId}`)).body.data[0];
    expect(listed.reason).toBe('Amount is above the approval threshold of 50.00 USD; a reviewer must approve.');
  });
});

describe('budgets count approved spend and reserved holds, per agent', () => {
  test('approved spend accumulates across the month', async () => {
    const { agentId } = await agentWith({ budget_monthly: 2_500 });
    expect((await spend(agentId)).body.decision).toBe('approved');
    expect((await spend(agentId)).body.decision).toBe('approved');
    expect((await spend(agentId)).body).toMatchObject({ decision: 'denied', reason_code: 'budget_exceeded' });
    expect((await spend(agentId, { amount: 500 })).body.decision).toBe('approved');
  });

  test('a held amount is reserved against the budget', async () => {
    const { agentId } = await agentWith({ budget_monthly: 1_500, require_approval_above: 800 });
    const held = await spend(agentId);
    expect(held.body).toMatchObject({ decision: 'held', status: 'pending', resolved_at: null });
    expect(new Date(held.body.expires_at).getTime() - new Date(held.body.timestamp).getTime()).toBe(259_200_000);
    expect((await spend(agentId, { amount: 600 })).body).toMatchObject({ decision: 'denied', reason_code: 'budget_exceeded' });
    expect((await spend(agentId, { amount: 500 })).body.decision).toBe('approved');
  });

  test('the daily budget is reached exactly by a hold and a spend; one cent more is denied', async () => {
    const { agentId } = await agentWith({ budget_daily: 2_000, require_approval_above: 1_200 });
    expect((await spend(agentId, { amount: 1_500 })).body.decision).toBe('held');
    expect((await spend(agentId, { amount: 500 })).body.decision).toBe('approved');
    expect((await spend(agentId, { amount: 1 })).body).toMatchObject({ decision: 'denied', reason_code: 'budget_exceeded' });
  });

  test('budgets are per agent: two agents on one policy each get the full budget', async () => {
    const { agentId, policyId } = await agentWith({ budget_monthly: 1_000 });
    const other = (await acct.test.post('/v1/agents', { name: 'second', policy_id: policyId })).body.id;
    expect((await spend(agentId)).body.decision).toBe('approved');
    expect((await spend(other)).body.decision).toBe('approved');
  });

  test('denied requests do not consume budget', async () => {
    const { agentId } = await agentWith({ budget_monthly: 1_000, vendor_denylist: ['bad.com'] });
    expect((await spend(agentId, { vendor: 'bad.com' })).body.decision).toBe('denied');
    expect((await spend(agentId)).body.decision).toBe('approved');
  });
});

describe('validation', () => {
  test.each([
    [{ amount: 10.5 }, 'amount'],
    [{ amount: '1000' }, 'amount'],
    [{ amount: 0 }, 'amount'],
    [{ amount: -5 }, 'amount'],
    [{ amount: 2 ** 53 }, 'amount'],
    [{ currency: 'usd' }, 'currency'],
    [{ currency: 'DOLLARS' }, 'currency'],
    [{ vendor: '' }, 'vendor'],
    [{ vendor: 'v'.repeat(256) }, 'vendor'],
    [{ category: 'c'.repeat(65) }, 'category'],
    [{ metadata: { nested: { no: 1 } } }, 'metadata.nested'],
    [{ metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }, 'metadata'],
    [{ surprise: true }, 'surprise'],
  ])('%j answers 400 invalid_request with param %s', async (over, param) => {
    const { agentId } = await agentWith();
    const res = await spend(agentId, over);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
  });

  test('a missing agent_id answers 400; an unknown or other-account agent 404', async () => {
    const missing = await acct.test.post('/v1/authorize', { amount: 1, currency: 'USD', vendor: 'x' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.param).toBe('agent_id');
    expect((await spend('agt_doesnotexist')).status).toBe(404);
    const other = await ctx.account();
    const { agentId } = await agentWith({}, other.test);
    const res = await spend(agentId);
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'not_found', param: 'agent_id' });
  });

  test('a live key cannot authorize for a test agent (404)', async () => {
    const { agentId } = await agentWith();
    expect((await spend(agentId, {}, acct.live!)).status).toBe(404);
  });
});

describe('roles', () => {
  test('an agent key authorizes for its own agent only; a reviewer key cannot authorize', async () => {
    const { agentId } = await agentWith();
    const { agentId: otherAgent } = await agentWith();
    const agentKey = ctx.client((await acct.test.post('/v1/api-keys', { name: 'a', role: 'agent', agent_id: agentId })).body.key);
    const reviewer = ctx.client((await acct.test.post('/v1/api-keys', { name: 'r', role: 'reviewer' })).body.key);
    expect((await spend(agentId, {}, agentKey)).body.decision).toBe('approved');
    expect((await spend(otherAgent, {}, agentKey)).status).toBe(404);
    const r = await spend(agentId, {}, reviewer);
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('forbidden');
  });
});

describe('audit and events', () => {
  test('every decision has exactly one audit record, and the decision filter returns exactly the matching ones', async () => {
    const a = await ctx.account();
    const { agentId } = await agentWith({ require_approval_above: 5_000, vendor_denylist: ['bad.com'] }, a.test);
    const outcomes = [
      await spend(agentId, {}, a.test),
      await spend(agentId, { amount: 6_000 }, a.test),
      await spend(agentId, { vendor: 'bad.com' }, a.test),
      await spend(agentId, { amount: 2_000, metadata: { invoice: 'INV-1' } }, a.test),
    ];
    for (const [decision, expected] of [['approved', [0, 3]], ['held', [1]], ['denied', [2]]] as const) {
      const res = await a.test.get(`/v1/audit-logs?decision=${decision}`);
      expect(res.body.data.map((r: any) => r.decision_id).sort()).toEqual(expected.map((i) => outcomes[i]!.body.decision_id).sort());
      for (const r of res.body.data) expect(r).toMatchObject({ type: 'authorization.decision', decision, agent_id: agentId });
    }
    const withMeta = (await a.test.get(`/v1/audit-logs?decision=approved`)).body.data.find((r: any) => r.decision_id === outcomes[3]!.body.decision_id);
    expect(withMeta).toMatchObject({ amount: 2_000, currency: 'USD', vendor: 'openai.com', metadata: { invoice: 'INV-1' } });
    expect((await a.test.get('/v1/audit-logs/verify')).body.valid).toBe(true);

    const events = await ctx.database.db.selectFrom('events').selectAll().where('account_id', '=', a.id).execute();
    expect(events.map((e) => e.type).sort()).toEqual(['authorize.approved', 'authorize.approved', 'authorize.denied', 'authorize.held']);
    for (const e of events) expect(JSON.stringify(e.data)).not.toMatch(/gca_|authorization_token/);
    const outbox = await ctx.database.db.selectFrom('outbox').selectAll().where('topic', '=', 'held_decision').where('ref_id', '=', outcomes[1]!.body.decision_id).execute();
    expect(outbox).toHaveLength(1);
  });
});
