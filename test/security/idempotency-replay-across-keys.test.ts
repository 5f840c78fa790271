/**
 * Attack: a key of lower role (or another agent's key) repeats an admin's POST with the same
 * Idempotency-Key and body, hoping to be handed the admin's stored response (raw API key, webhook
 * secret, vault token, another agent's gca_ token); or poisons a key with a stored 403.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { purgeExpiredKeys } from '../../src/idempotency/idempotency.repository.js';
import { createTestContext, policyBody, type Client, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;
let admin: Client;
let secondAdmin: Client;
let reviewer: Client;
let agentKey: Client;
let agentId: string;
let otherAgentId: string;

const SECRET_SHAPES = /gc_(test|live)_|whsec_|dlt_|gca_/;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 10_000, allowPrivateUrls: true });
  acct = await ctx.account('growth');
  admin = acct.test;
  const policy = (await admin.post('/v1/policies', policyBody())).body.id;
  agentId = (await admin.post('/v1/agents', { name: 'buyer', policy_id: policy })).body.id;
  otherAgentId = (await admin.post('/v1/agents', { name: 'other buyer', policy_id: policy })).body.id;
  secondAdmin = ctx.client((await admin.post('/v1/api-keys', { name: 'second admin', role: 'admin' })).body.key);
  reviewer = ctx.client((await admin.post('/v1/api-keys', { name: 'reviewer', role: 'reviewer' })).body.key);
  agentKey = ctx.client((await admin.post('/v1/api-keys', { name: 'agent', role: 'agent', agent_id: otherAgentId })).body.key);
});
afterAll(() => ctx?.close());

const idem = (key: string) => ({ 'idempotency-key': key });

function expectNoSecret(res: { text: string; headers: Headers }) {
  expect(res.text).not.toMatch(SECRET_SHAPES);
  expect(res.headers.get('idempotent-replayed')).toBeNull();
}

describe('stored responses belong to the API key that sent the request', () => {
  test.each([
    ['reviewer', () => reviewer, 403],
    ['agent', () => agentKey, 403],
  ])("a %s key repeating an admin's POST /v1/api-keys never receives the admin's new raw key", async (_role, attacker, status) => {
    const key = `mint-${_role}`;
    const body = { name: 'deploy bot', role: 'admin' };
    const first = await admin.post('/v1/api-keys', body, idem(key));
    expect(first.status).toBe(201);
    const stolen = await attacker().post('/v1/api-keys', body, idem(key));
    expect(stolen.status).toBe(status);
    expect(stolen.body.error).toMatchObject({ code: 'forbidden' });
    expectNoSecret(stolen);
  });

  test("another admin key of the same account does not see the first key's stored response: its request runs anew", async () => {
    const body = { name: 'ops', role: 'reviewer' };
    const first = await admin.post('/v1/api-keys', body, idem('shared-by-admins'));
    const second = await secondAdmin.post('/v1/api-keys', body, idem('shared-by-admins'));
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.id).not.toBe(first.body.id);
    expect(second.body.key).not.toBe(first.body.key);
    // The first key still gets its own response replayed.
    const replay = await admin.post('/v1/api-keys', body, idem('shared-by-admins'));
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
  });

  test('a reviewer cannot obtain a webhook secret from a create or a rotation', async () => {
    const body = { url: 'https://93.184.216.34/hook', events: ['*'] };
    const created = await admin.post('/v1/webhook-endpoints', body, idem('wh-create'));
    expect(created.status).toBe(201);
    expectNoSecret(await reviewer.post('/v1/webhook-endpoints', body, idem('wh-create')));
    const rotated = await admin.post(`/v1/webhook-endpoints/${created.body.id}/rotate-secret`, undefined, idem('wh-rotate'));
    expect(rotated.status).toBe(200);
    const stolen = await reviewer.post(`/v1/webhook-endpoints/${created.body.id}/rotate-secret`, undefined, idem('wh-rotate'));
    expect(stolen.status).toBe(403);
    expectNoSecret(stolen);
  });

  test('a reviewer cannot obtain a dlt_ vault token', async () => {
    const qsAgent = (await admin.post('/agents', { name: 'shopper', agent_type: 'procurement' })).body.id;
    const body = { name: 'Groceries', agent_id: qsAgent, daily_limit: 100, max_single_transaction: 40 };
    const vault = await admin.post('/vaults', body, idem('vault-1'));
    expect(vault.status).toBe(201);
    const stolen = await reviewer.post('/vaults', body, idem('vault-1'));
    expect(stolen.status).toBe(403);
    expectNoSecret(stolen);
  });

  test("an agent key cannot obtain another agent's gca_ token", async () => {
    const body = { agent_id: agentId, amount: 500, currency: 'USD', vendor: 'openai.com' };
    const approved = await admin.post('/v1/authorize', body, idem('pay-1'));
    expect(approved.body.authorization_token).toMatch(/^gca_/);
    const stolen = await agentKey.post('/v1/authorize', body, idem('pay-1'));
    expect(stolen.status).toBe(404);
    expectNoSecret(stolen);
  });
});

describe('nothing is looked up or stored before the request may run', () => {
  test("a 403 from a low-role key does not bind the key: the admin's later request with it runs", async () => {
    const body = { name: 'later', role: 'admin' };
    expect((await reviewer.post('/v1/api-keys', body, idem('poison'))).status).toBe(403);
    const res = await admin.post('/v1/api-keys', body, idem('poison'));
    expect(res.status).toBe(201);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(res.body.key).toMatch(/^gc_test_/);
  });

  test('the role check runs before the lookup: a key reusing its own Idempotency-Key on a route it may not call gets 403, not 409', async () => {
    const frozen = await reviewer.post(`/v1/agents/${agentId}/freeze`, undefined, idem('reviewer-own'));
    expect(frozen.status).toBe(200);
    await admin.post(`/v1/agents/${agentId}/unfreeze`);
    const res = await reviewer.post('/v1/api-keys', { name: 'x', role: 'admin' }, idem('reviewer-own'));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
  });

  test('a validation failure is not stored: the corrected request with the same key runs', async () => {
    const bad = await admin.post('/v1/api-keys', { name: 'x', role: 'superuser' }, idem('typo'));
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_request', param: 'role' });
    const good = await admin.post('/v1/api-keys', { name: 'x', role: 'reviewer' }, idem('typo'));
    expect(good.status).toBe(201);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
  });

  test('a refusal found by the service (agent key without agent_id) is not stored either', async () => {
    const bad = await admin.post('/v1/api-keys', { name: 'x', role: 'agent' }, idem('svc-400'));
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_request', param: 'agent_id' });
    const good = await admin.post('/v1/api-keys', { name: 'x', role: 'agent', agent_id: agentId }, idem('svc-400'));
    expect(good.status).toBe(201);
  });
});

describe('storage at rest', () => {
  test('a stored response that carries a secret is encrypted: the table never holds the raw key', async () => {
    const res = await admin.post('/v1/api-keys', { name: 'at rest', role: 'admin' }, idem('at-rest'));
    expect(res.status).toBe(201);
    const rows = await ctx.database.db.selectFrom('idempotency_keys').selectAll().where('account_id', '=', acct.id).where('key', '=', 'at-rest').execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows[0])).not.toContain(res.body.key);
    expect(rows[0]!.response_body ?? '').not.toMatch(SECRET_SHAPES);
    // And it still replays byte for byte to the key that made it.
    const replay = await admin.post('/v1/api-keys', { name: 'at rest', role: 'admin' }, idem('at-rest'));
    expect(replay.text).toBe(res.text);
  });

  test('stored responses are deleted once their 24 hours end', async () => {
    await admin.post('/v1/api-keys', { name: 'expiring', role: 'admin' }, idem('expiring'));
    await ctx.database.db
      .updateTable('idempotency_keys')
      .set({ created_at: new Date(Date.now() - 24 * 3600_000 - 1_000) })
      .where('account_id', '=', acct.id)
      .where('key', '=', 'expiring')
      .execute();
    await admin.post('/v1/api-keys', { name: 'fresh', role: 'admin' }, idem('fresh'));
    expect(await purgeExpiredKeys(ctx.database.db, new Date())).toBeGreaterThanOrEqual(1);
    const left = await ctx.database.db.selectFrom('idempotency_keys').select('key').where('account_id', '=', acct.id).where('key', 'in', ['expiring', 'fresh']).execute();
    // A response within its 24 hours stays.
    expect(left).toEqual([{ key: 'fresh' }]);
  });
});
