/**
 * Attack: a key that must not settle an approval tries to capture or void it, or to use its token
 * up: another account's admin key, the other mode's admin key, a reviewer key, the agent's own key
 * (which may capture its approvals in full only, so it tries a part capture and a void).
 * Every attempt is refused (404 outside the scope, 403 inside it) and leaves the approval, the
 * agent's spend, the audit log and the events exactly as they were.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestContext, policyBody, type Client, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let owner: TestAccount;
let stranger: TestAccount;
let agentId: string;
let reviewer: Client;
let agentKey: Client;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  owner = await ctx.account('growth');
  stranger = await ctx.account('growth');
  const policy = await owner.test.post('/v1/policies', policyBody());
  agentId = (await owner.test.post('/v1/agents', { name: 'victim', policy_id: policy.body.id })).body.id;
  reviewer = ctx.client((await owner.test.post('/v1/api-keys', { name: 'r', role: 'reviewer' })).body.key);
  agentKey = ctx.client((await owner.test.post('/v1/api-keys', { name: 'a', role: 'agent', agent_id: agentId })).body.key);
});
afterAll(() => ctx?.close());

async function approval() {
  const res = await owner.test.post('/v1/authorize', { agent_id: agentId, amount: 1_000, currency: 'USD', vendor: 'shop.example' });
  expect(res.body.decision).toBe('approved');
  return res.body as { decision_id: string; authorization_token: string };
}

/** Everything an attempt could have changed. */
async function state(decisionId: string) {
  const decision = (await owner.test.get(`/v1/decisions/${decisionId}`)).body;
  const spend = await ctx.database.db.selectFrom('agent_spend').select(['period', 'approved', 'reserved']).where('agent_id', '=', agentId).orderBy('period').execute();
  const audit = (await owner.test.get('/v1/audit-logs?limit=100')).body.data.length;
  const events = (await owner.test.get('/v1/events?limit=100')).body.data.length;
  const consumed = (await ctx.database.db.selectFrom('decisions').select('token_consumed_at').where('id', '=', decisionId).executeTakeFirstOrThrow()).token_consumed_at;
  return { decision, spend, audit, events, consumed };
}

const attackers: [string, () => Client, number][] = [
  ["another account's admin key", () => stranger.test, 404],
  ['the live admin key of the same account', () => owner.live!, 404],
  ['a reviewer key of the account', () => reviewer, 403],
  ["the agent's own key", () => agentKey, 403],
];

describe.each(attackers)('%s', (_name, client, status) => {
  test.each(['capture', 'void'])(`cannot %s the approval (${status}), and nothing changes`, async (action) => {
    const d = await approval();
    const before = await state(d.decision_id);
    const res = await client().post(`/v1/decisions/${d.decision_id}/${action}`, action === 'capture' ? { amount: 1 } : undefined);
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(status === 404 ? 'not_found' : 'forbidden');
    expect(await state(d.decision_id)).toEqual(before);
  });

  test('cannot settle it with an Idempotency-Key either (the key stays unbound)', async () => {
    const d = await approval();
    const before = await state(d.decision_id);
    // A part capture: the agent's own key may capture in full (test/security/agent-capture-in-full.test.ts), never in part.
    const res = await client().post(`/v1/decisions/${d.decision_id}/capture`, { amount: 1 }, { 'idempotency-key': `steal-${d.decision_id}` });
    expect(res.status).toBe(status);
    expect(await state(d.decision_id)).toEqual(before);
  });
});

describe('using a token up', () => {
  test.each([
    ['a reviewer key', () => reviewer, 403],
    ["the agent's own key", () => agentKey, 403],
  ] as const)('%s cannot consume a token (%i); the token still verifies', async (_name, client, status) => {
    const d = await approval();
    const res = await client().post('/v1/authorization-tokens/verify', { token: d.authorization_token, consume: true });
    expect(res.status).toBe(status);
    expect((await owner.test.post('/v1/authorization-tokens/verify', { token: d.authorization_token })).body.valid).toBe(true);
  });

  test("another account's or mode's admin key cannot consume it: wrong_audience, and it still verifies for its owner", async () => {
    const d = await approval();
    for (const client of [stranger.test, owner.live!]) {
      const res = await client.post('/v1/authorization-tokens/verify', { token: d.authorization_token, consume: true });
      expect(res.body).toEqual({ valid: false, claims: null, error: 'wrong_audience' });
    }
    expect((await owner.test.post('/v1/authorization-tokens/verify', { token: d.authorization_token, consume: true })).body.valid).toBe(true);
  });

  test('a token replayed after it was consumed is refused every time, also as a plain verify', async () => {
    const d = await approval();
    expect((await owner.test.post('/v1/authorization-tokens/verify', { token: d.authorization_token, consume: true })).body.valid).toBe(true);
    for (let i = 0; i < 3; i++) {
      for (const body of [{ token: d.authorization_token, consume: true }, { token: d.authorization_token }]) {
        expect((await owner.test.post('/v1/authorization-tokens/verify', body)).body).toEqual({ valid: false, claims: null, error: 'consumed' });
        expect((await reviewer.post('/v1/authorization-tokens/verify', { token: d.authorization_token })).body.error).toBe('consumed');
      }
    }
  });
});

describe('capture above the approved amount', () => {
  test.each([1_001, 1_000_000, Number.MAX_SAFE_INTEGER])('%i → 400 amount, and nothing changes', async (amount) => {
    const d = await approval();
    const before = await state(d.decision_id);
    const res = await owner.test.post(`/v1/decisions/${d.decision_id}/capture`, { amount });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'amount' });
    expect(await state(d.decision_id)).toEqual(before);
    // And the approval can still be captured properly afterwards.
    expect((await owner.test.post(`/v1/decisions/${d.decision_id}/capture`, { amount: 1_000 })).status).toBe(200);
  });
});
