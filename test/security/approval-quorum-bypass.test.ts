/**
 * Attack: one holder of a key tries to complete a hold's quorum of approvals (docs/api.md,
 * "Approval chains") alone, or with a key that may not approve it at all: the same reviewer key
 * twice (one after the other, all at once, and as a retried activity), a key of another account, a
 * key of the other mode, an agent key, a revoked key. None may add an approval, and the hold must
 * stay pending without a token. The engine is the FAKE inline gateway (the workflow's own duplicate
 * check is covered on a real server in test/workflows/approval-chains.server.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHeldActivities } from '../../activities/held-authorization.js';
import { signApprovalAuthority } from '../../src/approvals/approval-authority.js';
import { createTestContext, policyBody, type Client, type TestAccount, type TestContext } from '../support/context.js';
import { FakeInlineGateway } from '../support/fake-gateway.js';

let ctx: TestContext;
let acct: TestAccount;
let reviewer: { id: string; client: Client };

beforeAll(async () => {
  ctx = await createTestContext({ gateway: (deps) => new FakeInlineGateway(deps), testModeRateLimit: 100_000 });
  acct = await ctx.account('growth');
  reviewer = await keyOf(acct.test, { name: 'Rita', role: 'reviewer' });
});
afterAll(() => ctx?.close());

async function keyOf(admin: Client, body: Record<string, unknown>): Promise<{ id: string; client: Client }> {
  const res = await admin.post('/v1/api-keys', body);
  expect(res.status).toBe(201);
  return { id: res.body.id, client: ctx.client(res.body.key) };
}

/** A fresh hold of 5,000 that needs two approvals, with its agent. */
async function quorumHold(): Promise<{ id: string; agentId: string }> {
  const p = await acct.test.post('/v1/policies', policyBody({ require_approval_above: 100, approval_rules: [{ above: 1_000, approvals_required: 2 }] }));
  const agentId = (await acct.test.post('/v1/agents', { name: 'target', policy_id: p.body.id })).body.id;
  const held = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 5_000, currency: 'USD', vendor: 'shop.example' });
  expect(held.body).toMatchObject({ status: 'pending', approvals_required: 2 });
  return { id: held.body.decision_id, agentId };
}

async function expectUntouched(id: string, approvals: number): Promise<void> {
  const d = (await acct.test.get(`/v1/decisions/${id}`)).body;
  expect(d).toMatchObject({ status: 'pending', decision: 'held' });
  expect(d.approvals).toHaveLength(approvals);
  expect(d).not.toHaveProperty('authorization_token');
}

const recordedApprovals = async (agentId: string) =>
  (await acct.test.get(`/v1/audit-logs?agent_id=${agentId}&type=approval.recorded`)).body.data as { actor: { id: string } }[];

describe('one reviewer key cannot make a quorum of two', () => {
  test('approving twice in a row: the second is 409 conflict, one approval stays recorded', async () => {
    const { id, agentId } = await quorumHold();
    expect((await reviewer.client.post(`/v1/approvals/${id}/approve`)).body.status).toBe('pending');
    const again = await reviewer.client.post(`/v1/approvals/${id}/approve`, { note: 'really sure' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'conflict', param: 'decision_id' });
    await expectUntouched(id, 1);
    expect(await recordedApprovals(agentId)).toHaveLength(1);
  });

  test('ten approvals at once under one key: one recorded, the hold still pending', async () => {
    const { id, agentId } = await quorumHold();
    const answers = await Promise.all(Array.from({ length: 10 }, () => reviewer.client.post(`/v1/approvals/${id}/approve`)));
    expect(answers.every((a) => a.status === 200 || a.status === 409)).toBe(true);
    expect(answers.filter((a) => a.status === 200).every((a) => a.body.status === 'pending')).toBe(true);
    await expectUntouched(id, 1);
    expect(await recordedApprovals(agentId)).toHaveLength(1);
  });

  test('the same approval recorded again (a retried activity) adds nothing', async () => {
    const { id, agentId } = await quorumHold();
    const activities = createHeldActivities({ db: ctx.database.db, signer: ctx.signer });
    // As the API sends it: with its mark, so it is the reviewer key's approval (not the operator's).
    const input = { decisionId: id, note: null, reviewer: reviewer.id, via: 'api' as const, authority: signApprovalAuthority({ decisionId: id, reviewer: reviewer.id, outcome: 'approved' }) };
    expect(await activities.recordApproval(input)).toMatchObject({ changed: true, status: 'pending' });
    expect(await activities.recordApproval(input)).toMatchObject({ changed: false, status: 'pending' });
    await expectUntouched(id, 1);
    expect(await recordedApprovals(agentId)).toHaveLength(1);
  });

  test('the single-approval path (a run of the previous version) cannot approve a quorum hold: the resolving write records one approval', async () => {
    const { id, agentId } = await quorumHold();
    const activities = createHeldActivities({ db: ctx.database.db, signer: ctx.signer });
    const authority = signApprovalAuthority({ decisionId: id, reviewer: reviewer.id, outcome: 'approved' });
    const seen = await activities.resolveHeldDecision({ decisionId: id, outcome: 'approved', note: 'alone', reviewer: reviewer.id, via: 'api', authority });
    expect(seen).toMatchObject({ status: 'pending', decision: 'held' });
    await expectUntouched(id, 1);
    expect(await recordedApprovals(agentId)).toHaveLength(1);
    // An operator's signal on that path counts once too.
    await activities.resolveHeldDecision({ decisionId: id, outcome: 'approved', note: null, reviewer: 'ops-1', via: 'operator' });
    await activities.resolveHeldDecision({ decisionId: id, outcome: 'approved', note: null, reviewer: 'ops-2', via: 'operator' });
    const after = (await acct.test.get(`/v1/decisions/${id}`)).body;
    expect(after.status).toBe('approved');
    expect(after.approvals.map((a: any) => a.api_key_id)).toEqual([reviewer.id, null]);
  });

  test("an admin key's approval counts for that key only: its second is refused like a reviewer's", async () => {
    const { id } = await quorumHold();
    expect((await acct.test.post(`/v1/approvals/${id}/approve`)).body.status).toBe('pending');
    expect((await acct.test.post(`/v1/approvals/${id}/approve`)).status).toBe(409);
    await expectUntouched(id, 1);
  });
});

describe('keys that may not approve the hold at all', () => {
  test("another account's reviewer key: 404 not_found, nothing recorded", async () => {
    const { id } = await quorumHold();
    const other = await ctx.account('growth');
    const stranger = await keyOf(other.test, { name: 'Stranger', role: 'reviewer' });
    const res = await stranger.client.post(`/v1/approvals/${id}/approve`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect((await other.test.post(`/v1/approvals/${id}/approve`)).status).toBe(404);
    await expectUntouched(id, 0);
  });

  test("the same account's live-mode keys: 404 not_found (a test hold is invisible in live mode)", async () => {
    const { id } = await quorumHold();
    const liveReviewer = await keyOf(acct.live!, { name: 'Live reviewer', mode: 'live', role: 'reviewer' });
    expect((await liveReviewer.client.post(`/v1/approvals/${id}/approve`)).status).toBe(404);
    expect((await acct.live!.post(`/v1/approvals/${id}/approve`)).status).toBe(404);
    await expectUntouched(id, 0);
  });

  test("an agent key, even the hold's own agent's: 403 forbidden", async () => {
    const { id, agentId } = await quorumHold();
    const own = await keyOf(acct.test, { name: 'Agent key', role: 'agent', agent_id: agentId });
    const res = await own.client.post(`/v1/approvals/${id}/approve`);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect((await own.client.post(`/v1/approvals/${id}/deny`)).status).toBe(403);
    await expectUntouched(id, 0);
  });

  test('a revoked reviewer key: 401, nothing recorded', async () => {
    const { id } = await quorumHold();
    const gone = await keyOf(acct.test, { name: 'Leaver', role: 'reviewer' });
    expect((await acct.test.delete(`/v1/api-keys/${gone.id}`)).status).toBe(200);
    expect((await gone.client.post(`/v1/approvals/${id}/approve`)).status).toBe(401);
    await expectUntouched(id, 0);
  });
});
