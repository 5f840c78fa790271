import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;

beforeAll(async () => {
  ctx = await createTestContext();
  acct = await ctx.account('growth');
});
afterAll(() => ctx?.close());

const create = (body: Record<string, unknown>, client = acct.test) => client.post('/v1/webhook-endpoints', { events: ['*'], ...body });

describe('webhook endpoints', () => {
  test('create answers 201 with a whsec_ secret shown once; reads never show it', async () => {
    const res = await create({ url: 'https://93.184.216.34/spend', events: ['authorize.approved', 'approval.completed'], description: 'ledger' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ object: 'webhook_endpoint', url: 'https://93.184.216.34/spend', events: ['authorize.approved', 'approval.completed'], enabled: true, description: 'ledger', livemode: false });
    expect(res.body.id).toMatch(/^we_/);
    expect(res.body.secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    const one = await acct.test.get(`/v1/webhook-endpoints/${res.body.id}`);
    const list = await acct.test.get('/v1/webhook-endpoints');
    for (const r of [one, list]) {
      expect(r.status).toBe(200);
      expect(JSON.stringify(r.body)).not.toContain(res.body.secret);
      expect(JSON.stringify(r.body)).not.toMatch(/"secret"/);
    }
    expect(list.body.data.map((e: any) => e.id)).toContain(res.body.id);
  });

  test.each([
    'http://127.0.0.1/hook',
    'http://localhost:8080/hook',
    'http://10.0.0.7/hook',
    'http://192.168.1.10/hook',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.64.1.1/hook',
    'http://[::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[fd00:ec2::254]/hook',
    'http://0.0.0.0/hook',
    'http://224.0.0.1/hook',
  ])('refuses %s at creation (400 naming url)', async (url) => {
    const res = await create({ url });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'url' });
  });

  test('live mode requires https', async () => {
    const res = await create({ url: 'http://93.184.216.34/x' }, acct.live!);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('url');
    expect((await create({ url: 'https://93.184.216.34/x' }, acct.live!)).status).toBe(201);
  });

  test.each([
    [{ url: 'https://93.184.216.34/x', events: [] }, 'events'],
    [{ url: 'https://93.184.216.34/x', events: ['payment.made'] }, 'events.0'],
    [{ url: 'https://93.184.216.34/x', events: ['*'], colour: 'red' }, 'colour'],
    [{ events: ['*'] }, 'url'],
  ])('%j answers 400 naming %s', async (body, param) => {
    const res = await acct.test.post('/v1/webhook-endpoints', body);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe(param);
  });

  test('patch, rotate-secret and delete; each is audited', async () => {
    const created = (await create({ url: 'https://93.184.216.34/a' })).body;
    const patched = await acct.test.patch(`/v1/webhook-endpoints/${created.id}`, { enabled: false, events: ['agent.frozen'] });
    expect(patched.body).toMatchObject({ enabled: false, events: ['agent.frozen'] });
    expect((await acct.test.patch(`/v1/webhook-endpoints/${created.id}`, { url: 'http://127.0.0.1/x' })).status).toBe(400);
    const rotated = await acct.test.post(`/v1/webhook-endpoints/${created.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.secret);
    const deleted = await acct.test.delete(`/v1/webhook-endpoints/${created.id}`);
    expect(deleted.body).toEqual({ id: created.id, object: 'webhook_endpoint', deleted: true });
    expect((await acct.test.get(`/v1/webhook-endpoints/${created.id}`)).status).toBe(404);
    const audit = await acct.test.get('/v1/audit-logs?limit=100');
    const types = audit.body.data.filter((r: any) => r.metadata.webhook_endpoint_id === created.id).map((r: any) => r.type);
    expect(types.sort()).toEqual(['webhook_endpoint.created', 'webhook_endpoint.deleted', 'webhook_endpoint.secret_rotated', 'webhook_endpoint.updated']);
    expect(JSON.stringify(audit.body)).not.toContain(rotated.body.secret);
  });

  test('reviewers read endpoints; only admins change them; other accounts see 404', async () => {
    const created = (await create({ url: 'https://93.184.216.34/r' })).body;
    const reviewer = ctx.client((await acct.test.post('/v1/api-keys', { name: 'r', role: 'reviewer' })).body.key);
    expect((await reviewer.get(`/v1/webhook-endpoints/${created.id}`)).status).toBe(200);
    expect((await reviewer.post('/v1/webhook-endpoints', { url: 'https://93.184.216.34', events: ['*'] })).status).toBe(403);
    expect((await reviewer.delete(`/v1/webhook-endpoints/${created.id}`)).status).toBe(403);
    const other = await ctx.account();
    expect((await other.test.get(`/v1/webhook-endpoints/${created.id}`)).status).toBe(404);
    expect((await other.test.get(`/v1/webhook-endpoints/${created.id}/deliveries`)).status).toBe(404);
  });
});

describe('events', () => {
  test('decisions write events in their transaction; data is the decision without its token', async () => {
    const a = await ctx.account();
    const policy = (await a.test.post('/v1/policies', policyBody({ require_approval_above: 5_000, vendor_denylist: ['bad.example'] }))).body;
    const agent = (await a.test.post('/v1/agents', { name: 'x', policy_id: policy.id })).body;
    const approved = await a.test.post('/v1/authorize', { agent_id: agent.id, amount: 100, currency: 'USD', vendor: 'ok.example' });
    await a.test.post('/v1/authorize', { agent_id: agent.id, amount: 100, currency: 'USD', vendor: 'bad.example' });
    await a.test.post('/v1/authorize', { agent_id: agent.id, amount: 9_000, currency: 'USD', vendor: 'ok.example' });
    await a.test.post(`/v1/agents/${agent.id}/freeze`);
    const list = await a.test.get('/v1/events?limit=100');
    expect(list.body.data.map((e: any) => e.event).sort()).toEqual(['agent.frozen', 'approval.completed', 'authorize.approved', 'authorize.denied', 'authorize.held']);
    expect(JSON.stringify(list.body)).not.toMatch(/gca_|authorization_token|whsec_/);
    const ev = list.body.data.find((e: any) => e.event === 'authorize.approved');
    expect(ev).toMatchObject({ object: 'event', data: { decision_id: approved.body.decision_id, decision: 'approved' } });
    expect(ev.id).toMatch(/^evt_/);
    expect((await a.test.get(`/v1/events/${ev.id}`)).body).toEqual(ev);
    expect((await a.test.get('/v1/events?type=authorize.held')).body.data).toHaveLength(1);
    expect((await acct.test.get(`/v1/events/${ev.id}`)).status).toBe(404);
  });

  test('redeliver creates a fresh delivery per subscribed endpoint, each queued for its workflow', async () => {
    const a = await ctx.account();
    const hook = (await a.test.post('/v1/webhook-endpoints', { url: 'https://93.184.216.34/re', events: ['agent.frozen'] })).body;
    await a.test.post('/v1/webhook-endpoints', { url: 'https://93.184.216.34/other', events: ['authorize.held'] });
    const policy = (await a.test.post('/v1/policies', policyBody())).body;
    const agent = (await a.test.post('/v1/agents', { name: 'x', policy_id: policy.id })).body;
    await a.test.post(`/v1/agents/${agent.id}/freeze`);
    const ev = (await a.test.get('/v1/events?type=agent.frozen')).body.data[0];
    const res = await a.test.post(`/v1/events/${ev.id}/redeliver`);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]).toMatchObject({ object: 'webhook_delivery', event_id: ev.id, endpoint_id: hook.id, status: 'pending' });
    const queued = await ctx.database.db.selectFrom('outbox').selectAll().where('topic', '=', 'webhook_delivery').where('ref_id', '=', res.body.data[0].id).execute();
    expect(queued).toHaveLength(1);
    expect((await a.test.post(`/v1/events/${ev.id}/redeliver`, { endpoint_id: 'we_nope' })).status).toBe(404);
  });
});
