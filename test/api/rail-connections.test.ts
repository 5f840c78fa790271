/**
 * `/v1/rail-connections`: admins create and delete, reviewers read, agents neither; the signing
 * secret is write-only and sealed at rest; connections are scoped by account and mode.
 */
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { newSigningSecret, postToRail, requestEvent } from '../support/stripe-issuing.js';

let ctx: TestContext;
let acct: TestAccount;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  acct = await ctx.account('growth');
});
afterAll(() => ctx?.close());

const create = (body: Record<string, unknown>, client = acct.test) => client.post('/v1/rail-connections', { type: 'stripe_issuing', signing_secret: newSigningSecret(), ...body });

async function keyOf(role: 'reviewer' | 'agent') {
  let agentId: string | undefined;
  if (role === 'agent') {
    const p = await acct.test.post('/v1/policies', { name: 'p', budget_monthly: 1, budget_single_max: 1 });
    agentId = (await acct.test.post('/v1/agents', { name: 'a', policy_id: p.body.id })).body.id;
  }
  const res = await acct.test.post('/v1/api-keys', { name: role, mode: 'test', role, ...(agentId ? { agent_id: agentId } : {}) });
  return ctx.client(res.body.key);
}

describe('POST /v1/rail-connections', () => {
  test('answers the connection with its endpoint URL and defaults; never the secret', async () => {
    const secret = newSigningSecret();
    const res = await acct.test.post('/v1/rail-connections', { type: 'stripe_issuing', signing_secret: secret });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^rail_[0-9A-Za-z]{24}$/),
      object: 'rail_connection',
      type: 'stripe_issuing',
      livemode: false,
      endpoint_url: `${ctx.baseUrl}/rails/stripe-issuing/${res.body.id}`,
      stripe_version: Stripe.API_VERSION,
      on_timeout: 'decline',
      created_at: expect.any(String),
    });
    expect(res.text).not.toContain(secret);
    // Sealed at rest: the stored text is neither the secret nor anything that contains it.
    const row = await ctx.database.db.selectFrom('rail_connections').selectAll().where('id', '=', res.body.id).executeTakeFirstOrThrow();
    expect(row.signing_secret_sealed).not.toContain(secret.slice(6));
    expect(row.signing_secret_sealed).toMatch(/^v1\./);
    // Audited, without the secret.
    const audit = ((await acct.test.get('/v1/audit-logs?type=rail_connection.created')).body.data as any[]).find((r) => r.metadata.rail_connection_id === res.body.id);
    expect(audit).toMatchObject({ actor: { type: 'api_key' }, metadata: { rail_type: 'stripe_issuing', on_timeout: 'decline' } });
    expect(JSON.stringify(audit)).not.toContain(secret);
  });

  test('takes stripe_version and on_timeout', async () => {
    const res = await create({ stripe_version: '2024-06-20', on_timeout: 'approve' });
    expect(res.body).toMatchObject({ stripe_version: '2024-06-20', on_timeout: 'approve' });
  });

  test.each([
    ['no secret', { signing_secret: undefined }, 'signing_secret'],
    ['a secret of another shape', { signing_secret: 'sk_test_123456789' }, 'signing_secret'],
    ['another type', { type: 'lithic' }, 'type'],
    ['a bad on_timeout', { on_timeout: 'maybe' }, 'on_timeout'],
    ['a bad stripe_version', { stripe_version: 'latest' }, 'stripe_version'],
    ['an unknown field', { url: 'https://x.example' }, 'url'],
  ])('%s → 400 naming %s', async (_name, body, param) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
  });
});

describe('roles and scope', () => {
  test('reviewers list and read; reviewers and agents cannot create or delete; agents cannot read', async () => {
    const made = (await create({})).body;
    const reviewer = await keyOf('reviewer');
    const agent = await keyOf('agent');
    expect((await reviewer.get('/v1/rail-connections')).body.data.map((c: any) => c.id)).toContain(made.id);
    expect((await reviewer.get(`/v1/rail-connections/${made.id}`)).body.id).toBe(made.id);
    expect((await create({}, reviewer)).status).toBe(403);
    expect((await reviewer.delete(`/v1/rail-connections/${made.id}`)).status).toBe(403);
    expect((await agent.get('/v1/rail-connections')).status).toBe(403);
    expect((await agent.get(`/v1/rail-connections/${made.id}`)).status).toBe(403);
    expect((await create({}, agent)).status).toBe(403);
  });

  test("another account's or the other mode's connection is not found", async () => {
    const made = (await create({})).body;
    const other = await ctx.account('growth');
    expect((await other.test.get(`/v1/rail-connections/${made.id}`)).status).toBe(404);
    expect((await other.test.delete(`/v1/rail-connections/${made.id}`)).status).toBe(404);
    expect((await acct.live!.get(`/v1/rail-connections/${made.id}`)).status).toBe(404);
    expect((await other.test.get('/v1/rail-connections')).body.data).toEqual([]);
    const live = (await create({}, acct.live!)).body;
    expect(live.livemode).toBe(true);
    expect((await acct.test.get('/v1/rail-connections?limit=100')).body.data.map((c: any) => c.id)).not.toContain(live.id);
  });

  test('lists page newest first', async () => {
    const fresh = await ctx.account('growth');
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await create({}, fresh.test)).body.id);
    const first = await fresh.test.get('/v1/rail-connections?limit=2');
    expect(first.body.data.map((c: any) => c.id)).toEqual([ids[2], ids[1]]);
    const second = await fresh.test.get(`/v1/rail-connections?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(second.body.data.map((c: any) => c.id)).toEqual([ids[0]]);
  });
});

describe('DELETE /v1/rail-connections/:id', () => {
  test('its endpoint refuses every request from then on; a second delete is 404', async () => {
    const secret = newSigningSecret();
    const made = (await acct.test.post('/v1/rail-connections', { type: 'stripe_issuing', signing_secret: secret })).body;
    const event = requestEvent({ agentId: null, amount: 100 });
    expect((await postToRail(ctx, made.id, event, { secret })).status).toBe(200);
    const res = await acct.test.delete(`/v1/rail-connections/${made.id}`);
    expect(res.body).toEqual({ id: made.id, object: 'rail_connection', deleted: true });
    const after = await postToRail(ctx, made.id, requestEvent({ agentId: null, amount: 100 }), { secret });
    expect(after.status).toBe(400);
    expect(after.body.error).toMatchObject({ code: 'invalid_request', param: 'id' });
    expect((await acct.test.delete(`/v1/rail-connections/${made.id}`)).status).toBe(404);
    expect((await acct.test.get(`/v1/rail-connections/${made.id}`)).status).toBe(404);
  });
});
