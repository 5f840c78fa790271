/**
 * Attack: an agent key, which may capture its own agent's approvals in full only, tries to free
 * budget or settle what is not its own: a part capture (the rest would leave the budget), another
 * agent's decision, a capture after an admin voided the approval, a void, a second capture with
 * another amount. Each is refused (403, 404 or 409) and leaves the approval, the agent's spend, the
 * audit log and the events exactly as they were.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestContext, policyBody, type Client, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let owner: TestAccount;
let mine: string;
let theirs: string;
let agentKey: Client;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  owner = await ctx.account('growth');
  const policy = await owner.test.post('/v1/policies', policyBody({ require_approval_above: 5_000 }));
  mine = (await owner.test.post('/v1/agents', { name: 'mine', policy_id: policy.body.id })).body.id;
  theirs = (await owner.test.post('/v1/agents', { name: 'theirs', policy_id: policy.body.id })).body.id;
  agentKey = ctx.client((await owner.test.post('/v1/api-keys', { name: 'a', role: 'agent', agent_id: mine })).body.key);
});
afterAll(() => ctx?.close());

async function approval(agentId = mine, amount = 1_000) {
  const res = await owner.test.post('/v1/authorize', { agent_id: agentId, amount, currency: 'USD', vendor: 'shop.example' });
  expect(res.body.decision).toBe('approved');
  return res.body as { decision_id: string };
}

/** Everything an attempt could have changed. */
async function state(decisionId: string) {
  const row = await ctx.database.db.selectFrom('decisions').selectAll().where('id', '=', decisionId).executeTakeFirstOrThrow();
  const spend = await ctx.database.db.selectFrom('agent_spend').select(['agent_id', 'period', 'approved', 'reserved']).where('agent_id', 'in', [mine, theirs]).orderBy(['agent_id', 'period']).execute();
  const audit = (await owner.test.get('/v1/audit-logs?limit=100')).body.data.length;
  const events = (await owner.test.get('/v1/events?limit=100')).body.data.length;
  return { row, spend, audit, events };
}

async function refused(decisionId: string, send: () => Promise<{ status: number; body: any }>, status: number, code: string) {
  const before = await state(decisionId);
  const res = await send();
  expect(res.status).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(await state(decisionId)).toEqual(before);
  return res;
}

describe("an agent key capturing its own agent's approval", () => {
  test.each([1, 999])('a part capture (%i of 1000) → 403 forbidden, nothing changes; with or without an Idempotency-Key', async (amount) => {
    const d = await approval();
    const res = await refused(d.decision_id, () => agentKey.post(`/v1/decisions/${d.decision_id}/capture`, { amount }), 403, 'forbidden');
    expect(res.body.error.message).toMatch(/in full only/);
    await refused(d.decision_id, () => agentKey.post(`/v1/decisions/${d.decision_id}/capture`, { amount, metadata: { ref: 'x' } }, { 'idempotency-key': `part-${d.decision_id}` }), 403, 'forbidden');
    // The refusal did not bind the key: the same key captures in full afterwards.
    const full = await agentKey.post(`/v1/decisions/${d.decision_id}/capture`, {}, { 'idempotency-key': `part-${d.decision_id}` });
    expect(full.status).toBe(200);
    expect(full.body.capture).toMatchObject({ status: 'captured', captured_amount: 1_000 });
  });

  test('more than approved → 400 amount, as for admins; nothing changes', async () => {
    const d = await approval();
    const res = await refused(d.decision_id, () => agentKey.post(`/v1/decisions/${d.decision_id}/capture`, { amount: 1_001 }), 400, 'invalid_request');
    expect(res.body.error.param).toBe('amount');
  });

  test('in full (no amount, or the whole amount) → 200; a second capture, even in full, → 409', async () => {
    for (const body of [{}, { amount: 1_000 }]) {
      const d = await approval();
      const res = await agentKey.post(`/v1/decisions/${d.decision_id}/capture`, body);
      expect(res.status).toBe(200);
      expect(res.body.capture).toMatchObject({ status: 'captured', captured_amount: 1_000, metadata: {} });
      await refused(d.decision_id, () => agentKey.post(`/v1/decisions/${d.decision_id}/capture`, {}), 409, 'conflict');
    }
  });

  test('after an admin voided it → 409 conflict; the void stands and nothing is counted again', async () => {
    const d = await approval();
    expect((await owner.test.post(`/v1/decisions/${d.decision_id}/void`)).status).toBe(200);
    await refused(d.decision_id, () => agentKey.post(`/v1/decisions/${d.decision_id}/capture`, {}), 409, 'conflict');
    expect((await agentKey.get(`/v1/decisions/${d.decision_id}`)).body.capture.status).toBe('voided');
  });

  test('a void by the agent key → 403 forbidden (voids free budget: admin keys only)', async () => {
    const d = await approval();
    await refused(d.decision_id, () => agentKey.post(`/v1/decisions/${d.decision_id}/void`), 403, 'forbidden');
  });

  test('a pending hold → 409 conflict (nothing to capture yet)', async () => {
    const held = await agentKey.post('/v1/authorize', { agent_id: mine, amount: 6_000, currency: 'USD', vendor: 'shop.example' });
    expect(held.body.decision).toBe('held');
    await refused(held.body.decision_id, () => agentKey.post(`/v1/decisions/${held.body.decision_id}/capture`, {}), 409, 'conflict');
  });
});

describe("another agent's decision", () => {
  test('capturing it, in full or in part, answers 404 as reading it does (no existence oracle); nothing changes', async () => {
    const d = await approval(theirs);
    expect((await agentKey.get(`/v1/decisions/${d.decision_id}`)).status).toBe(404);
    for (const body of [{}, { amount: 1_000 }, { amount: 1 }]) {
      const res = await refused(d.decision_id, () => agentKey.post(`/v1/decisions/${d.decision_id}/capture`, body), 404, 'not_found');
      expect(res.body.error.param).toBe('id');
    }
    await refused(d.decision_id, () => agentKey.post(`/v1/decisions/${d.decision_id}/capture`, {}, { 'idempotency-key': `theirs-${d.decision_id}` }), 404, 'not_found');
    // Its own admin can still capture it.
    expect((await owner.test.post(`/v1/decisions/${d.decision_id}/capture`, {})).status).toBe(200);
  });

  test('an unknown id and an id of another account answer the same 404', async () => {
    const stranger = await ctx.account('growth');
    const policy = await stranger.test.post('/v1/policies', policyBody());
    const agent = (await stranger.test.post('/v1/agents', { name: 'x', policy_id: policy.body.id })).body.id;
    const foreign = (await stranger.test.post('/v1/authorize', { agent_id: agent, amount: 100, currency: 'USD', vendor: 'shop.example' })).body.decision_id;
    const a = await agentKey.post(`/v1/decisions/${foreign}/capture`, {});
    const b = await agentKey.post('/v1/decisions/dec_doesnotexist/capture', {});
    expect([a.status, b.status]).toEqual([404, 404]);
    const { request_id: _a, ...errorA } = a.body.error;
    const { request_id: _b, ...errorB } = b.body.error;
    expect(errorA).toEqual(errorB);
  });
});

describe('capture metadata from an agent key is held to the authorize rules', () => {
  test.each([
    ['51 keys', Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]))],
    ['a key of 41 characters', { ['k'.repeat(41)]: 'v' }],
    ['a string of 501 characters', { tx: 'x'.repeat(501) }],
    ['a nested object', { tx: { hash: '0x1' } }],
    ['a control character', { tx: 'a\u0000b' }],
  ])('%s → 400 invalid_request naming metadata; nothing changes', async (_name, metadata) => {
    const d = await approval();
    const res = await refused(d.decision_id, () => agentKey.post(`/v1/decisions/${d.decision_id}/capture`, { metadata }), 400, 'invalid_request');
    expect(res.body.error.param).toMatch(/^metadata/);
  });
});
