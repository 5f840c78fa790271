/**
 * Approval chains through the API (docs/api.md, "Approval chains"): the policy fields and their
 * validation, the quorum fixed on a hold when it is held, approvals counted by the reviewer
 * endpoint, and the simulation. The engine is the FAKE inline gateway
 * (test/support/fake-gateway.ts), which records approvals through the same activity the workflow
 * uses; the workflow itself is covered by test/workflows/approval-chains.server.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHeldActivities } from '../../activities/held-authorization.js';
import { approvalsRequiredFor } from '../../src/policies/approval-rules.js';
import { createTestContext, policyBody, type Client, type TestAccount, type TestContext } from '../support/context.js';
import { FakeInlineGateway } from '../support/fake-gateway.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ gateway: (deps) => new FakeInlineGateway(deps), testModeRateLimit: 100_000 });
});
afterAll(() => ctx?.close());

async function reviewerKey(a: TestAccount, name: string): Promise<{ id: string; client: Client }> {
  const res = await a.test.post('/v1/api-keys', { name, mode: 'test', role: 'reviewer' });
  expect(res.status).toBe(201);
  return { id: res.body.id, client: ctx.client(res.body.key) };
}

async function agentWith(a: TestAccount, policy: Record<string, unknown>): Promise<{ agentId: string; policyId: string }> {
  const p = await a.test.post('/v1/policies', policyBody({ require_approval_above: 100, ...policy }));
  expect(p.status).toBe(201);
  const agent = await a.test.post('/v1/agents', { name: 'bot', policy_id: p.body.id });
  return { agentId: agent.body.id, policyId: p.body.id };
}

const hold = async (a: TestAccount, agentId: string, amount: number) => {
  const res = await a.test.post('/v1/authorize', { agent_id: agentId, amount, currency: 'USD', vendor: 'shop.example' });
  expect(res.body.decision).toBe('held');
  return res.body;
};

describe('policy fields approval_rules and escalate_after_seconds', () => {
  test('default to [] and null, and round-trip', async () => {
    const a = await ctx.account();
    const plain = await a.test.post('/v1/policies', policyBody());
    expect(plain.body).toMatchObject({ approval_rules: [], escalate_after_seconds: null });
    const rules = [{ above: 0, approvals_required: 1 }, { above: 100_000, approvals_required: 3 }];
    const full = await a.test.post('/v1/policies', policyBody({ approval_rules: rules, escalate_after_seconds: 3_600 }));
    expect(full.status).toBe(201);
    expect(full.body).toMatchObject({ approval_rules: rules, escalate_after_seconds: 3_600 });
    expect((await a.test.get(`/v1/policies/${full.body.id}`)).body).toMatchObject({ approval_rules: rules, escalate_after_seconds: 3_600 });
    const cleared = await a.test.patch(`/v1/policies/${full.body.id}`, { approval_rules: [], escalate_after_seconds: null });
    expect(cleared.body).toMatchObject({ approval_rules: [], escalate_after_seconds: null });
  });

  test.each([
    [{ approval_rules: 'two' }, 'approval_rules'],
    [{ approval_rules: Array.from({ length: 6 }, (_, i) => ({ above: i, approvals_required: 2 })) }, 'approval_rules'],
    [{ approval_rules: [{ above: -1, approvals_required: 2 }] }, 'approval_rules.0.above'],
    [{ approval_rules: [{ above: 1.5, approvals_required: 2 }] }, 'approval_rules.0.above'],
    [{ approval_rules: [{ approvals_required: 2 }] }, 'approval_rules.0.above'],
    [{ approval_rules: [{ above: 0, approvals_required: 2 }, { above: 10, approvals_required: 0 }] }, 'approval_rules.1.approvals_required'],
    [{ approval_rules: [{ above: 0, approvals_required: 6 }] }, 'approval_rules.0.approvals_required'],
    [{ approval_rules: [{ above: 0, approvals_required: '2' }] }, 'approval_rules.0.approvals_required'],
    [{ approval_rules: [{ above: 0, approvals_required: 2, who: 'cfo' }] }, 'approval_rules.0.who'],
    [{ escalate_after_seconds: 59 }, 'escalate_after_seconds'],
    [{ escalate_after_seconds: 0 }, 'escalate_after_seconds'],
    [{ escalate_after_seconds: 120.5 }, 'escalate_after_seconds'],
    [{ escalate_after_seconds: 3_601, approval_timeout_seconds: 3_600 }, 'escalate_after_seconds'],
    [{ escalate_after_seconds: 259_201 }, 'escalate_after_seconds'],
  ])('create with %j → 400 invalid_request naming %s, nothing written', async (policy, param) => {
    const a = await ctx.account();
    const res = await a.test.post('/v1/policies', policyBody(policy));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
    expect((await a.test.get('/v1/policies')).body.data).toEqual([]);
  });

  test('escalate_after_seconds may equal approval_timeout_seconds (default 259,200)', async () => {
    const a = await ctx.account();
    expect((await a.test.post('/v1/policies', policyBody({ escalate_after_seconds: 259_200 }))).status).toBe(201);
    expect((await a.test.post('/v1/policies', policyBody({ escalate_after_seconds: 60, approval_timeout_seconds: 60 }))).status).toBe(201);
  });

  test('update: escalation past the (current or new) approval timeout → 400 naming the field sent, the policy unchanged', async () => {
    const a = await ctx.account();
    const p = await a.test.post('/v1/policies', policyBody({ approval_timeout_seconds: 3_600, escalate_after_seconds: 600 }));
    const tooLate = await a.test.patch(`/v1/policies/${p.body.id}`, { escalate_after_seconds: 7_200 });
    expect(tooLate.status).toBe(400);
    expect(tooLate.body.error).toMatchObject({ code: 'invalid_request', param: 'escalate_after_seconds' });
    const shorter = await a.test.patch(`/v1/policies/${p.body.id}`, { approval_timeout_seconds: 300 });
    expect(shorter.status).toBe(400);
    expect(shorter.body.error).toMatchObject({ code: 'invalid_request', param: 'approval_timeout_seconds' });
    const both = await a.test.patch(`/v1/policies/${p.body.id}`, { approval_timeout_seconds: 300, escalate_after_seconds: 120 });
    expect(both.status).toBe(200);
    expect((await a.test.get(`/v1/policies/${p.body.id}`)).body).toMatchObject({ approval_timeout_seconds: 300, escalate_after_seconds: 120 });
    const bad = await a.test.patch(`/v1/policies/${p.body.id}`, { approval_rules: [{ above: 0, approvals_required: 9 }] });
    expect(bad.body.error).toMatchObject({ code: 'invalid_request', param: 'approval_rules.0.approvals_required' });
  });

  test('a policy update is audited with the new fields', async () => {
    const a = await ctx.account();
    const p = await a.test.post('/v1/policies', policyBody());
    await a.test.patch(`/v1/policies/${p.body.id}`, { approval_rules: [{ above: 500, approvals_required: 2 }] });
    const audit = await a.test.get('/v1/audit-logs?type=policy.updated');
    expect(audit.body.data[0].metadata).toEqual({ changes: { approval_rules: [{ above: 500, approvals_required: 2 }] } });
  });
});

describe('the quorum a hold needs', () => {
  const rules = [
    { above: 5_000, approvals_required: 3 },
    { above: 1_000, approvals_required: 2 },
  ];

  test.each([
    [500, 1],
    [1_000, 1],
    [1_001, 2],
    [5_000, 2],
    [5_001, 3],
  ])('a hold of %i needs %i approval(s) (the rule with the largest above below the amount)', async (amount, required) => {
    expect(approvalsRequiredFor(rules, amount)).toBe(required);
    const a = await ctx.account();
    const { agentId } = await agentWith(a, { approval_rules: rules });
    const held = await hold(a, agentId, amount);
    expect(held).toMatchObject({ status: 'pending', approvals_required: required, approvals: [] });
  });

  test('is fixed when held: a later policy change does not move it', async () => {
    const a = await ctx.account();
    const { agentId, policyId } = await agentWith(a, { approval_rules: [{ above: 0, approvals_required: 2 }] });
    const held = await hold(a, agentId, 700);
    await a.test.patch(`/v1/policies/${policyId}`, { approval_rules: [{ above: 0, approvals_required: 4 }] });
    expect((await a.test.get(`/v1/decisions/${held.decision_id}`)).body.approvals_required).toBe(2);
    expect((await a.test.get(`/v1/approvals?status=pending`)).body.data[0]).toMatchObject({ decision_id: held.decision_id, approvals_required: 2, approvals: [] });
  });

  test('decisions that were never held carry neither field', async () => {
    const a = await ctx.account();
    const { agentId } = await agentWith(a, { approval_rules: [{ above: 0, approvals_required: 2 }] });
    const res = await a.test.post('/v1/authorize', { agent_id: agentId, amount: 50, currency: 'USD', vendor: 'shop.example' });
    expect(res.body.decision).toBe('approved');
    expect(res.body).not.toHaveProperty('approvals_required');
    expect(res.body).not.toHaveProperty('approvals');
  });

  test('two reviewer keys: pending after the first, 409 for its second, approved with a token after the second; every approval audited and the chain verifies', async () => {
    const a = await ctx.account();
    const [ann, ben] = [await reviewerKey(a, 'Ann'), await reviewerKey(a, 'Ben')];
    const { agentId } = await agentWith(a, { approval_rules: [{ above: 1_000, approvals_required: 2 }] });
    const held = await hold(a, agentId, 2_000);
    const first = await ann.client.post(`/v1/approvals/${held.decision_id}/approve`, { note: 'looks right' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'pending', decision: 'held', approvals: [{ api_key_id: ann.id, name: 'Ann', note: 'looks right' }] });
    expect(Date.parse(first.body.approvals[0].at)).not.toBeNaN();
    expect(Object.keys(first.body.approvals[0])).toEqual(['api_key_id', 'name', 'note', 'at']);
    const twice = await ann.client.post(`/v1/approvals/${held.decision_id}/approve`);
    expect(twice.status).toBe(409);
    expect(twice.body.error).toMatchObject({ code: 'conflict', param: 'decision_id' });
    const second = await ben.client.post(`/v1/approvals/${held.decision_id}/approve`);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ status: 'approved', decision: 'approved', approvals: [{ api_key_id: ann.id }, { api_key_id: ben.id, name: 'Ben', note: null }] });
    expect(second.body.authorization_token).toMatch(/^gca_/);
    const audit = (await a.test.get(`/v1/audit-logs?agent_id=${agentId}`)).body.data.filter((r: any) => r.decision_id === held.decision_id);
    expect(audit.filter((r: any) => r.type === 'approval.recorded').map((r: any) => r.actor.id).sort()).toEqual([ann.id, ben.id].sort());
    expect(audit.filter((r: any) => r.type === 'approval.completed')).toHaveLength(1);
    expect((await a.test.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true });
  });
});

describe('escalation, as the workflow records it', () => {
  test('escalateHold emits one approval.escalated event and audit record however often it runs; a resolved hold never escalates', async () => {
    const a = await ctx.account();
    const { agentId } = await agentWith(a, { escalate_after_seconds: 600 });
    const held = await hold(a, agentId, 500);
    const row = await ctx.database.db.selectFrom('decisions').select(['created_at', 'escalates_at', 'escalated_at']).where('id', '=', held.decision_id).executeTakeFirstOrThrow();
    expect(row.escalates_at!.getTime() - row.created_at.getTime()).toBe(600_000);
    expect(row.escalated_at).toBeNull();
    const activities = createHeldActivities({ db: ctx.database.db, signer: ctx.signer });
    expect(await activities.escalateHold({ decisionId: held.decision_id })).toEqual({ decisionId: held.decision_id, escalated: true, status: 'pending' });
    // A retried activity, or a run started again by the reconciler: still escalated, nothing new.
    expect(await activities.escalateHold({ decisionId: held.decision_id })).toEqual({ decisionId: held.decision_id, escalated: true, status: 'pending' });
    const events = (await a.test.get('/v1/events?type=approval.escalated')).body.data;
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({ decision_id: held.decision_id, approvals_required: 1, approvals: [], expires_at: held.expires_at });
    expect((await a.test.get('/v1/audit-logs?type=approval.escalated')).body.data).toHaveLength(1);

    const other = await hold(a, agentId, 600);
    await a.test.post(`/v1/approvals/${other.decision_id}/deny`);
    expect(await activities.escalateHold({ decisionId: other.decision_id })).toEqual({ decisionId: other.decision_id, escalated: false, status: 'denied' });
    expect((await a.test.get('/v1/events?type=approval.escalated')).body.data).toHaveLength(1);
    expect((await a.test.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true });
  });

  test('approval.escalated is an event type endpoints can subscribe to', async () => {
    const a = await ctx.account();
    const res = await a.test.post('/v1/webhook-endpoints', { url: 'https://93.184.216.34/hook', events: ['approval.escalated'] });
    expect(res.status).toBe(201);
    expect(res.body.events).toEqual(['approval.escalated']);
  });
});

describe('POST /v1/policies/simulate with approval chains', () => {
  test('a held result says (under `hold`) how many approvals it would need and when it would escalate', async () => {
    const a = await ctx.account();
    const { agentId } = await agentWith(a, {});
    const res = await a.test.post('/v1/policies/simulate', {
      policy: policyBody({ require_approval_above: 100, approval_rules: [{ above: 1_000, approvals_required: 2 }], escalate_after_seconds: 600 }),
      requests: [50, 500, 5_000].map((amount) => ({ agent_id: agentId, amount, currency: 'USD', vendor: 'shop.example' })),
    });
    expect(res.status).toBe(200);
    const [small, one, two] = res.body.results;
    expect(small.would_be).toEqual({ decision: 'approved', reason_code: null });
    expect(small).not.toHaveProperty('hold');
    expect(one.would_be).toEqual({ decision: 'held', reason_code: 'approval_required' });
    expect(one.hold).toMatchObject({ approvals_required: 1 });
    expect(two.hold).toMatchObject({ approvals_required: 2 });
    expect(Date.parse(two.hold.escalates_at)).toBeGreaterThan(Date.now() + 500_000);
  });

  test('validates the draft like a create: param under policy', async () => {
    const a = await ctx.account();
    const { agentId } = await agentWith(a, {});
    const res = await a.test.post('/v1/policies/simulate', {
      policy: policyBody({ approval_rules: [{ above: 0, approvals_required: 0 }] }),
      requests: [{ agent_id: agentId, amount: 500, currency: 'USD', vendor: 'shop.example' }],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('policy.approval_rules.0.approvals_required');
  });
});

describe('the OpenAPI document', () => {
  test('lists approval_rules and escalate_after_seconds on policy create and update, as the schemas define them', async () => {
    const doc = (await ctx.raw('/v1/openapi.json')).body;
    for (const [path, method] of [['/v1/policies', 'post'], ['/v1/policies/{id}', 'patch']] as const) {
      const schema = doc.paths[path][method].requestBody.content['application/json'].schema;
      expect(schema.properties.approval_rules).toMatchObject({ type: 'array', maxItems: 5 });
      expect(schema.properties.approval_rules.items).toMatchObject({ required: ['above', 'approvals_required'] });
      expect(schema.properties.approval_rules.items.properties.approvals_required).toMatchObject({ minimum: 1, maximum: 5 });
      expect(JSON.stringify(schema.properties.escalate_after_seconds)).toContain('"minimum":60');
    }
  });
});
