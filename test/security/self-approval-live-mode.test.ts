/**
 * Attack: one live admin key (a stolen one, or one person alone) asks for a spend that needs a
 * reviewer and approves its own hold, so four eyes become two. In live mode the key that made a
 * held request cannot approve it: 403 forbidden with the reason, nothing recorded, the hold still
 * pending without a token; alone it cannot count towards a quorum either. It may deny it, which
 * withdraws the request. Test mode allows both, so one key can try the whole flow. The engine is
 * the FAKE inline gateway (the check runs in the API before the engine is asked). The requester is
 * an admin key minted by the account's command-line key, and the other keys are minted beside it:
 * a key the requester minted counts as the requester (test/security/key-descent-four-eyes.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestContext, policyBody, type Client, type TestAccount, type TestContext } from '../support/context.js';
import { FakeInlineGateway } from '../support/fake-gateway.js';

let ctx: TestContext;
let acct: TestAccount;
/** The account's command-line live key: it mints the requester and the other keys side by side. */
let root: Client;
let live: Client;
let liveReviewer: { id: string; client: Client };
let liveKeyId: string;

beforeAll(async () => {
  ctx = await createTestContext({ gateway: (deps) => new FakeInlineGateway(deps), testModeRateLimit: 100_000 });
  acct = await ctx.account('growth');
  root = acct.live!;
  const requester = await root.post('/v1/api-keys', { name: 'Requesting admin', role: 'admin' });
  live = ctx.client(requester.body.key);
  liveKeyId = requester.body.id;
  const r = await root.post('/v1/api-keys', { name: 'Second pair of eyes', role: 'reviewer' });
  liveReviewer = { id: r.body.id, client: ctx.client(r.body.key) };
});
afterAll(() => ctx?.close());

async function hold(client: Client, approvalsRequired = 1): Promise<string> {
  const rules = approvalsRequired > 1 ? [{ above: 1_000, approvals_required: approvalsRequired }] : [];
  const p = await client.post('/v1/policies', policyBody({ require_approval_above: 100, approval_rules: rules }));
  const agentId = (await client.post('/v1/agents', { name: 'bot', policy_id: p.body.id })).body.id;
  const held = await client.post('/v1/authorize', { agent_id: agentId, amount: 5_000, currency: 'USD', vendor: 'shop.example' });
  expect(held.body).toMatchObject({ decision: 'held', status: 'pending' });
  return held.body.decision_id;
}

const auditOf = async (client: Client, id: string) => {
  const { agent_id } = (await client.get(`/v1/decisions/${id}`)).body;
  return ((await client.get(`/v1/audit-logs?agent_id=${agent_id}&limit=100`)).body.data as any[]).filter((r) => r.decision_id === id).map((r) => r.type);
};

describe('live mode: the key that asked cannot approve', () => {
  test('its approval is 403 forbidden saying why; nothing is recorded; the hold stays pending without a token', async () => {
    const id = await hold(live);
    expect((await live.get(`/v1/decisions/${id}`)).body.requested_by).toBe(liveKeyId);
    const res = await live.post(`/v1/approvals/${id}/approve`, { note: 'looks fine to me' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect(res.body.error.message).toMatch(/requested .*cannot approve it \(four eyes\)/);
    const after = (await live.get(`/v1/decisions/${id}`)).body;
    expect(after).toMatchObject({ status: 'pending', decision: 'held', approvals: [] });
    expect(after).not.toHaveProperty('authorization_token');
    expect(await auditOf(live, id)).toEqual(['authorization.decision']);
  });

  test('another key approves it', async () => {
    const id = await hold(live);
    expect((await live.post(`/v1/approvals/${id}/approve`)).status).toBe(403);
    const res = await liveReviewer.client.post(`/v1/approvals/${id}/approve`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'approved', approvals: [{ api_key_id: liveReviewer.id }] });
  });

  test('on a quorum of two, its approval does not count: the hold needs two other keys', async () => {
    const id = await hold(live, 2);
    expect((await live.post(`/v1/approvals/${id}/approve`)).status).toBe(403);
    expect((await liveReviewer.client.post(`/v1/approvals/${id}/approve`)).body).toMatchObject({ status: 'pending', approvals: [{ api_key_id: liveReviewer.id }] });
    expect((await live.post(`/v1/approvals/${id}/approve`)).status).toBe(403);
    expect((await live.get(`/v1/decisions/${id}`)).body).toMatchObject({ status: 'pending', approvals: [{ api_key_id: liveReviewer.id }] });
  });

  test('it may deny its own request, which withdraws it', async () => {
    const id = await hold(live);
    const res = await live.post(`/v1/approvals/${id}/deny`, { note: 'asked by mistake' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'denied', decision: 'denied', reason_code: 'policy_denied' });
    expect(res.body.reason).toBe('Withdrawn by the API key that requested it. asked by mistake');
  });

  test('a key that did not ask may approve, also an admin key other than the requester', async () => {
    const other = await root.post('/v1/api-keys', { name: 'Other admin', role: 'admin' });
    const id = await hold(live);
    const res = await ctx.client(other.body.key).post(`/v1/approvals/${id}/approve`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('approved');
  });
});

describe('test mode allows one key the whole flow', () => {
  test('the key that asked approves its own hold', async () => {
    const id = await hold(acct.test);
    const res = await acct.test.post(`/v1/approvals/${id}/approve`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('approved');
  });
});
