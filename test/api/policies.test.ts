import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { authenticate } from '../../src/keys/keys.service.js';
import { TEST_IDEMPOTENCY_KEY } from '../support/server-keys.js';
import { createTestContext, policyBody, type Client, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;

beforeAll(async () => {
  // This file makes more than 100 test-mode requests a minute with one account's keys.
  ctx = await createTestContext({ testModeRateLimit: 10_000 });
  acct = await ctx.account('growth');
});
afterAll(() => ctx?.close());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MONEY_FIELDS = ['budget_monthly', 'budget_single_max', 'require_approval_above', 'budget_daily'] as const;

const expectError = (res: { status: number; body: any }, status: number, code: string, param?: string) => {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ error: { code, message: expect.any(String) } });
  if (param !== undefined) expect(res.body.error.param).toBe(param);
};

async function newPolicy(client: Client, overrides: Record<string, unknown> = {}): Promise<any> {
  const res = await client.post('/v1/policies', policyBody(overrides));
  expect(res.status).toBe(201);
  return res.body;
}

async function newAgent(client: Client, policyId: string): Promise<any> {
  const res = await client.post('/v1/agents', { name: 'bot', policy_id: policyId });
  expect(res.status).toBe(201);
  return res.body;
}

async function mintKey(owner: Client, role: 'admin' | 'reviewer' | 'agent', agentId?: string) {
  const res = await owner.post('/v1/api-keys', { name: `${role} key`, role, ...(agentId ? { agent_id: agentId } : {}) });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, client: ctx.client(res.body.key) };
}

/** The policy.* records about one policy, newest first. */
async function policyAudit(client: Client, policyId: string): Promise<any[]> {
  const out: any[] = [];
  for (const type of ['policy.created', 'policy.updated', 'policy.deleted']) {
    const res = await client.get(`/v1/audit-logs?type=${type}&limit=100`);
    expect(res.status).toBe(200);
    out.push(...res.body.data.filter((r: any) => r.policy_id === policyId));
  }
  return out.sort((a, b) => b.sequence - a.sequence);
}

async function listAll(client: Client, query = ''): Promise<any[]> {
  const res = await client.get(`/v1/policies?limit=100${query ? `&${query}` : ''}`);
  expect(res.status).toBe(200);
  expect(res.body.has_more).toBe(false);
  return res.body.data;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('POST /v1/policies', () => {
  test('creates a policy: 201 with a pol_ id and every default filled in', async () => {
    const res = await acct.test.post('/v1/policies', { name: 'Ops', budget_monthly: 500_000, budget_single_max: 20_000 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^pol_[0-9A-Za-z]+$/),
      object: 'policy',
      name: 'Ops',
      currency: 'USD',
      budget_monthly: 500_000,
      budget_daily: null,
      budget_single_max: 20_000,
      vendor_allowlist: [],
      vendor_denylist: [],
      require_approval_above: null,
      categories_allowed: [],
      active: true,
      approval_timeout_seconds: 259_200,
      velocity_limits: [],
      duplicate_window_seconds: null,
      auto_freeze: null,
      approval_rules: [],
      escalate_after_seconds: null,
      capture_window_seconds: 604_800,
      require_signed_requests: false,
      livemode: false,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    expect(res.body.updated_at).toBe(res.body.created_at);
    for (const hidden of ['account_id', 'deleted_at']) expect(res.body).not.toHaveProperty(hidden);
  });

  test('stores every field it is given, and reads it back the same', async () => {
    const body = {
      name: 'Full',
      currency: 'EUR',
      budget_monthly: 1_000_000,
      budget_daily: 50_000,
      budget_single_max: 25_000,
      vendor_allowlist: ['aws.amazon.com', 'github.com'],
      vendor_denylist: ['casino.example'],
      require_approval_above: 10_000,
      categories_allowed: ['saas', 'compute'],
      active: false,
      approval_timeout_seconds: 3600,
      capture_window_seconds: 86_400,
      require_signed_requests: true,
    };
    const res = await acct.test.post('/v1/policies', body);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject(body);
    expect((await acct.test.get(`/v1/policies/${res.body.id}`)).body).toEqual(res.body);
  });

  test('a live key creates a live policy', async () => {
    const res = await acct.live!.post('/v1/policies', policyBody());
    expect(res.status).toBe(201);
    expect(res.body.livemode).toBe(true);
  });

  test('categories are stored lower-cased and trimmed', async () => {
    const policy = await newPolicy(acct.test, { categories_allowed: ['SaaS', ' Compute ', 'travel'] });
    expect(policy.categories_allowed).toEqual(['saas', 'compute', 'travel']);
    expect((await acct.test.get(`/v1/policies/${policy.id}`)).body.categories_allowed).toEqual(['saas', 'compute', 'travel']);
  });

  test.each(['name', 'budget_monthly', 'budget_single_max'])('%s is required: 400 naming it', async (field) => {
    const body: Record<string, unknown> = policyBody();
    delete body[field];
    expectError(await acct.test.post('/v1/policies', body), 400, 'invalid_request', field);
  });

  test.each(
    MONEY_FIELDS.flatMap((field) =>
      [
        ['a fraction', 10.5],
        ['a numeric string', '100'],
        ['a negative number', -1],
        ['2^53', 2 ** 53],
        ['a boolean', true],
        ['1e300', 1e300],
      ].map(([what, value]) => ({ field, what, value })),
    ),
  )('$field as $what answers 400 with param $field', async ({ field, value }) => {
    expectError(await acct.test.post('/v1/policies', policyBody({ [field]: value })), 400, 'invalid_request', field);
  });

  test.each(MONEY_FIELDS)('%s accepts 0 and the largest safe integer exactly', async (field) => {
    for (const value of [0, Number.MAX_SAFE_INTEGER]) {
      const policy = await newPolicy(acct.test, { [field]: value });
      expect(policy[field]).toBe(value);
      expect((await acct.test.get(`/v1/policies/${policy.id}`)).body[field]).toBe(value);
    }
  });

  test.each(['budget_monthly', 'budget_single_max'])('%s cannot be null', async (field) => {
    expectError(await acct.test.post('/v1/policies', policyBody({ [field]: null })), 400, 'invalid_request', field);
  });

  test.each(['require_approval_above', 'budget_daily'])('%s may be sent as null', async (field) => {
    const policy = await newPolicy(acct.test, { [field]: null });
    expect(policy[field]).toBeNull();
  });

  test.each(['usd', 'US', 'USDX', 'U$D', ' USD', '', 123])('currency %j answers 400 with param currency', async (currency) => {
    expectError(await acct.test.post('/v1/policies', policyBody({ currency })), 400, 'invalid_request', 'currency');
  });

  test.each([
    ['name empty', { name: '' }, 'name'],
    ['name only spaces', { name: '  ' }, 'name'],
    ['name over 200 characters', { name: 'n'.repeat(201) }, 'name'],
    ['active not a boolean', { active: 'yes' }, 'active'],
    ['approval_timeout_seconds zero', { approval_timeout_seconds: 0 }, 'approval_timeout_seconds'],
    ['approval_timeout_seconds fractional', { approval_timeout_seconds: 1.5 }, 'approval_timeout_seconds'],
    ['approval_timeout_seconds over 30 days', { approval_timeout_seconds: 30 * 24 * 3600 + 1 }, 'approval_timeout_seconds'],
    ['capture_window_seconds under a minute', { capture_window_seconds: 59 }, 'capture_window_seconds'],
    ['capture_window_seconds over 30 days', { capture_window_seconds: 2_592_001 }, 'capture_window_seconds'],
    ['capture_window_seconds fractional', { capture_window_seconds: 600.5 }, 'capture_window_seconds'],
    ['capture_window_seconds null', { capture_window_seconds: null }, 'capture_window_seconds'],
    ['vendor_allowlist not an array', { vendor_allowlist: 'github.com' }, 'vendor_allowlist'],
    ['vendor_denylist with an empty entry', { vendor_denylist: [''] }, 'vendor_denylist.0'],
    ['vendor_allowlist with an entry over 255 characters as sent (padding counts)', { vendor_allowlist: [`\u2003${'v'.repeat(255)}`] }, 'vendor_allowlist.0'],
    ['name over 200 characters as sent (padding counts)', { name: ` ${'n'.repeat(200)}` }, 'name'],
    ['categories_allowed with a number', { categories_allowed: ['ok', 5] }, 'categories_allowed.1'],
    ['an unknown field', { colour: 'blue' }, 'colour'],
    ['a read-only id', { id: 'pol_mine' }, 'id'],
    ['a read-only livemode', { livemode: true }, 'livemode'],
  ])('%s answers 400 naming %s', async (_name, overrides, param) => {
    expectError(await acct.test.post('/v1/policies', policyBody(overrides)), 400, 'invalid_request', param);
  });

  test('a rejected create stores nothing and audits nothing', async () => {
    const a = await ctx.account('starter');
    await a.test.post('/v1/policies', policyBody({ currency: 'usd' }));
    await a.test.post('/v1/policies', policyBody({ budget_monthly: -5 }));
    expect(await listAll(a.test)).toEqual([]);
    expect((await a.test.get('/v1/audit-logs?type=policy.created')).body.data).toEqual([]);
  });
});

describe('GET /v1/policies/:id', () => {
  test('returns the policy', async () => {
    const policy = await newPolicy(acct.test);
    const res = await acct.test.get(`/v1/policies/${policy.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(policy);
  });

  test('an unknown id answers 404 not_found with param id', async () => {
    expectError(await acct.test.get('/v1/policies/pol_doesnotexist'), 404, 'not_found', 'id');
  });

  test("another account's policy answers 404", async () => {
    const other = await ctx.account('starter');
    const theirs = await newPolicy(other.test);
    expectError(await acct.test.get(`/v1/policies/${theirs.id}`), 404, 'not_found');
  });

  test('a policy of the other mode answers 404 both ways', async () => {
    const testPolicy = await newPolicy(acct.test);
    const livePolicy = await newPolicy(acct.live!);
    expectError(await acct.live!.get(`/v1/policies/${testPolicy.id}`), 404, 'not_found');
    expectError(await acct.test.get(`/v1/policies/${livePolicy.id}`), 404, 'not_found');
  });
});

describe('GET /v1/policies', () => {
  const CREATED = 45;
  let lister: TestAccount;
  let createdIds: string[];

  beforeAll(async () => {
    lister = await ctx.account('growth');
    createdIds = [];
    for (let i = 0; i < CREATED; i++) {
      createdIds.push((await newPolicy(lister.test, { name: `policy ${i}`, active: i % 3 !== 0 })).id);
    }
  });

  test('answers the list shape with 20 policies by default', async () => {
    const res = await lister.test.get('/v1/policies');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'list', has_more: true, next_cursor: expect.any(String) });
    expect(res.body.data).toHaveLength(20);
    for (const p of res.body.data) expect(p.object).toBe('policy');
  });

  test('limit 100 returns everything here, newest first, with has_more false and no cursor', async () => {
    const res = await lister.test.get('/v1/policies?limit=100');
    expect(res.status).toBe(200);
    expect(res.body.has_more).toBe(false);
    expect(res.body.next_cursor).toBeNull();
    expect(res.body.data.map((p: any) => p.id)).toEqual([...createdIds].reverse());
  });

  test('paging with limit 7 visits every policy exactly once, then stops', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: any = await lister.test.get(`/v1/policies?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      pages++;
      seen.push(...res.body.data.map((p: any) => p.id));
      cursor = res.body.next_cursor;
      if (res.body.has_more) expect(res.body.data).toHaveLength(7);
      else expect(cursor).toBeNull();
    } while (cursor && pages < 20);
    expect(pages).toBe(Math.ceil(CREATED / 7));
    expect(new Set(seen).size).toBe(CREATED);
    expect(seen).toEqual([...createdIds].reverse());
  });

  test.each(['101', '0', '-3', '1.5', 'many'])('limit=%s answers 400 with param limit', async (limit) => {
    expectError(await lister.test.get(`/v1/policies?limit=${limit}`), 400, 'invalid_request', 'limit');
  });

  test('a cursor the service never issued answers 400 with param cursor', async () => {
    expectError(await lister.test.get('/v1/policies?cursor=not-ours'), 400, 'invalid_request', 'cursor');
  });

  test('an unknown query parameter answers 400 naming it', async () => {
    expectError(await lister.test.get('/v1/policies?colour=red'), 400, 'invalid_request', 'colour');
  });

  test.each([
    ['true', (i: number) => i % 3 !== 0],
    ['false', (i: number) => i % 3 === 0],
  ])('active=%s lists exactly those policies', async (active, keep) => {
    const expected = createdIds.filter((_, i) => keep(i)).reverse();
    expect((await listAll(lister.test, `active=${active}`)).map((p: any) => p.id)).toEqual(expected);
  });

  test('active=maybe answers 400 with param active', async () => {
    expectError(await lister.test.get('/v1/policies?active=maybe'), 400, 'invalid_request', 'active');
  });

  test('deleted policies are not listed', async () => {
    const a = await ctx.account('starter');
    const kept = await newPolicy(a.test);
    const gone = await newPolicy(a.test);
    await a.test.delete(`/v1/policies/${gone.id}`);
    expect((await listAll(a.test)).map((p: any) => p.id)).toEqual([kept.id]);
  });

  test('test and live lists are separate, and other accounts never appear', async () => {
    const both = await ctx.account('growth');
    const t = await newPolicy(both.test);
    const l = await newPolicy(both.live!);
    expect((await listAll(both.test)).map((p: any) => p.id)).toEqual([t.id]);
    expect((await listAll(both.live!)).map((p: any) => p.id)).toEqual([l.id]);
  });
});

describe('PATCH /v1/policies/:id', () => {
  test('changes only the given fields; updated_at moves, created_at does not', async () => {
    const policy = await newPolicy(acct.test, { vendor_denylist: ['bad.example'] });
    await sleep(5);
    const res = await acct.test.patch(`/v1/policies/${policy.id}`, { name: 'Renamed', budget_monthly: 7 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...policy, name: 'Renamed', budget_monthly: 7, updated_at: expect.stringMatching(ISO) });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse(policy.updated_at));
    expect((await acct.test.get(`/v1/policies/${policy.id}`)).body).toEqual(res.body);
  });

  test('require_approval_above and budget_daily can be cleared with null', async () => {
    const policy = await newPolicy(acct.test, { require_approval_above: 500, budget_daily: 1_000 });
    const res = await acct.test.patch(`/v1/policies/${policy.id}`, { require_approval_above: null, budget_daily: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ require_approval_above: null, budget_daily: null });
  });

  test('lists are replaced, and categories lower-cased', async () => {
    const policy = await newPolicy(acct.test, { vendor_allowlist: ['a.example'], categories_allowed: ['saas'] });
    const res = await acct.test.patch(`/v1/policies/${policy.id}`, { vendor_allowlist: [], categories_allowed: ['Travel', 'COMPUTE'] });
    expect(res.status).toBe(200);
    expect(res.body.vendor_allowlist).toEqual([]);
    expect(res.body.categories_allowed).toEqual(['travel', 'compute']);
  });

  test('active can be switched off and on', async () => {
    const policy = await newPolicy(acct.test);
    expect((await acct.test.patch(`/v1/policies/${policy.id}`, { active: false })).body.active).toBe(false);
    expect((await acct.test.patch(`/v1/policies/${policy.id}`, { active: true })).body.active).toBe(true);
  });

  test.each([
    ['an unknown field', { colour: 'blue' }, 'colour'],
    ['a null budget_monthly', { budget_monthly: null }, 'budget_monthly'],
    ['a null budget_single_max', { budget_single_max: null }, 'budget_single_max'],
    ['a null name', { name: null }, 'name'],
    ['a null currency', { currency: null }, 'currency'],
    ['a null list', { vendor_denylist: null }, 'vendor_denylist'],
    ['a null active', { active: null }, 'active'],
    ['a fractional amount', { budget_single_max: 1.5 }, 'budget_single_max'],
    ['a negative amount', { require_approval_above: -1 }, 'require_approval_above'],
    ['an unsafe integer', { budget_daily: 2 ** 53 }, 'budget_daily'],
    ['a lower-case currency', { currency: 'eur' }, 'currency'],
    ['an id', { id: 'pol_other' }, 'id'],
    ['created_at', { created_at: '2020-01-01T00:00:00Z' }, 'created_at'],
  ])('%s answers 400 naming it, and changes nothing', async (_name, body, param) => {
    const policy = await newPolicy(acct.test);
    expectError(await acct.test.patch(`/v1/policies/${policy.id}`, body), 400, 'invalid_request', param);
    expect((await acct.test.get(`/v1/policies/${policy.id}`)).body).toEqual(policy);
  });

  test('an unknown, foreign, other-mode or deleted policy answers 404', async () => {
    const other = await ctx.account('starter');
    const theirs = await newPolicy(other.test);
    const live = await newPolicy(acct.live!);
    const gone = await newPolicy(acct.test);
    await acct.test.delete(`/v1/policies/${gone.id}`);
    for (const id of ['pol_doesnotexist', theirs.id, live.id, gone.id]) {
      expectError(await acct.test.patch(`/v1/policies/${id}`, { name: 'mine now' }), 404, 'not_found');
    }
    expect((await other.test.get(`/v1/policies/${theirs.id}`)).body.name).toBe(theirs.name);
    expect((await acct.live!.get(`/v1/policies/${live.id}`)).body.name).toBe(live.name);
  });
});

describe('DELETE /v1/policies/:id', () => {
  test('answers 200 {id, object, deleted}, after which the policy is gone', async () => {
    const policy = await newPolicy(acct.test);
    const res = await acct.test.delete(`/v1/policies/${policy.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: policy.id, object: 'policy', deleted: true });
    expectError(await acct.test.get(`/v1/policies/${policy.id}`), 404, 'not_found');
    expectError(await acct.test.delete(`/v1/policies/${policy.id}`), 404, 'not_found');
  });

  test.each([
    ['active', async (_c: Client, _id: string) => {}],
    ['frozen', async (c: Client, id: string) => void (await c.post(`/v1/agents/${id}/freeze`))],
  ])('answers 409 conflict while an %s agent is bound; after it is deactivated, it deletes', async (_state, prepare) => {
    const policy = await newPolicy(acct.test);
    const agent = await newAgent(acct.test, policy.id);
    await prepare(acct.test, agent.id);
    expectError(await acct.test.delete(`/v1/policies/${policy.id}`), 409, 'conflict');
    expect((await acct.test.get(`/v1/policies/${policy.id}`)).status).toBe(200);

    expect((await acct.test.delete(`/v1/agents/${agent.id}`)).status).toBe(200);
    const res = await acct.test.delete(`/v1/policies/${policy.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: policy.id, object: 'policy', deleted: true });
    // The deactivated agent keeps pointing at the policy it used.
    expect((await acct.test.get(`/v1/agents/${agent.id}`)).body.policy_id).toBe(policy.id);
  });

  test('rebinding the last agent elsewhere frees the policy for deletion', async () => {
    const policy = await newPolicy(acct.test);
    const elsewhere = await newPolicy(acct.test);
    const agent = await newAgent(acct.test, policy.id);
    expectError(await acct.test.delete(`/v1/policies/${policy.id}`), 409, 'conflict');
    await acct.test.patch(`/v1/agents/${agent.id}`, { policy_id: elsewhere.id });
    expect((await acct.test.delete(`/v1/policies/${policy.id}`)).status).toBe(200);
  });

  test('a deleted policy can no longer be bound to an agent', async () => {
    const policy = await newPolicy(acct.test);
    await acct.test.delete(`/v1/policies/${policy.id}`);
    const agent = await newAgent(acct.test, (await newPolicy(acct.test)).id);
    expectError(await acct.test.patch(`/v1/agents/${agent.id}`, { policy_id: policy.id }), 404, 'not_found', 'policy_id');
  });

  test('an unknown, foreign or other-mode policy answers 404 and is left alone', async () => {
    const other = await ctx.account('starter');
    const theirs = await newPolicy(other.test);
    const live = await newPolicy(acct.live!);
    for (const id of ['pol_doesnotexist', theirs.id, live.id]) {
      expectError(await acct.test.delete(`/v1/policies/${id}`), 404, 'not_found');
    }
    expect((await other.test.get(`/v1/policies/${theirs.id}`)).status).toBe(200);
    expect((await acct.live!.get(`/v1/policies/${live.id}`)).status).toBe(200);
  });
});

describe('roles', () => {
  let reviewer: Client;
  let agentKey: Client;
  let policy: any;

  beforeAll(async () => {
    reviewer = (await mintKey(acct.test, 'reviewer')).client;
    policy = await newPolicy(acct.test, { name: 'role target' });
    const agent = await newAgent(acct.test, policy.id);
    agentKey = (await mintKey(acct.test, 'agent', agent.id)).client;
  });

  test('a reviewer can retrieve and list policies', async () => {
    expect((await reviewer.get(`/v1/policies/${policy.id}`)).body).toEqual(policy);
    const list = await reviewer.get('/v1/policies?limit=100');
    expect(list.status).toBe(200);
    expect(list.body.data.map((p: any) => p.id)).toContain(policy.id);
  });

  const writes = [
    ['POST /v1/policies', (c: Client) => c.post('/v1/policies', policyBody({ name: 'sneaky' }))],
    ['PATCH /v1/policies/:id', (c: Client) => c.patch(`/v1/policies/${policy.id}`, { budget_monthly: 1 })],
    ['DELETE /v1/policies/:id', (c: Client) => c.delete(`/v1/policies/${policy.id}`)],
  ] as const;

  test.each(writes)('a reviewer gets 403 forbidden on %s, and nothing changes', async (_name, call) => {
    const before = await listAll(acct.test);
    expectError(await call(reviewer), 403, 'forbidden');
    expect(await listAll(acct.test)).toEqual(before);
  });

  test.each([
    ...writes,
    ['GET /v1/policies', (c: Client) => c.get('/v1/policies')],
    ['GET /v1/policies/:id (its own agent\'s policy)', (c: Client) => c.get(`/v1/policies/${policy.id}`)],
  ] as const)('an agent key gets 403 forbidden on %s', async (_name, call) => {
    const before = await listAll(acct.test);
    expectError(await call(agentKey), 403, 'forbidden');
    expect(await listAll(acct.test)).toEqual(before);
  });
});

describe('audit', () => {
  let admin: { id: string; client: Client };

  beforeAll(async () => {
    admin = await mintKey(acct.test, 'admin');
  });

  test('create, update and delete each write one policy.* record naming the acting key', async () => {
    const policy = await newPolicy(admin.client, { name: 'audited' });
    await admin.client.patch(`/v1/policies/${policy.id}`, { budget_single_max: 123, require_approval_above: null });
    await admin.client.delete(`/v1/policies/${policy.id}`);

    const records = await policyAudit(admin.client, policy.id);
    expect(records.map((r) => r.type)).toEqual(['policy.deleted', 'policy.updated', 'policy.created']);
    for (const r of records) {
      expect(r).toMatchObject({ object: 'audit_record', policy_id: policy.id, agent_id: null, livemode: false });
      expect(r.actor).toEqual({ type: 'api_key', id: admin.id });
    }
    const [, updated, created] = records;
    expect(created.metadata.policy).toEqual(policy);
    expect(updated.metadata.changes).toEqual({ budget_single_max: 123, require_approval_above: null });
  });

  test('rejected writes are not audited', async () => {
    const policy = await newPolicy(admin.client);
    await newAgent(admin.client, policy.id);
    await admin.client.patch(`/v1/policies/${policy.id}`, { budget_monthly: -1 });
    await admin.client.delete(`/v1/policies/${policy.id}`);
    const reviewer = (await mintKey(admin.client, 'reviewer')).client;
    await reviewer.patch(`/v1/policies/${policy.id}`, { name: 'x' });
    expect((await policyAudit(admin.client, policy.id)).map((r) => r.type)).toEqual(['policy.created']);
  });

  test('live-mode writes are audited in the live log only', async () => {
    const policy = await newPolicy(acct.live!);
    const live = await policyAudit(acct.live!, policy.id);
    expect(live.map((r) => r.type)).toEqual(['policy.created']);
    expect(live[0].livemode).toBe(true);
    expect(await policyAudit(acct.test, policy.id)).toEqual([]);
  });
});

describe('under concurrency', () => {
  test('racing a policy DELETE against binding agents never leaves a live agent on a deleted policy', async () => {
    for (let round = 0; round < 8; round++) {
      const policy = await newPolicy(acct.test);
      const [created, deleted] = await Promise.all([
        acct.test.post('/v1/agents', { name: `racer ${round}`, policy_id: policy.id }),
        acct.test.delete(`/v1/policies/${policy.id}`),
      ]);
      // Exactly one side wins: either the agent exists and the delete was refused, or the reverse.
      if (created.status === 201) {
        expectError(deleted, 409, 'conflict');
        expect((await acct.test.get(`/v1/policies/${policy.id}`)).status).toBe(200);
      } else {
        expectError(created, 404, 'not_found', 'policy_id');
        expect(deleted.status).toBe(200);
      }
    }
  });

  test('parallel DELETEs of one policy: one 200, the rest 404, and a single policy.deleted record', async () => {
    const policy = await newPolicy(acct.test);
    const results = await Promise.all(Array.from({ length: 5 }, () => acct.test.delete(`/v1/policies/${policy.id}`)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 404, 404, 404, 404]);
    expect((await policyAudit(acct.test, policy.id)).map((r) => r.type)).toEqual(['policy.deleted', 'policy.created']);
  });

  test('the audit chain still verifies after everything above', async () => {
    const res = await acct.test.get('/v1/audit-logs/verify');
    expect(res.status).toBe(200);
    expect(res.body.valid).toBe(true);
  });
});

describe('require_signed_requests (DECISIONS §19)', () => {
  test('defaults to false, can be set and cleared, and the audit records say so', async () => {
    const policy = await newPolicy(acct.test);
    expect(policy.require_signed_requests).toBe(false);
    const on = await acct.test.patch(`/v1/policies/${policy.id}`, { require_signed_requests: true });
    expect(on.status).toBe(200);
    expect(on.body.require_signed_requests).toBe(true);
    expect((await acct.test.get(`/v1/policies/${policy.id}`)).body.require_signed_requests).toBe(true);
    const listed = (await acct.test.get('/v1/policies?limit=100')).body.data.find((p: { id: string }) => p.id === policy.id);
    expect(listed.require_signed_requests).toBe(true);
    expect((await acct.test.patch(`/v1/policies/${policy.id}`, { require_signed_requests: false })).body.require_signed_requests).toBe(false);

    const records = await policyAudit(acct.test, policy.id);
    expect(records.map((r) => r.metadata.changes ?? r.metadata.policy.require_signed_requests)).toEqual([{ require_signed_requests: false }, { require_signed_requests: true }, false]);
    const created = await newPolicy(acct.test, { require_signed_requests: true });
    expect((await policyAudit(acct.test, created.id))[0].metadata.policy.require_signed_requests).toBe(true);
  });

  test.each([['yes'], [1], [null]])('%j is not a boolean: 400 naming require_signed_requests', async (value) => {
    expectError(await acct.test.post('/v1/policies', policyBody({ require_signed_requests: value })), 400, 'invalid_request', 'require_signed_requests');
    const policy = await newPolicy(acct.test);
    expectError(await acct.test.patch(`/v1/policies/${policy.id}`, { require_signed_requests: value }), 400, 'invalid_request', 'require_signed_requests');
  });

  test("the app is told to drop cached callers after a policy's create, update and delete, and after an agent's policy changes; not otherwise", async () => {
    let told = 0;
    const app = createApp({
      db: ctx.database.db,
      signer: ctx.signer,
      gateway: ctx.gateway,
      engine: ctx.engine,
      idempotencyKey: TEST_IDEMPOTENCY_KEY,
      rateLimit: { limits: { testMode: 10_000 } },
      authenticate: (raw) => authenticate(ctx.database.db, raw),
      onCredentialsChanged: () => (told += 1),
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const send = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(base + path, { method, headers: { authorization: `Bearer ${acct.test.key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
        return { status: res.status, body: (await res.json()) as any };
      };
      const toldAfter = async (name: string, status: number, step: Promise<{ status: number; body: any }>, expected: number) => {
        const res = await step;
        expect(res.status, name).toBe(status);
        expect(told, name).toBe(expected);
        return res.body;
      };
      const a = await toldAfter('policy created', 201, send('POST', '/v1/policies', policyBody()), 1);
      const b = await toldAfter('another created', 201, send('POST', '/v1/policies', policyBody()), 2);
      const agent = await toldAfter('agent created', 201, send('POST', '/v1/agents', { name: 'cached', policy_id: a.id }), 2);
      await toldAfter('policy updated', 200, send('PATCH', `/v1/policies/${a.id}`, { require_signed_requests: true }), 3);
      await toldAfter('policy read', 200, send('GET', `/v1/policies/${a.id}`), 3);
      await toldAfter('agent renamed', 200, send('PATCH', `/v1/agents/${agent.id}`, { name: 'renamed' }), 3);
      await toldAfter('agent rebound', 200, send('PATCH', `/v1/agents/${agent.id}`, { policy_id: b.id }), 4);
      await toldAfter('policy deleted', 200, send('DELETE', `/v1/policies/${a.id}`), 5);
      await toldAfter('update refused', 404, send('PATCH', `/v1/policies/${a.id}`, { name: 'gone' }), 5);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
