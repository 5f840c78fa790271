import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { touchKey } from '../../src/keys/keys.repository.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';
import { until } from '../support/wait.js';

let ctx: TestContext;
let acct: TestAccount;
let agentId: string;

beforeAll(async () => {
  ctx = await createTestContext();
  acct = await ctx.account('growth');
  const policy = await acct.test.post('/v1/policies', policyBody());
  agentId = (await acct.test.post('/v1/agents', { name: 'bot', policy_id: policy.body.id })).body.id;
});
afterAll(() => ctx?.close());

describe('POST /v1/api-keys', () => {
  test('returns the raw key once, with the mode prefix, and never a hash', async () => {
    const res = await acct.test.post('/v1/api-keys', { name: 'ci', role: 'reviewer' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ object: 'api_key', name: 'ci', role: 'reviewer', mode: 'test', livemode: false, agent_id: null, revoked_at: null });
    expect(res.body.id).toMatch(/^key_/);
    expect(res.body.key).toMatch(/^gc_test_[0-9A-Za-z]{32,}$/);
    expect(res.body.prefix.startsWith('gc_test_')).toBe(true);
    expect(JSON.stringify(res.body)).not.toMatch(/hash/);

    const list = await acct.test.get('/v1/api-keys?limit=100');
    const listed = list.body.data.find((k: any) => k.id === res.body.id);
    expect(listed).toBeDefined();
    expect(listed.key).toBeUndefined();
    expect(JSON.stringify(list.body)).not.toContain(res.body.key);
    expect(JSON.stringify(list.body)).not.toMatch(/key_hash/);
  });

  test('created_by: the key that minted it (null for the command-line key), also on the list and after revocation', async () => {
    const self = (await acct.test.get('/v1/api-keys/self')).body;
    expect(self.created_by).toBeNull();
    expect(self.created_via).toBe('command_line');
    const admin = await acct.test.post('/v1/api-keys', { name: 'team admin', role: 'admin' });
    expect(admin.body.created_by).toBe(self.id);
    expect(admin.body.created_via).toBe('api');
    const child = await ctx.client(admin.body.key).post('/v1/api-keys', { name: 'team reviewer', role: 'reviewer' });
    expect(child.body.created_by).toBe(admin.body.id);
    expect((await acct.test.delete(`/v1/api-keys/${admin.body.id}`)).body.created_by).toBe(self.id);
    const listed = (await acct.test.get('/v1/api-keys?limit=100')).body.data as { id: string; created_by: string | null }[];
    expect(listed.find((k) => k.id === child.body.id)?.created_by).toBe(admin.body.id);
    expect(listed.find((k) => k.id === admin.body.id)?.created_by).toBe(self.id);
    expect(listed.find((k) => k.id === self.id)?.created_by).toBeNull();
  });

  test('the stored form of a key is its SHA-256 hash, never the key', async () => {
    const res = await acct.test.post('/v1/api-keys', { name: 'stored', role: 'admin' });
    const row = await ctx.database.db.selectFrom('api_keys').selectAll().where('id', '=', res.body.id).executeTakeFirstOrThrow();
    const { createHash } = await import('node:crypto');
    expect(row.key_hash).toBe(createHash('sha256').update(res.body.key).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(res.body.key);
  });

  test('a live admin can mint a live key for a paid plan; the live key sees live data only', async () => {
    const res = await acct.live!.post('/v1/api-keys', { name: 'live', role: 'admin', mode: 'live' });
    expect(res.status).toBe(201);
    expect(res.body.key).toMatch(/^gc_live_/);
    const live = ctx.client(res.body.key);
    expect((await live.get(`/v1/agents/${agentId}`)).status).toBe(404);
  });

  test('a sandbox account cannot mint live keys (403 forbidden)', async () => {
    const sandbox = await ctx.account('sandbox');
    expect(sandbox.live).toBeUndefined();
    const res = await sandbox.test.post('/v1/api-keys', { name: 'live', role: 'admin', mode: 'live' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
  });

  test.each([
    [{ name: 'a', role: 'agent' }, 'agent_id'],
    [{ name: 'a', role: 'admin', agent_id: 'agt_x' }, 'agent_id'],
    [{ name: 'a', role: 'owner' }, 'role'],
    [{ role: 'admin' }, 'name'],
    [{ name: 'a', role: 'admin', mode: 'prod' }, 'mode'],
  ])('%j answers 400 with param %s', async (body, param) => {
    const res = await acct.test.post('/v1/api-keys', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
  });

  test('an agent key for an unknown or other-account agent answers 404', async () => {
    const other = await ctx.account();
    const res = await other.test.post('/v1/api-keys', { name: 'a', role: 'agent', agent_id: agentId });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'not_found', param: 'agent_id' });
  });
});

describe('roles', () => {
  test('reviewer and agent keys cannot manage keys (403 forbidden)', async () => {
    const reviewer = ctx.client((await acct.test.post('/v1/api-keys', { name: 'r', role: 'reviewer' })).body.key);
    const agent = ctx.client((await acct.test.post('/v1/api-keys', { name: 'g', role: 'agent', agent_id: agentId })).body.key);
    for (const c of [reviewer, agent]) {
      expect((await c.get('/v1/api-keys')).status).toBe(403);
      const res = await c.post('/v1/api-keys', { name: 'x', role: 'admin' });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
  });
});

describe('last_used_at', () => {
  test('is null until the key is used, then set shortly after (not on the request path), and not rewritten within the minute', async () => {
    const created = (await acct.test.post('/v1/api-keys', { name: 'usage', role: 'reviewer' })).body;
    const listed = async () => (await acct.test.get('/v1/api-keys?limit=100')).body.data.find((k: { id: string }) => k.id === created.id);
    expect((await listed()).last_used_at).toBeNull();

    const before = Date.now();
    expect((await ctx.client(created.key).get('/v1/agents')).status).toBe(200);
    const first = await until('last_used_at to be set', async () => (await listed()).last_used_at ?? undefined, 5_000);
    expect(new Date(first).getTime()).toBeGreaterThanOrEqual(before - 1_000);
    expect(new Date(first).getTime()).toBeLessThanOrEqual(Date.now());

    for (let i = 0; i < 3; i += 1) expect((await ctx.client(created.key).get('/v1/agents')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect((await listed()).last_used_at).toBe(first);
  });

  test('the database write is at most once a minute per key even across processes', async () => {
    const created = (await acct.test.post('/v1/api-keys', { name: 'two processes', role: 'reviewer' })).body;
    const at = new Date();
    await touchKey(ctx.database.db, created.id, at);
    // Another process, a few seconds later: its write changes nothing until the minute is over.
    await touchKey(ctx.database.db, created.id, new Date(at.getTime() + 5_000));
    const row = () => ctx.database.db.selectFrom('api_keys').select('last_used_at').where('id', '=', created.id).executeTakeFirstOrThrow();
    expect((await row()).last_used_at?.getTime()).toBe(at.getTime());
    await touchKey(ctx.database.db, created.id, new Date(at.getTime() + 61_000));
    expect((await row()).last_used_at?.getTime()).toBe(at.getTime() + 61_000);
  });
});

describe('DELETE /v1/api-keys/:id', () => {
  test('revokes the key, records it in the audit log, and is repeatable', async () => {
    const created = await acct.test.post('/v1/api-keys', { name: 'gone', role: 'reviewer' });
    const first = await acct.test.delete(`/v1/api-keys/${created.body.id}`);
    expect(first.status).toBe(200);
    expect(first.body.revoked_at).not.toBeNull();
    const second = await acct.test.delete(`/v1/api-keys/${created.body.id}`);
    expect(second.status).toBe(200);
    expect(second.body.revoked_at).toBe(first.body.revoked_at);
    const audit = await acct.test.get('/v1/audit-logs?type=api_key.revoked&limit=100');
    expect(audit.body.data.filter((r: any) => r.metadata.api_key_id === created.body.id)).toHaveLength(1);
    expect((await ctx.client(created.body.key).get('/v1/agents')).status).toBe(401);
  });

  test("another account's key id answers 404", async () => {
    const other = await ctx.account();
    const created = await other.test.post('/v1/api-keys', { name: 'theirs', role: 'reviewer' });
    const res = await acct.test.delete(`/v1/api-keys/${created.body.id}`);
    expect(res.status).toBe(404);
    expect((await ctx.client(created.body.key).get('/v1/agents')).status).toBe(200);
  });
});
