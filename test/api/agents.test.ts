import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestContext, policyBody, type Client, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;
let policyId: string;

beforeAll(async () => {
  // This file makes more than 100 test-mode requests a minute with one account's keys.
  ctx = await createTestContext({ testModeRateLimit: 10_000 });
  acct = await ctx.account('growth');
  policyId = await newPolicy(acct.test);
});
afterAll(() => ctx?.close());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const expectError = (res: { status: number; body: any }, status: number, code: string, param?: string) => {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ error: { code, message: expect.any(String) } });
  if (param !== undefined) expect(res.body.error.param).toBe(param);
};

async function newPolicy(client: Client, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await client.post('/v1/policies', policyBody(overrides));
  expect(res.status).toBe(201);
  return res.body.id;
}

async function newAgent(client: Client, body: Record<string, unknown> = {}): Promise<any> {
  const res = await client.post('/v1/agents', { name: 'bot', policy_id: policyId, ...body });
  expect(res.status).toBe(201);
  return res.body;
}

/** A fresh key of the given role on the owner's account and mode; `id` is what audit actors carry. */
async function mintKey(owner: Client, role: 'admin' | 'reviewer' | 'agent', agentId?: string) {
  const res = await owner.post('/v1/api-keys', { name: `${role} key`, role, ...(agentId ? { agent_id: agentId } : {}) });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, client: ctx.client(res.body.key) };
}

async function auditOf(client: Client, agentId: string, type?: string): Promise<any[]> {
  const res = await client.get(`/v1/audit-logs?agent_id=${agentId}&limit=100${type ? `&type=${type}` : ''}`);
  expect(res.status).toBe(200);
  return res.body.data;
}

async function listAll(client: Client, query: string): Promise<any[]> {
  const res = await client.get(`/v1/agents?limit=100${query ? `&${query}` : ''}`);
  expect(res.status).toBe(200);
  expect(res.body.has_more).toBe(false);
  return res.body.data;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('POST /v1/agents', () => {
  test('registers an active agent with pending KYC and answers 201 with the agent object', async () => {
    const res = await acct.test.post('/v1/agents', { name: 'Procurement bot', policy_id: policyId, metadata: { team: 'ops', cost_center: 42, pilot: true } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^agt_[0-9A-Za-z]+$/),
      object: 'agent',
      name: 'Procurement bot',
      agent_type: null,
      policy_id: policyId,
      status: 'active',
      kyc_status: 'pending',
      metadata: { team: 'ops', cost_center: 42, pilot: true },
      livemode: false,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    expect(res.body).not.toHaveProperty('account_id');
  });

  test('metadata defaults to an empty object', async () => {
    const agent = await newAgent(acct.test);
    expect(agent.metadata).toEqual({});
  });

  test('the created agent is the one later retrieved', async () => {
    const agent = await newAgent(acct.test, { metadata: { a: 'b' } });
    const got = await acct.test.get(`/v1/agents/${agent.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(agent);
  });

  test('a live key registers a live agent bound to a live policy', async () => {
    const livePolicy = await newPolicy(acct.live!);
    const res = await acct.live!.post('/v1/agents', { name: 'live bot', policy_id: livePolicy });
    expect(res.status).toBe(201);
    expect(res.body.livemode).toBe(true);
  });

  test.each([
    ['name is missing', { policy_id: 'POLICY' }, 'name'],
    ['policy_id is missing', { name: 'bot' }, 'policy_id'],
    ['name is empty', { name: '', policy_id: 'POLICY' }, 'name'],
    ['name is only spaces', { name: '   ', policy_id: 'POLICY' }, 'name'],
    ['name is longer than 200 characters', { name: 'n'.repeat(201), policy_id: 'POLICY' }, 'name'],
    ['name is not a string', { name: 7, policy_id: 'POLICY' }, 'name'],
    ['policy_id is not a string', { name: 'bot', policy_id: 12 }, 'policy_id'],
    ['metadata is not an object', { name: 'bot', policy_id: 'POLICY', metadata: 'x' }, 'metadata'],
    ['a field is unknown', { name: 'bot', policy_id: 'POLICY', colour: 'blue' }, 'colour'],
    ['status is given on create', { name: 'bot', policy_id: 'POLICY', status: 'frozen' }, 'status'],
  ])('400 invalid_request when %s, naming the field', async (_name, body, param) => {
    const withPolicy = JSON.parse(JSON.stringify(body).replace('"POLICY"', JSON.stringify(policyId)));
    const res = await acct.test.post('/v1/agents', withPolicy);
    expectError(res, 400, 'invalid_request', param);
  });

  test('an unknown policy_id answers 404 not_found with param policy_id', async () => {
    const res = await acct.test.post('/v1/agents', { name: 'bot', policy_id: 'pol_doesnotexist' });
    expectError(res, 404, 'not_found', 'policy_id');
  });

  test("another account's policy id answers 404, never 403", async () => {
    const other = await ctx.account('starter');
    const foreignPolicy = await newPolicy(other.test);
    const res = await acct.test.post('/v1/agents', { name: 'bot', policy_id: foreignPolicy });
    expectError(res, 404, 'not_found', 'policy_id');
  });

  test("a policy of the other mode answers 404", async () => {
    const livePolicy = await newPolicy(acct.live!);
    const res = await acct.test.post('/v1/agents', { name: 'bot', policy_id: livePolicy });
    expectError(res, 404, 'not_found', 'policy_id');
  });

  test('a deleted policy answers 404', async () => {
    const doomed = await newPolicy(acct.test);
    expect((await acct.test.delete(`/v1/policies/${doomed}`)).status).toBe(200);
    const res = await acct.test.post('/v1/agents', { name: 'bot', policy_id: doomed });
    expectError(res, 404, 'not_found', 'policy_id');
  });

  test('a rejected create stores nothing', async () => {
    const a = await ctx.account('starter');
    const p = await newPolicy(a.test);
    await a.test.post('/v1/agents', { name: 'bot', policy_id: p, metadata: { nested: { no: 1 } } });
    await a.test.post('/v1/agents', { name: 'bot', policy_id: 'pol_nope' });
    expect((await a.test.get('/v1/agents')).body.data).toEqual([]);
  });

  describe('metadata limits', () => {
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));

    test.each([
      ['51 keys', keys(51)],
      ['a 41-character key', { ['k'.repeat(41)]: 'v' }],
      ['an empty key', { '': 'v' }],
      ['a 501-character string value', { note: 'x'.repeat(501) }],
      ['a nested object value', { nested: { deep: 1 } }],
      ['an array value', { list: [1, 2] }],
      ['a null value', { gone: null }],
    ])('%s answers 400 with a param starting with metadata', async (_name, metadata) => {
      const res = await acct.test.post('/v1/agents', { name: 'bot', policy_id: policyId, metadata });
      expectError(res, 400, 'invalid_request');
      expect(res.body.error.param).toMatch(/^metadata(\.|$)/);
    });

    test.each([
      ['50 keys', keys(50)],
      ['a 40-character key', { ['k'.repeat(40)]: 'v' }],
      ['a 500-character string value', { note: 'x'.repeat(500) }],
      ['string, number and boolean values', { s: 's', n: -1.5, b: false }],
    ])('%s is accepted and echoed', async (_name, metadata) => {
      const agent = await newAgent(acct.test, { metadata });
      expect(agent.metadata).toEqual(metadata);
    });
  });
});

describe('GET /v1/agents/:id', () => {
  test('an unknown id answers 404 not_found', async () => {
    expectError(await acct.test.get('/v1/agents/agt_doesnotexist'), 404, 'not_found', 'id');
  });

  test("another account's agent answers 404, and the reverse too", async () => {
    const other = await ctx.account('starter');
    const mine = await newAgent(acct.test);
    const theirs = (await other.test.post('/v1/agents', { name: 'theirs', policy_id: await newPolicy(other.test) })).body;
    expectError(await other.test.get(`/v1/agents/${mine.id}`), 404, 'not_found');
    expectError(await acct.test.get(`/v1/agents/${theirs.id}`), 404, 'not_found');
  });

  test('a live key cannot see a test agent, nor a test key a live one', async () => {
    const testAgent = await newAgent(acct.test);
    const liveAgent = (await acct.live!.post('/v1/agents', { name: 'live', policy_id: await newPolicy(acct.live!) })).body;
    expectError(await acct.live!.get(`/v1/agents/${testAgent.id}`), 404, 'not_found');
    expectError(await acct.test.get(`/v1/agents/${liveAgent.id}`), 404, 'not_found');
    expect((await acct.live!.get(`/v1/agents/${liveAgent.id}`)).status).toBe(200);
  });
});

describe('GET /v1/agents', () => {
  const CREATED = 45;
  let lister: TestAccount;
  let createdIds: string[];

  beforeAll(async () => {
    lister = await ctx.account('growth');
    const p = await newPolicy(lister.test);
    createdIds = [];
    for (let i = 0; i < CREATED; i++) {
      const res = await lister.test.post('/v1/agents', { name: `agent ${i}`, policy_id: p });
      createdIds.push(res.body.id);
    }
  });

  test('answers the list shape with 20 agents by default', async () => {
    const res = await lister.test.get('/v1/agents');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'list', has_more: true, next_cursor: expect.any(String) });
    expect(res.body.data).toHaveLength(20);
    for (const a of res.body.data) expect(a.object).toBe('agent');
  });

  test('limit 100 is allowed and returns everything here, with has_more false and no cursor', async () => {
    const res = await lister.test.get('/v1/agents?limit=100');
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(CREATED);
    expect(res.body.has_more).toBe(false);
    expect(res.body.next_cursor).toBeNull();
  });

  test('lists newest first', async () => {
    const data = await listAll(lister.test, '');
    expect(data.map((a: any) => a.id)).toEqual([...createdIds].reverse());
    const times = data.map((a: any) => Date.parse(a.created_at));
    expect(times).toEqual([...times].sort((x, y) => y - x));
  });

  test('paging with limit 7 visits every agent exactly once, then stops', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: any = await lister.test.get(`/v1/agents?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      pages++;
      seen.push(...res.body.data.map((a: any) => a.id));
      cursor = res.body.next_cursor;
      if (res.body.has_more) {
        expect(res.body.data).toHaveLength(7);
        expect(cursor).toEqual(expect.any(String));
      } else {
        expect(cursor).toBeNull();
      }
    } while (cursor && pages < 20);
    expect(pages).toBe(Math.ceil(CREATED / 7));
    expect(seen).toHaveLength(CREATED);
    expect(new Set(seen).size).toBe(CREATED);
    expect(seen).toEqual([...createdIds].reverse());
  });

  test.each([
    ['101', 'limit'],
    ['0', 'limit'],
    ['-1', 'limit'],
    ['2.5', 'limit'],
    ['ten', 'limit'],
  ])('limit=%s answers 400 invalid_request with param %s', async (limit, param) => {
    expectError(await lister.test.get(`/v1/agents?limit=${limit}`), 400, 'invalid_request', param);
  });

  test('a cursor the service never issued answers 400 with param cursor', async () => {
    expectError(await lister.test.get('/v1/agents?cursor=garbage'), 400, 'invalid_request', 'cursor');
  });

  test('an unknown query parameter answers 400 naming it', async () => {
    expectError(await lister.test.get('/v1/agents?colour=blue'), 400, 'invalid_request', 'colour');
  });

  test('an account with no agents gets an empty page', async () => {
    const empty = await ctx.account('starter');
    const res = await empty.test.get('/v1/agents');
    expect(res.body).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
  });

  describe('filters', () => {
    let f: TestAccount;
    let polA: string;
    let polB: string;
    let active: any;
    let frozen: any;
    let gone: any;
    let onB: any;

    beforeAll(async () => {
      f = await ctx.account('growth');
      polA = await newPolicy(f.test, { name: 'A' });
      polB = await newPolicy(f.test, { name: 'B' });
      const make = async (name: string, p: string) => (await f.test.post('/v1/agents', { name, policy_id: p })).body;
      active = await make('active', polA);
      frozen = await make('frozen', polA);
      gone = await make('gone', polA);
      onB = await make('on B', polB);
      expect((await f.test.post(`/v1/agents/${frozen.id}/freeze`)).status).toBe(200);
      expect((await f.test.delete(`/v1/agents/${gone.id}`)).status).toBe(200);
    });

    test.each([
      ['status=active', () => [onB.id, active.id]],
      ['status=frozen', () => [frozen.id]],
      ['status=deactivated', () => [gone.id]],
      ['policy_id=A', () => [gone.id, frozen.id, active.id]],
      ['policy_id=B', () => [onB.id]],
      ['status=active&policy_id=A', () => [active.id]],
      ['', () => [onB.id, gone.id, frozen.id, active.id]],
    ])('%s lists exactly the matching agents', async (query, expected) => {
      const q = query.replace('policy_id=A', `policy_id=${polA}`).replace('policy_id=B', `policy_id=${polB}`);
      const data = await listAll(f.test, q);
      expect(data.map((a: any) => a.id)).toEqual(expected());
    });

    test('an unknown status value answers 400 with param status', async () => {
      expectError(await f.test.get('/v1/agents?status=paused'), 400, 'invalid_request', 'status');
    });

    test('an unknown policy_id filter matches nothing', async () => {
      expect(await listAll(f.test, 'policy_id=pol_nothing')).toEqual([]);
    });
  });

  test('test and live lists are separate', async () => {
    const both = await ctx.account('growth');
    const testAgent = (await both.test.post('/v1/agents', { name: 't', policy_id: await newPolicy(both.test) })).body;
    const liveAgent = (await both.live!.post('/v1/agents', { name: 'l', policy_id: await newPolicy(both.live!) })).body;
    expect((await listAll(both.test, '')).map((a: any) => a.id)).toEqual([testAgent.id]);
    expect((await listAll(both.live!, '')).map((a: any) => a.id)).toEqual([liveAgent.id]);
  });

  test("another account's agents never appear", async () => {
    const ids = (await listAll(acct.test, '')).map((a: any) => a.id);
    for (const id of createdIds) expect(ids).not.toContain(id);
  });
});

describe('PATCH /v1/agents/:id', () => {
  test('changes the name and leaves everything else alone', async () => {
    const agent = await newAgent(acct.test, { metadata: { k: 'v' } });
    await sleep(5);
    const res = await acct.test.patch(`/v1/agents/${agent.id}`, { name: 'Renamed' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...agent, name: 'Renamed', updated_at: expect.stringMatching(ISO) });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse(agent.updated_at));
    expect((await acct.test.get(`/v1/agents/${agent.id}`)).body).toEqual(res.body);
  });

  test('rebinds to another existing policy', async () => {
    const agent = await newAgent(acct.test);
    const other = await newPolicy(acct.test, { name: 'other' });
    const res = await acct.test.patch(`/v1/agents/${agent.id}`, { policy_id: other });
    expect(res.status).toBe(200);
    expect(res.body.policy_id).toBe(other);
  });

  test.each([
    ['an unknown policy', async () => 'pol_doesnotexist'],
    ["another account's policy", async () => newPolicy((await ctx.account('starter')).test)],
    ['a policy of the other mode', async () => newPolicy(acct.live!)],
  ])('rebinding to %s answers 404 with param policy_id and changes nothing', async (_name, makePolicy) => {
    const agent = await newAgent(acct.test);
    const res = await acct.test.patch(`/v1/agents/${agent.id}`, { policy_id: await makePolicy() });
    expectError(res, 404, 'not_found', 'policy_id');
    expect((await acct.test.get(`/v1/agents/${agent.id}`)).body.policy_id).toBe(policyId);
  });

  test('merges metadata: a key set to null is removed, others are kept or replaced', async () => {
    const agent = await newAgent(acct.test, { metadata: { keep: 'yes', drop: 'soon', change: 1 } });
    const res = await acct.test.patch(`/v1/agents/${agent.id}`, { metadata: { drop: null, change: 2, added: true } });
    expect(res.status).toBe(200);
    expect(res.body.metadata).toEqual({ keep: 'yes', change: 2, added: true });
    expect(res.body.metadata).not.toHaveProperty('drop');
    expect((await acct.test.get(`/v1/agents/${agent.id}`)).body.metadata).toEqual({ keep: 'yes', change: 2, added: true });
  });

  test('removing a key that is not there is harmless', async () => {
    const agent = await newAgent(acct.test, { metadata: { a: 1 } });
    const res = await acct.test.patch(`/v1/agents/${agent.id}`, { metadata: { never_set: null } });
    expect(res.status).toBe(200);
    expect(res.body.metadata).toEqual({ a: 1 });
  });

  test('a merge that would leave more than 50 keys answers 400 param metadata, and changes nothing', async () => {
    const start = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`a${i}`, i]));
    const more = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`b${i}`, i]));
    const agent = await newAgent(acct.test, { metadata: start });
    expectError(await acct.test.patch(`/v1/agents/${agent.id}`, { metadata: more }), 400, 'invalid_request', 'metadata');
    expect((await acct.test.get(`/v1/agents/${agent.id}`)).body.metadata).toEqual(start);
  });

  test.each([
    ['a 501-character string', { note: 'x'.repeat(501) }],
    ['a nested object', { nested: { a: 1 } }],
    ['a 41-character key', { ['k'.repeat(41)]: 1 }],
  ])('metadata with %s answers 400 with a param starting with metadata', async (_name, metadata) => {
    const agent = await newAgent(acct.test);
    const res = await acct.test.patch(`/v1/agents/${agent.id}`, { metadata });
    expectError(res, 400, 'invalid_request');
    expect(res.body.error.param).toMatch(/^metadata(\.|$)/);
  });

  test.each(['verified', 'rejected', 'pending'])('sets kyc_status to %s', async (kyc) => {
    const agent = await newAgent(acct.test);
    const res = await acct.test.patch(`/v1/agents/${agent.id}`, { kyc_status: kyc });
    expect(res.status).toBe(200);
    expect(res.body.kyc_status).toBe(kyc);
  });

  test('moves status active → frozen → active', async () => {
    const agent = await newAgent(acct.test);
    const frozen = await acct.test.patch(`/v1/agents/${agent.id}`, { status: 'frozen' });
    expect(frozen.status).toBe(200);
    expect(frozen.body.status).toBe('frozen');
    const back = await acct.test.patch(`/v1/agents/${agent.id}`, { status: 'active' });
    expect(back.status).toBe(200);
    expect(back.body.status).toBe('active');
  });

  test.each([
    ['status deactivated', { status: 'deactivated' }, 'status'],
    ['an unknown status', { status: 'paused' }, 'status'],
    ['an unknown kyc_status', { kyc_status: 'approved' }, 'kyc_status'],
    ['an empty name', { name: '' }, 'name'],
    ['a null name', { name: null }, 'name'],
    ['a null policy_id', { policy_id: null }, 'policy_id'],
    ['an unknown field', { colour: 'blue' }, 'colour'],
    ['a read-only field', { livemode: true }, 'livemode'],
    ['an id', { id: 'agt_other' }, 'id'],
  ])('%s answers 400 naming the field, and changes nothing', async (_name, body, param) => {
    const agent = await newAgent(acct.test);
    expectError(await acct.test.patch(`/v1/agents/${agent.id}`, body), 400, 'invalid_request', param);
    expect((await acct.test.get(`/v1/agents/${agent.id}`)).body).toEqual(agent);
  });

  test('a deactivated agent answers 409 conflict and stays deactivated', async () => {
    const agent = await newAgent(acct.test);
    await acct.test.delete(`/v1/agents/${agent.id}`);
    for (const body of [{ name: 'back' }, { status: 'active' }, { metadata: { a: 1 } }]) {
      expectError(await acct.test.patch(`/v1/agents/${agent.id}`, body), 409, 'conflict');
    }
    const after = (await acct.test.get(`/v1/agents/${agent.id}`)).body;
    expect(after).toMatchObject({ status: 'deactivated', name: 'bot', metadata: {} });
  });

  test('an unknown or foreign agent answers 404', async () => {
    expectError(await acct.test.patch('/v1/agents/agt_doesnotexist', { name: 'x' }), 404, 'not_found');
    const other = await ctx.account('starter');
    const theirs = (await other.test.post('/v1/agents', { name: 'theirs', policy_id: await newPolicy(other.test) })).body;
    expectError(await acct.test.patch(`/v1/agents/${theirs.id}`, { name: 'mine now' }), 404, 'not_found');
    expect((await other.test.get(`/v1/agents/${theirs.id}`)).body.name).toBe('theirs');
  });
});

describe('DELETE /v1/agents/:id', () => {
  test('deactivates: 200 with the agent object, status deactivated', async () => {
    const agent = await newAgent(acct.test);
    const res = await acct.test.delete(`/v1/agents/${agent.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...agent, status: 'deactivated', updated_at: expect.stringMatching(ISO) });
    expect((await acct.test.get(`/v1/agents/${agent.id}`)).body.status).toBe('deactivated');
  });

  test('is repeatable: a second DELETE answers 200 and writes no second audit record', async () => {
    const agent = await newAgent(acct.test);
    const first = await acct.test.delete(`/v1/agents/${agent.id}`);
    const second = await acct.test.delete(`/v1/agents/${agent.id}`);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(await auditOf(acct.test, agent.id, 'agent.deactivated')).toHaveLength(1);
  });

  test('a frozen agent can be deactivated', async () => {
    const agent = await newAgent(acct.test);
    await acct.test.post(`/v1/agents/${agent.id}/freeze`);
    const res = await acct.test.delete(`/v1/agents/${agent.id}`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('deactivated');
  });

  test('an unknown or foreign agent answers 404', async () => {
    expectError(await acct.test.delete('/v1/agents/agt_doesnotexist'), 404, 'not_found');
    const liveAgent = (await acct.live!.post('/v1/agents', { name: 'l', policy_id: await newPolicy(acct.live!) })).body;
    expectError(await acct.test.delete(`/v1/agents/${liveAgent.id}`), 404, 'not_found');
    expect((await acct.live!.get(`/v1/agents/${liveAgent.id}`)).body.status).toBe('active');
  });
});

describe('POST /v1/agents/:id/freeze and /unfreeze', () => {
  test('freeze answers 200 frozen and is repeatable; unfreeze answers 200 active and is repeatable', async () => {
    const agent = await newAgent(acct.test);
    for (let i = 0; i < 2; i++) {
      const res = await acct.test.post(`/v1/agents/${agent.id}/freeze`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: agent.id, object: 'agent', status: 'frozen' });
    }
    for (let i = 0; i < 2; i++) {
      const res = await acct.test.post(`/v1/agents/${agent.id}/unfreeze`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: agent.id, object: 'agent', status: 'active' });
    }
    expect(await auditOf(acct.test, agent.id, 'agent.frozen')).toHaveLength(1);
    expect(await auditOf(acct.test, agent.id, 'agent.unfrozen')).toHaveLength(1);
  });

  test('unfreezing an agent that was never frozen changes and audits nothing', async () => {
    const agent = await newAgent(acct.test);
    const res = await acct.test.post(`/v1/agents/${agent.id}/unfreeze`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(agent);
    expect(await auditOf(acct.test, agent.id, 'agent.unfrozen')).toEqual([]);
  });

  test.each(['freeze', 'unfreeze'])('%s of a deactivated agent answers 409 conflict', async (action) => {
    const agent = await newAgent(acct.test);
    await acct.test.delete(`/v1/agents/${agent.id}`);
    expectError(await acct.test.post(`/v1/agents/${agent.id}/${action}`), 409, 'conflict');
    expect((await acct.test.get(`/v1/agents/${agent.id}`)).body.status).toBe('deactivated');
  });

  test.each(['freeze', 'unfreeze'])('%s of an unknown or foreign agent answers 404', async (action) => {
    expectError(await acct.test.post(`/v1/agents/agt_doesnotexist/${action}`), 404, 'not_found');
    const other = await ctx.account('starter');
    const theirs = (await other.test.post('/v1/agents', { name: 'theirs', policy_id: await newPolicy(other.test) })).body;
    expectError(await acct.test.post(`/v1/agents/${theirs.id}/${action}`), 404, 'not_found');
    expect((await other.test.get(`/v1/agents/${theirs.id}`)).body.status).toBe('active');
  });
});

describe('roles', () => {
  let reviewer: Client;
  let agent: any;
  let otherAgent: any;
  let agentKey: Client;

  beforeAll(async () => {
    reviewer = (await mintKey(acct.test, 'reviewer')).client;
    agent = await newAgent(acct.test, { name: 'keyed' });
    otherAgent = await newAgent(acct.test, { name: 'unrelated' });
    agentKey = (await mintKey(acct.test, 'agent', agent.id)).client;
  });

  test('a reviewer can retrieve and list agents', async () => {
    expect((await reviewer.get(`/v1/agents/${agent.id}`)).body).toEqual((await acct.test.get(`/v1/agents/${agent.id}`)).body);
    const list = await reviewer.get('/v1/agents?limit=100');
    expect(list.status).toBe(200);
    expect(list.body.data.map((a: any) => a.id)).toContain(agent.id);
  });

  test('a reviewer can freeze and unfreeze', async () => {
    const target = await newAgent(acct.test);
    expect((await reviewer.post(`/v1/agents/${target.id}/freeze`)).body.status).toBe('frozen');
    expect((await reviewer.post(`/v1/agents/${target.id}/unfreeze`)).body.status).toBe('active');
  });

  test.each([
    ['POST /v1/agents', (c: Client) => c.post('/v1/agents', { name: 'nope', policy_id: policyId })],
    ['PATCH /v1/agents/:id', (c: Client) => c.patch(`/v1/agents/${agent.id}`, { name: 'nope' })],
    ['PATCH status', (c: Client) => c.patch(`/v1/agents/${agent.id}`, { status: 'frozen' })],
    ['DELETE /v1/agents/:id', (c: Client) => c.delete(`/v1/agents/${agent.id}`)],
  ])('a reviewer gets 403 forbidden on %s, and nothing changes', async (_name, call) => {
    const before = (await acct.test.get('/v1/agents?limit=100')).body.data.length;
    expectError(await call(reviewer), 403, 'forbidden');
    expect((await acct.test.get(`/v1/agents/${agent.id}`)).body).toEqual(agent);
    expect((await acct.test.get('/v1/agents?limit=100')).body.data.length).toBe(before);
  });

  test('an agent key can retrieve its own agent', async () => {
    const res = await agentKey.get(`/v1/agents/${agent.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(agent);
  });

  test("an agent key gets 404 for any other agent", async () => {
    expectError(await agentKey.get(`/v1/agents/${otherAgent.id}`), 404, 'not_found');
    expectError(await agentKey.get('/v1/agents/agt_doesnotexist'), 404, 'not_found');
  });

  test.each([
    ['GET /v1/agents', (c: Client) => c.get('/v1/agents')],
    ['POST /v1/agents', (c: Client) => c.post('/v1/agents', { name: 'nope', policy_id: policyId })],
    ['PATCH its own agent', (c: Client) => c.patch(`/v1/agents/${agent.id}`, { name: 'nope' })],
    ['freeze its own agent', (c: Client) => c.post(`/v1/agents/${agent.id}/freeze`)],
    ['unfreeze its own agent', (c: Client) => c.post(`/v1/agents/${agent.id}/unfreeze`)],
    ['DELETE its own agent', (c: Client) => c.delete(`/v1/agents/${agent.id}`)],
  ])('an agent key gets 403 forbidden on %s', async (_name, call) => {
    expectError(await call(agentKey), 403, 'forbidden');
    expect((await acct.test.get(`/v1/agents/${agent.id}`)).body).toEqual(agent);
  });
});

describe('audit', () => {
  let admin: { id: string; client: Client };
  let reviewer: { id: string; client: Client };

  beforeAll(async () => {
    admin = await mintKey(acct.test, 'admin');
    reviewer = await mintKey(acct.test, 'reviewer');
  });

  const lifecycleTypes = (records: any[]) => records.filter((r) => r.type.startsWith('agent.')).map((r) => r.type);

  test('create, update, freeze, unfreeze and deactivate each write one record of their type, oldest last', async () => {
    const res = await admin.client.post('/v1/agents', { name: 'audited', policy_id: policyId });
    const id = res.body.id;
    await admin.client.patch(`/v1/agents/${id}`, { name: 'audited 2' });
    await admin.client.post(`/v1/agents/${id}/freeze`);
    await admin.client.post(`/v1/agents/${id}/unfreeze`);
    await admin.client.delete(`/v1/agents/${id}`);

    const records = await auditOf(admin.client, id);
    expect(lifecycleTypes(records)).toEqual(['agent.deactivated', 'agent.unfrozen', 'agent.frozen', 'agent.updated', 'agent.created']);
    for (const r of records) {
      expect(r).toMatchObject({ object: 'audit_record', agent_id: id, policy_id: policyId, livemode: false });
      expect(r.actor).toEqual({ type: 'api_key', id: admin.id });
    }
  });

  test('the record names the key that acted: a reviewer freezing is the actor', async () => {
    const agent = await newAgent(acct.test);
    await reviewer.client.post(`/v1/agents/${agent.id}/freeze`);
    const [frozen] = await auditOf(acct.test, agent.id, 'agent.frozen');
    expect(frozen.actor).toEqual({ type: 'api_key', id: reviewer.id });
  });

  test.each([
    { what: 'only status frozen', body: { status: 'frozen' }, types: ['agent.frozen'] },
    { what: 'a name', body: { name: 'n2' }, types: ['agent.updated'] },
    { what: 'a name and status frozen', body: { name: 'n3', status: 'frozen' }, types: ['agent.frozen', 'agent.updated'] },
    { what: 'only the current status', body: { status: 'active' }, types: [] },
    { what: 'nothing', body: {}, types: [] },
  ])('a PATCH of $what writes exactly $types after agent.created', async ({ body, types }) => {
    const agent = await newAgent(admin.client);
    expect((await admin.client.patch(`/v1/agents/${agent.id}`, body)).status).toBe(200);
    expect(lifecycleTypes(await auditOf(admin.client, agent.id))).toEqual([...types, 'agent.created']);
  });

  test('an unfreeze through PATCH writes agent.unfrozen', async () => {
    const agent = await newAgent(admin.client);
    await admin.client.post(`/v1/agents/${agent.id}/freeze`);
    await admin.client.patch(`/v1/agents/${agent.id}`, { status: 'active' });
    expect(lifecycleTypes(await auditOf(admin.client, agent.id))).toEqual(['agent.unfrozen', 'agent.frozen', 'agent.created']);
  });

  test('rejected calls write nothing', async () => {
    const agent = await newAgent(admin.client);
    await admin.client.patch(`/v1/agents/${agent.id}`, { policy_id: 'pol_nope' });
    await admin.client.patch(`/v1/agents/${agent.id}`, { status: 'deactivated' });
    await reviewer.client.delete(`/v1/agents/${agent.id}`);
    await reviewer.client.patch(`/v1/agents/${agent.id}`, { name: 'x' });
    expect(lifecycleTypes(await auditOf(admin.client, agent.id))).toEqual(['agent.created']);
  });

  test('a rebind records the new policy on the update record', async () => {
    const agent = await newAgent(admin.client);
    const other = await newPolicy(admin.client, { name: 'rebind target' });
    await admin.client.patch(`/v1/agents/${agent.id}`, { policy_id: other });
    const [updated] = await auditOf(admin.client, agent.id, 'agent.updated');
    expect(updated.policy_id).toBe(other);
  });
});

describe('under concurrency', () => {
  test('parallel DELETEs all answer 200 and write a single agent.deactivated record', async () => {
    const agent = await newAgent(acct.test);
    const results = await Promise.all(Array.from({ length: 6 }, () => acct.test.delete(`/v1/agents/${agent.id}`)));
    for (const r of results) expect(r.body).toMatchObject({ id: agent.id, status: 'deactivated' });
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(200));
    expect(await auditOf(acct.test, agent.id, 'agent.deactivated')).toHaveLength(1);
  });

  test('parallel freezes all answer 200 frozen and write a single agent.frozen record', async () => {
    const agent = await newAgent(acct.test);
    const results = await Promise.all(Array.from({ length: 6 }, () => acct.test.post(`/v1/agents/${agent.id}/freeze`)));
    expect(results.map((r) => [r.status, r.body.status])).toEqual(Array(6).fill([200, 'frozen']));
    expect(await auditOf(acct.test, agent.id, 'agent.frozen')).toHaveLength(1);
  });

  test('parallel metadata merges on one agent lose no key', async () => {
    const agent = await newAgent(acct.test);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => acct.test.patch(`/v1/agents/${agent.id}`, { metadata: { [`k${i}`]: i } })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    const expected = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k${i}`, i]));
    expect((await acct.test.get(`/v1/agents/${agent.id}`)).body.metadata).toEqual(expected);
  });

  test('the audit chain still verifies after everything above', async () => {
    const res = await acct.test.get('/v1/audit-logs/verify');
    expect(res.status).toBe(200);
    expect(res.body.valid).toBe(true);
  });
});
