import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestContext, type Client, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;

beforeAll(async () => {
  // The fixtures make a few hundred test-mode requests a minute on one account; limits are tested in rate-limit.test.ts.
  ctx = await createTestContext({ testModeRateLimit: 10_000 });
  acct = await ctx.account('growth');
});
afterAll(() => ctx?.close());

interface Vault {
  agentId: string;
  vaultId: string;
  policyId: string;
  token: string;
}

async function agent(client: Client = acct.test, body: Record<string, unknown> = { name: 'shopper', agent_type: 'procurement' }): Promise<string> {
  const res = await client.post('/agents', body);
  expect(res.status).toBe(201);
  return res.body.id;
}

async function vault(limits: Record<string, unknown> = {}, client: Client = acct.test, agentId?: string): Promise<Vault> {
  const id = agentId ?? (await agent(client));
  const res = await client.post('/vaults', { name: 'Groceries', agent_id: id, daily_limit: 100, max_single_transaction: 40, ...limits });
  expect(res.status, res.text).toBe(201);
  return { agentId: id, vaultId: res.body.id, policyId: res.body.policy_id, token: res.body.token };
}

const pay = (token: string, amount: unknown, over: Record<string, unknown> = {}, client: Client = acct.test, headers?: Record<string, string>) =>
  client.post('/authorize', { token, amount, merchant_name: 'instacart.com', merchant_category: 'Groceries', ...over }, headers);

describe('the quick-start flow, end to end over HTTP', () => {
  test('create an agent and a vault, spend until the daily limit, and keep remaining_balance exact', async () => {
    const created = await acct.test.post('/agents', { name: 'shopper', agent_type: 'procurement' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: 'agent', name: 'shopper', agent_type: 'procurement', policy_id: null, status: 'active', kyc_status: 'pending', livemode: false });
    expect(created.body.id).toMatch(/^agt_[0-9A-Za-z]+$/);
    // The same agent on /v1.
    expect((await acct.test.get(`/v1/agents/${created.body.id}`)).body).toEqual(created.body);

    const v = await acct.test.post('/vaults', { name: 'Groceries', agent_id: created.body.id, daily_limit: 100, max_single_transaction: 40 });
    expect(v.status).toBe(201);
    expect(v.body).toMatchObject({
      object: 'vault',
      name: 'Groceries',
      agent_id: created.body.id,
      daily_limit: 100,
      max_single_transaction: 40,
      require_approval_above: null,
      currency: 'USD',
      livemode: false,
    });
    expect(v.body.id).toMatch(/^vlt_[0-9A-Za-z]+$/);
    expect(v.body.token).toMatch(/^dlt_[0-9A-Za-z]{40}$/);
    expect(v.body.token_prefix).toBe(`${v.body.token.slice(0, 8)}…${v.body.token.slice(-4)}`);
    expect(new Date(v.body.created_at).toISOString()).toBe(v.body.created_at);
    expect(JSON.stringify(v.body)).not.toMatch(/hash/);

    // The vault is a /v1 policy bound to the agent.
    const policy = await acct.test.get(`/v1/policies/${v.body.policy_id}`);
    expect(policy.body).toMatchObject({ name: 'Groceries', currency: 'USD', budget_daily: 10_000, budget_single_max: 4_000, budget_monthly: 310_000, require_approval_above: null, active: true });
    expect((await acct.test.get(`/v1/agents/${created.body.id}`)).body.policy_id).toBe(v.body.policy_id);

    const token = v.body.token as string;
    const steps: Array<[unknown, string, number]> = [
      [12.34, 'approved', 87.66],
      ['40', 'approved', 47.66],
      [40, 'approved', 7.66],
      [7.67, 'denied', 7.66],
      ['7.66', 'approved', 0],
      [0.01, 'denied', 0],
    ];
    for (const [amount, status, remaining] of steps) {
      const res = await pay(token, amount);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ authorized: status === 'approved', status, remaining_balance: remaining, currency: 'USD' });
      expect(res.body.transaction_id).toMatch(/^dec_/);
      expect(res.text).toContain(`"remaining_balance":${remaining}`);
      if (status === 'approved') {
        expect(res.body).toMatchObject({ reason_code: null });
        expect(res.body.authorization_token).toMatch(/^gca_/);
        expect(res.body.message).toMatch(/^Approved: you may charge/);
      } else {
        expect(res.body).toMatchObject({ reason_code: 'budget_exceeded' });
        expect(res.body).not.toHaveProperty('authorization_token');
        expect(res.body.message).toMatch(/daily limit of 100\.00 USD/);
      }
    }
    const denied = await pay(token, 7.67);
    expect(denied.body.message).toBe(
      'Denied: 7.67 USD would exceed this vault\'s daily limit of 100.00 USD; 0.00 USD is left today (the day ends at 00:00 UTC).',
    );
  });

  test('over the single-transaction maximum: denied with the maximum in the message', async () => {
    const { token } = await vault({ max_single_transaction: 25.5 });
    const res = await pay(token, 25.51);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ authorized: false, status: 'denied', reason_code: 'budget_exceeded', remaining_balance: 100 });
    expect(res.body.message).toBe("Denied: 25.51 USD is above this vault's single-transaction maximum of 25.50 USD. Ask for at most that amount.");
    expect((await pay(token, 25.5)).body).toMatchObject({ status: 'approved', remaining_balance: 74.5 });
  });

  test('cents add up exactly where binary floating point would not (0.1 + 0.2)', async () => {
    const { token } = await vault({ daily_limit: 0.3, max_single_transaction: 0.3 });
    expect((await pay(token, 0.1)).text).toContain('"remaining_balance":0.2,');
    expect((await pay(token, 0.2)).text).toContain('"remaining_balance":0,');
    expect((await pay(token, 0.01)).body.status).toBe('denied');
  });

  test('an unknown, malformed, revoked or other-account token answers 401 with param token', async () => {
    const { token, agentId } = await vault();
    const other = await ctx.account();
    const foreign = await vault({}, other.test);
    const tokens = [
      `dlt_${'A'.repeat(40)}`,
      'not-a-token',
      token.toUpperCase(),
      foreign.token,
    ];
    for (const t of tokens) {
      const res = await pay(t, 1);
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ code: 'unauthorized', param: 'token' });
    }
    // A second vault for the agent replaces the first: the old token stops working.
    const replacement = await vault({ daily_limit: 10 }, acct.test, agentId);
    expect((await pay(token, 1)).status).toBe(401);
    expect((await pay(replacement.token, 1)).body).toMatchObject({ status: 'approved', remaining_balance: 9 });
    // A test-mode token is unknown to a live key.
    expect((await pay(replacement.token, 1, {}, acct.live!)).status).toBe(401);
  });

  test('a held request answers 200 pending, reserves its amount and says how to poll', async () => {
    const { token } = await vault({ require_approval_above: 50, max_single_transaction: 80 });
    const res = await pay(token, 60);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ authorized: false, status: 'pending', reason_code: 'approval_required', remaining_balance: 40 });
    expect(res.body.message).toBe(
      "Pending: 60.00 USD is above this vault's approval threshold of 50.00 USD. The request awaits human review; do not charge yet. " +
        `Poll GET /v1/decisions/${res.body.transaction_id}?wait=30 until its status is approved or denied.`,
    );
    const decision = await acct.test.get(`/v1/decisions/${res.body.transaction_id}`);
    expect(decision.body).toMatchObject({ decision: 'held', status: 'pending', amount: 6_000, currency: 'USD' });
    expect((await pay(token, 40.01)).body).toMatchObject({ status: 'denied', reason_code: 'budget_exceeded', remaining_balance: 40 });
    expect((await pay(token, 40)).body).toMatchObject({ status: 'approved', remaining_balance: 0 });
  });

  test('a threshold of 0 holds every request', async () => {
    const { token } = await vault({ require_approval_above: 0 });
    expect((await pay(token, 0.01)).body.status).toBe('pending');
  });

  test('a frozen agent answers 403 agent_frozen, not a decision', async () => {
    const { token, agentId } = await vault();
    await acct.test.post(`/v1/agents/${agentId}/freeze`);
    const res = await pay(token, 1);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('agent_frozen');
  });
});

describe('decimal amounts are parsed exactly', () => {
  test.each([
    [12.34, 1234],
    ['12.34', 1234],
    [0.29, 29],
    [1.1, 110],
    ['0.5', 50],
    [3, 300],
  ])('amount %j is %i minor units on the decision', async (amount, minor) => {
    const { token } = await vault();
    const res = await pay(token, amount);
    expect(res.body.status).toBe('approved');
    expect((await acct.test.get(`/v1/decisions/${res.body.transaction_id}`)).body.amount).toBe(minor);
  });

  test.each([
    [12.345, /at most 2 decimal places/],
    ['12.345', /at most 2 decimal places/],
    [0, /greater than 0/],
    [-1, /negative/],
    ['1e3', /decimal number/],
    ['abc', /decimal number/],
    [true, /decimal number/],
    [null, /decimal number/],
    [undefined, /Missing required parameter: amount/],
  ])('amount %j → 400 invalid_request, param amount', async (amount, message) => {
    const { token } = await vault();
    const res = await pay(token, amount);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'amount' });
    expect(res.body.error.message).toMatch(message);
  });

  test('the raw JSON text 12.345 is refused, not rounded', async () => {
    const { token } = await vault();
    const res = await ctx.raw('/authorize', {
      method: 'POST',
      headers: { authorization: `Bearer ${acct.test.key}`, 'content-type': 'application/json' },
      body: `{"token": "${token}", "amount": 12.345, "merchant_name": "instacart.com"}`,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'amount' });
  });

  test.each([
    [{ daily_limit: 12.345 }, 'daily_limit'],
    [{ daily_limit: 0 }, 'daily_limit'],
    [{ daily_limit: -10 }, 'daily_limit'],
    [{ daily_limit: undefined }, 'daily_limit'],
    [{ max_single_transaction: '1.001' }, 'max_single_transaction'],
    [{ max_single_transaction: 0 }, 'max_single_transaction'],
    [{ require_approval_above: -1 }, 'require_approval_above'],
    [{ require_approval_above: 0.001 }, 'require_approval_above'],
    [{ name: '' }, 'name'],
    [{ currency: 'EUR' }, 'currency'],
  ])('vault %j → 400 with param %s', async (over, param) => {
    const agentId = await agent();
    const res = await acct.test.post('/vaults', { name: 'V', agent_id: agentId, daily_limit: 100, max_single_transaction: 40, ...over });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
  });

  test('vault limits may be numeric strings and are echoed as numbers', async () => {
    const agentId = await agent();
    const res = await acct.test.post('/vaults', { name: 'V', agent_id: agentId, daily_limit: '250.50', max_single_transaction: '99.99', require_approval_above: '0.5' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ daily_limit: 250.5, max_single_transaction: 99.99, require_approval_above: 0.5 });
    const policy = (await acct.test.get(`/v1/policies/${res.body.policy_id}`)).body;
    expect(policy).toMatchObject({ budget_daily: 25_050, budget_single_max: 9_999, require_approval_above: 50, budget_monthly: 25_050 * 31 });
  });
});

describe('validation and errors of /agents, /vaults and /authorize', () => {
  test('agents: name required, agent_type optional, unknown fields refused', async () => {
    const missing = await acct.test.post('/agents', { agent_type: 'x' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.param).toBe('name');
    const plain = await acct.test.post('/agents', { name: 'no type' });
    expect(plain.status).toBe(201);
    expect(plain.body.agent_type).toBeNull();
    const extra = await acct.test.post('/agents', { name: 'x', policy_id: 'pol_x' });
    expect(extra.status).toBe(400);
    expect(extra.body.error.param).toBe('policy_id');
  });

  test('vaults: unknown or other-account agent 404 (param agent_id), deactivated agent 409', async () => {
    const unknown = await acct.test.post('/vaults', { name: 'V', agent_id: 'agt_nope', daily_limit: 1, max_single_transaction: 1 });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'not_found', param: 'agent_id' });
    const other = await ctx.account();
    const foreign = await agent(other.test);
    expect((await acct.test.post('/vaults', { name: 'V', agent_id: foreign, daily_limit: 1, max_single_transaction: 1 })).status).toBe(404);
    const gone = await agent();
    await acct.test.delete(`/v1/agents/${gone}`);
    const res = await acct.test.post('/vaults', { name: 'V', agent_id: gone, daily_limit: 1, max_single_transaction: 1 });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'conflict', param: 'agent_id' });
  });

  test('authorize: token and merchant_name required; merchant_category optional', async () => {
    const { token } = await vault();
    const noToken = await acct.test.post('/authorize', { amount: 1, merchant_name: 'x' });
    expect(noToken.status).toBe(400);
    expect(noToken.body.error.param).toBe('token');
    const noMerchant = await acct.test.post('/authorize', { token, amount: 1 });
    expect(noMerchant.status).toBe(400);
    expect(noMerchant.body.error.param).toBe('merchant_name');
    expect((await pay(token, 1, { merchant_category: undefined })).body.status).toBe('approved');
  });

  test('same envelope, request id and body rules as /v1; unrelated unknown paths still 404 without a key', async () => {
    const noKey = await ctx.raw('/vaults', { method: 'POST' });
    expect(noKey.status).toBe(401);
    expect(noKey.body.error.code).toBe('unauthorized');
    expect(noKey.headers.get('x-request-id')).toBe(noKey.body.error.request_id);
    const notJson = await ctx.raw('/agents', { method: 'POST', headers: { authorization: `Bearer ${acct.test.key}`, 'content-type': 'text/plain' }, body: 'name=x' });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.param).toBe('body');
    const tooBig = await acct.test.post('/agents', { name: 'x', agent_type: 'y'.repeat(70 * 1024) });
    expect(tooBig.status).toBe(413);
    expect((await ctx.raw('/nothing-here')).status).toBe(404);
    expect((await acct.test.get('/agents')).status).toBe(404);
  });
});

describe('roles: the quick-start surface is for admin keys', () => {
  test('reviewer and agent keys answer 403 forbidden on /agents, /vaults and /authorize', async () => {
    const { token, agentId } = await vault();
    const reviewer = ctx.client((await acct.test.post('/v1/api-keys', { name: 'r', role: 'reviewer' })).body.key);
    const agentKey = ctx.client((await acct.test.post('/v1/api-keys', { name: 'a', role: 'agent', agent_id: agentId })).body.key);
    for (const client of [reviewer, agentKey]) {
      const calls = [
        await client.post('/agents', { name: 'x' }),
        await client.post('/vaults', { name: 'V', agent_id: agentId, daily_limit: 1, max_single_transaction: 1 }),
        await pay(token, 1, {}, client),
      ];
      for (const res of calls) {
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('forbidden');
      }
    }
  });

  test('GET /v1/api-keys/self returns the calling key, for every role, without its hash', async () => {
    const agentId = await agent();
    const created = (await acct.test.post('/v1/api-keys', { name: 'bot', role: 'agent', agent_id: agentId })).body;
    const self = await ctx.client(created.key).get('/v1/api-keys/self');
    expect(self.status).toBe(200);
    expect(self.body).toMatchObject({ id: created.id, object: 'api_key', role: 'agent', agent_id: agentId, mode: 'test' });
    expect(self.body).not.toHaveProperty('key');
    expect(JSON.stringify(self.body)).not.toMatch(/hash/);
    expect((await acct.test.get('/v1/api-keys/self')).body.role).toBe('admin');
  });
});

describe('idempotency, audit and events are those of /v1', () => {
  test('an Idempotency-Key replays the quick-start answer byte for byte without spending again', async () => {
    const { token } = await vault();
    const first = await pay(token, 30, {}, acct.test, { 'Idempotency-Key': 'order-1' });
    expect(first.body).toMatchObject({ status: 'approved', remaining_balance: 70 });
    const again = await pay(token, 30, {}, acct.test, { 'Idempotency-Key': 'order-1' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    const clash = await pay(token, 31, {}, acct.test, { 'Idempotency-Key': 'order-1' });
    expect(clash.status).toBe(409);
    expect(clash.body.error).toMatchObject({ code: 'conflict', param: 'Idempotency-Key' });
    // One decision, one spend: 70 left before this call.
    expect((await pay(token, 1)).body.remaining_balance).toBe(69);
    const decisions = await ctx.database.db.selectFrom('decisions').select('id').where('idempotency_key', '=', 'order-1').where('account_id', '=', acct.id).execute();
    expect(decisions).toEqual([{ id: first.body.transaction_id }]);
  });

  test('quick-start decisions and setup are audited with the /v1 record types, and events are written', async () => {
    const a = await ctx.account();
    const agentId = await agent(a.test);
    const { token, vaultId, policyId } = await vault({ require_approval_above: 30 }, a.test, agentId);
    const outcomes = [await pay(token, 10, {}, a.test), await pay(token, 35, {}, a.test), await pay(token, 41, {}, a.test)];
    expect(outcomes.map((o) => o.body.status)).toEqual(['approved', 'pending', 'denied']);

    // Oldest first, after the account's own bootstrap record (its admin keys).
    const records = (await a.test.get('/v1/audit-logs?limit=100')).body.data.reverse().filter((r: any) => r.type !== 'api_key.created');
    expect(records.map((r: any) => r.type)).toEqual([
      'agent.created',
      'policy.created',
      'agent.updated',
      'vault.created',
      'authorization.decision',
      'authorization.decision',
      'authorization.decision',
    ]);
    expect(records[2]).toMatchObject({ agent_id: agentId, policy_id: policyId, metadata: { changes: { policy_id: policyId }, vault_id: vaultId } });
    expect(records[3].metadata).toMatchObject({ vault_id: vaultId, replaced_vault_id: null });
    expect(JSON.stringify(records)).not.toContain(token);
    const decisions = records.slice(4);
    expect(decisions.map((r: any) => r.decision)).toEqual(['approved', 'held', 'denied']);
    expect(decisions[0]).toMatchObject({
      type: 'authorization.decision',
      agent_id: agentId,
      decision_id: outcomes[0]!.body.transaction_id,
      amount: 1_000,
      currency: 'USD',
      vendor: 'instacart.com',
      category: 'groceries',
      policy_id: policyId,
      metadata: { vault_id: vaultId },
      actor: { type: 'api_key' },
    });
    expect((await a.test.get('/v1/audit-logs/verify')).body.valid).toBe(true);

    const events = await ctx.database.db.selectFrom('events').selectAll().where('account_id', '=', a.id).orderBy('created_at').execute();
    expect(events.map((e) => e.type).sort()).toEqual(['authorize.approved', 'authorize.denied', 'authorize.held']);
    for (const e of events) expect(JSON.stringify(e.data)).not.toMatch(/gca_|authorization_token|dlt_/);
    const outbox = await ctx.database.db.selectFrom('outbox').selectAll().where('topic', '=', 'held_decision').where('ref_id', '=', outcomes[1]!.body.transaction_id).execute();
    expect(outbox).toHaveLength(1);
  });

  test('replacing a vault is audited and today\'s spend carries over (budgets are per agent)', async () => {
    const a = await ctx.account();
    const first = await vault({}, a.test);
    expect((await pay(first.token, 30, {}, a.test)).body.remaining_balance).toBe(70);
    const second = await vault({ daily_limit: 50 }, a.test, first.agentId);
    expect((await pay(second.token, 10, {}, a.test)).body.remaining_balance).toBe(10);
    const revoked = (await a.test.get('/v1/audit-logs?type=vault.revoked')).body.data;
    expect(revoked).toHaveLength(1);
    expect(revoked[0]).toMatchObject({ agent_id: first.agentId, policy_id: first.policyId, metadata: { vault_id: first.vaultId, replaced_by: second.vaultId } });
    const rows = await ctx.database.db.selectFrom('vaults').select(['id', 'revoked_at', 'token_hash']).where('agent_id', '=', first.agentId).execute();
    expect(rows.find((r) => r.id === first.vaultId)?.revoked_at).toBeInstanceOf(Date);
    expect(rows.find((r) => r.id === second.vaultId)?.revoked_at).toBeNull();
    // Only the hash is stored.
    for (const r of rows) expect(r.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain('dlt_');
  });
});

describe('rate limits', () => {
  test('quick-start responses carry the same rate-limit headers as /v1, errors included', async () => {
    const a = await ctx.account();
    const ok = await a.test.post('/agents', { name: 'limited', agent_type: 'bot' });
    const bad = await a.test.post('/vaults', {});
    for (const res of [ok, bad]) {
      expect(res.headers.get('x-ratelimit-limit')).toBe('10000');
      expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeLessThan(10_000);
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    }
  });
});
