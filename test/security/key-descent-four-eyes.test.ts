/**
 * Attack: a key lends its hands to itself. A live admin key may not approve its own hold (four
 * eyes), so it mints a reviewer key and approves with that, or mints two keys to fill a quorum of
 * two. A key minted through the API descends from the key that minted it (`created_by`, kept for
 * good): the requesting key and every key descending from it count as the requester and may not
 * approve its live hold (403 forbidden, saying why); in a quorum a key and its descendants count as
 * one approver (409 conflict for the later one, whatever the order, also at once). Keys minted side
 * by side by one admin key stay distinct approvers. The engine is the FAKE inline gateway, which
 * records approvals through the workflow's own activity; the resolving write is also driven
 * directly, as a run of the workflow would.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHeldActivities } from '../../activities/held-authorization.js';
import { signApprovalAuthority } from '../../src/approvals/approval-authority.js';
import { createTestContext, policyBody, type Client, type TestAccount, type TestContext } from '../support/context.js';
import { FakeInlineGateway } from '../support/fake-gateway.js';

interface Key {
  id: string;
  client: Client;
}

let ctx: TestContext;
let acct: TestAccount;
/** The account's live admin key from the command line: minted by no key. */
let root: Key;

beforeAll(async () => {
  ctx = await createTestContext({ gateway: (deps) => new FakeInlineGateway(deps), testModeRateLimit: 100_000 });
  acct = await ctx.account('growth');
  root = { id: (await acct.live!.get('/v1/api-keys/self')).body.id, client: acct.live! };
});
afterAll(() => ctx?.close());

async function mint(by: Key, name: string, role: 'admin' | 'reviewer' = 'reviewer'): Promise<Key> {
  const res = await by.client.post('/v1/api-keys', { name, role });
  expect(res.status).toBe(201);
  expect(res.body.created_by).toBe(by.id);
  return { id: res.body.id, client: ctx.client(res.body.key) };
}

/** A live hold of 5,000 requested by `requester` (an admin key), needing `approvalsRequired` approvals. */
async function hold(requester: Key, approvalsRequired = 1): Promise<{ id: string; agentId: string }> {
  const rules = approvalsRequired > 1 ? [{ above: 1_000, approvals_required: approvalsRequired }] : [];
  const p = await root.client.post('/v1/policies', policyBody({ require_approval_above: 100, approval_rules: rules }));
  const agentId = (await root.client.post('/v1/agents', { name: 'bot', policy_id: p.body.id })).body.id;
  const held = await requester.client.post('/v1/authorize', { agent_id: agentId, amount: 5_000, currency: 'USD', vendor: 'shop.example' });
  expect(held.body).toMatchObject({ decision: 'held', status: 'pending', requested_by: requester.id, approvals_required: approvalsRequired });
  return { id: held.body.decision_id, agentId };
}

const approve = (k: Key, id: string) => k.client.post(`/v1/approvals/${id}/approve`);

async function expectPending(id: string, approvers: string[]): Promise<void> {
  const d = (await root.client.get(`/v1/decisions/${id}`)).body;
  expect(d).toMatchObject({ status: 'pending', decision: 'held' });
  expect(d.approvals.map((a: { api_key_id: string }) => a.api_key_id)).toEqual(approvers);
  expect(d).not.toHaveProperty('authorization_token');
}

const recordedApprovals = async (agentId: string) =>
  ((await root.client.get(`/v1/audit-logs?agent_id=${agentId}&type=approval.recorded`)).body.data as unknown[]).length;

function expectForbiddenAsRequester(res: { status: number; body: any }): void {
  expect(res.status).toBe(403);
  expect(res.body.error.code).toBe('forbidden');
  expect(res.body.error.message).toMatch(/descending from the API key that requested .*four eyes/);
}

function expectSameApprover(res: { status: number; body: any }): void {
  expect(res.status).toBe(409);
  expect(res.body.error).toMatchObject({ code: 'conflict', param: 'decision_id' });
  expect(res.body.error.message).toMatch(/count as one approver/);
}

describe('live mode: a key the requester minted counts as the requester', () => {
  test('a reviewer minted by the live admin key cannot approve its hold: 403 saying why, nothing recorded; it may deny', async () => {
    const reviewer = await mint(root, 'Own reviewer');
    const { id } = await hold(root);
    expect((await approve(root, id)).status).toBe(403);
    expectForbiddenAsRequester(await approve(reviewer, id));
    await expectPending(id, []);
    const denied = await reviewer.client.post(`/v1/approvals/${id}/deny`, { note: 'not this one' });
    expect(denied.status).toBe(200);
    expect(denied.body).toMatchObject({ status: 'denied', decision: 'denied' });
  });

  test('a grandchild key (minted by a key the requester minted) cannot approve either, nor can the key between', async () => {
    const middle = await mint(root, 'Middle admin', 'admin');
    const grandchild = await mint(middle, 'Grandchild reviewer');
    const { id } = await hold(root);
    expectForbiddenAsRequester(await approve(grandchild, id));
    expectForbiddenAsRequester(await approve(middle, id));
    await expectPending(id, []);
  });

  test('the line holds after revocation: a key revoked in between still links its descendants to the requester', async () => {
    const middle = await mint(root, 'Revoked middle', 'admin');
    const grandchild = await mint(middle, 'Orphaned reviewer');
    expect((await root.client.delete(`/v1/api-keys/${middle.id}`)).status).toBe(200);
    const { id } = await hold(root);
    expectForbiddenAsRequester(await approve(grandchild, id));
    await expectPending(id, []);
    const listed = (await root.client.get('/v1/api-keys?limit=100')).body.data as { id: string; created_by: string | null; revoked_at: string | null }[];
    expect(listed.find((k) => k.id === middle.id)).toMatchObject({ created_by: root.id, revoked_at: expect.any(String) });
    expect(listed.find((k) => k.id === grandchild.id)).toMatchObject({ created_by: middle.id, revoked_at: null });
    expect(listed.find((k) => k.id === root.id)).toMatchObject({ created_by: null });
  });

  test('a requester minted by an admin: its own child is refused; a sibling and the admin above it may approve', async () => {
    const requester = await mint(root, 'Requesting admin', 'admin');
    const child = await mint(requester, 'Requester child');
    const sibling = await mint(root, 'Sibling reviewer');
    const first = await hold(requester);
    expectForbiddenAsRequester(await approve(child, first.id));
    const ok = await approve(sibling, first.id);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'approved', approvals: [{ api_key_id: sibling.id }] });
    // The key the requester descends from is someone else: it may approve.
    const second = await hold(requester);
    expect((await approve(root, second.id)).body).toMatchObject({ status: 'approved' });
  });

  test('on a quorum of two, two keys the requester minted add nothing', async () => {
    const one = await mint(root, 'Helper one');
    const two = await mint(root, 'Helper two');
    const { id, agentId } = await hold(root, 2);
    expectForbiddenAsRequester(await approve(one, id));
    expectForbiddenAsRequester(await approve(two, id));
    await expectPending(id, []);
    expect(await recordedApprovals(agentId)).toBe(0);
  });
});

describe('quorum: a key and the keys descending from it count as one approver', () => {
  test('parent first, then its child: the child is told 409, as a repeat would be; a key outside the line completes it', async () => {
    const requester = await mint(root, 'Quorum requester', 'admin');
    const parent = await mint(root, 'Parent admin', 'admin');
    const child = await mint(parent, 'Child reviewer');
    const outsider = await mint(root, 'Outside reviewer');
    const { id, agentId } = await hold(requester, 2);
    expect((await approve(parent, id)).body).toMatchObject({ status: 'pending' });
    expectSameApprover(await approve(child, id));
    await expectPending(id, [parent.id]);
    expect(await recordedApprovals(agentId)).toBe(1);
    const done = await approve(outsider, id);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'approved', approvals: [{ api_key_id: parent.id }, { api_key_id: outsider.id }] });
  });

  test('child first, then its parent (or a grandparent): 409 for the later one', async () => {
    const requester = await mint(root, 'Quorum requester 2', 'admin');
    const parent = await mint(root, 'Parent admin 2', 'admin');
    const child = await mint(parent, 'Child admin 2', 'admin');
    const grandchild = await mint(child, 'Grandchild reviewer 2');
    const { id } = await hold(requester, 2);
    expect((await approve(grandchild, id)).body).toMatchObject({ status: 'pending' });
    expectSameApprover(await approve(parent, id));
    expectSameApprover(await approve(child, id));
    // The account's root key is every minted key's ancestor: one approver with each of them.
    expectSameApprover(await approve(root, id));
    await expectPending(id, [grandchild.id]);
  });

  test('a key and its child approving at once: one counts, the other is told 409; the hold stays pending', async () => {
    const requester = await mint(root, 'Quorum requester 3', 'admin');
    const parent = await mint(root, 'Parent admin 3', 'admin');
    const child = await mint(parent, 'Child reviewer 3');
    for (let round = 0; round < 3; round += 1) {
      const { id, agentId } = await hold(requester, 2);
      const answers = await Promise.all([approve(parent, id), approve(child, id)]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
      expect(answers.find((a) => a.status === 200)!.body.status).toBe('pending');
      expect(answers.find((a) => a.status === 409)!.body.error.code).toBe('conflict');
      const d = (await root.client.get(`/v1/decisions/${id}`)).body;
      expect(d).toMatchObject({ status: 'pending' });
      expect(d.approvals).toHaveLength(1);
      expect(await recordedApprovals(agentId)).toBe(1);
    }
  });

  test('two sibling reviewers minted by one admin key stay distinct approvers: the quorum of two is met', async () => {
    const requester = await mint(root, 'Quorum requester 4', 'admin');
    const admin = await mint(root, 'Team admin', 'admin');
    const a = await mint(admin, 'Sibling A');
    const b = await mint(admin, 'Sibling B');
    const { id } = await hold(requester, 2);
    expect((await approve(a, id)).body).toMatchObject({ status: 'pending' });
    const done = await approve(b, id);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'approved', approvals: [{ api_key_id: a.id }, { api_key_id: b.id }] });
    expect(done.body.authorization_token).toEqual(expect.any(String));
  });

  test('siblings approving at once both count', async () => {
    const requester = await mint(root, 'Quorum requester 5', 'admin');
    const a = await mint(root, 'Sibling C');
    const b = await mint(root, 'Sibling D');
    const { id } = await hold(requester, 2);
    const answers = await Promise.all([approve(a, id), approve(b, id)]);
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    expect((await root.client.get(`/v1/decisions/${id}`)).body).toMatchObject({ status: 'approved' });
  });
});

// The write's own check, with the engine's refusal of live approvals that carry no API authority
// turned off (TEMPORAL_ALLOW_SIGNAL_APPROVALS=live, test/security/engine-signal-live-approval.test.ts):
// even then a relative of the requester adds nothing.
describe('the resolving write refuses too (a run of the workflow, an activity retried)', () => {
  test('recordApproval: a related key adds nothing to a quorum, and the requester\'s line adds nothing to a live hold', async () => {
    const requester = await mint(root, 'Write requester', 'admin');
    const own = await mint(requester, 'Write own child');
    const parent = await mint(root, 'Write parent', 'admin');
    const child = await mint(parent, 'Write child');
    const { id, agentId } = await hold(requester, 2);
    const activities = createHeldActivities({ db: ctx.database.db, signer: ctx.signer });
    // As the API sends them: each outcome with its mark, so only the descent rule can refuse it.
    const marked = (reviewer: string) => ({ decisionId: id, note: null, reviewer, via: 'api' as const, authority: signApprovalAuthority({ decisionId: id, reviewer, outcome: 'approved' }) });
    expect(await activities.recordApproval(marked(own.id))).toMatchObject({ changed: false, status: 'pending' });
    expect(await activities.recordApproval(marked(requester.id))).toMatchObject({ changed: false, status: 'pending' });
    expect(await activities.recordApproval(marked(child.id))).toMatchObject({ changed: true, status: 'pending' });
    expect(await activities.recordApproval(marked(parent.id))).toMatchObject({ changed: false, status: 'pending' });
    // The single-approval path of an older run records one approval at most, and none by a relative.
    expect(await activities.resolveHeldDecision({ ...marked(parent.id), outcome: 'approved' })).toMatchObject({ status: 'pending' });
    await expectPending(id, [child.id]);
    expect(await recordedApprovals(agentId)).toBe(1);
  });

  test('resolveHeldDecision: a key the requester minted does not approve its live hold of one approval', async () => {
    const own = await mint(root, 'Write own reviewer');
    const { id } = await hold(root);
    const activities = createHeldActivities({ db: ctx.database.db, signer: ctx.signer });
    const authority = signApprovalAuthority({ decisionId: id, reviewer: own.id, outcome: 'approved' });
    const seen = await activities.resolveHeldDecision({ decisionId: id, outcome: 'approved', note: null, reviewer: own.id, via: 'api', authority });
    expect(seen).toMatchObject({ changed: false, status: 'pending' });
    await expectPending(id, []);
  });
});

describe('test mode still lets one key play every part', () => {
  test('a reviewer minted by the test admin key approves that key\'s hold', async () => {
    const testRoot: Key = { id: (await acct.test.get('/v1/api-keys/self')).body.id, client: acct.test };
    const reviewer = await mint(testRoot, 'Test reviewer');
    const p = await acct.test.post('/v1/policies', policyBody({ require_approval_above: 100 }));
    const agentId = (await acct.test.post('/v1/agents', { name: 'bot', policy_id: p.body.id })).body.id;
    const held = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 5_000, currency: 'USD', vendor: 'shop.example' });
    const res = await approve(reviewer, held.body.decision_id);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('approved');
  });
});

describe('an insider cannot cut the line in the database', () => {
  const rewrite = (set: string, id: string) => sql.raw(`UPDATE api_keys SET ${set} WHERE id = '${id}'`).execute(ctx.database.db);

  test('UPDATE api_keys SET created_by = NULL (or a new minter, or another origin) is refused; the reviewer stays refused', async () => {
    const reviewer = await mint(root, 'Kept reviewer');
    const other = await mint(root, 'Other admin', 'admin');
    await expect(rewrite('created_by = NULL', reviewer.id)).rejects.toThrow(/kept for good/);
    await expect(rewrite(`created_by = '${other.id}'`, reviewer.id)).rejects.toThrow(/kept for good/);
    await expect(rewrite("created_via = 'unknown', created_by = NULL", reviewer.id)).rejects.toThrow(/kept for good/);
    // A command-line key gets no minter afterwards either (NULL to a value: only the migration's backfill).
    await expect(rewrite(`created_by = '${other.id}', created_via = 'api'`, root.id)).rejects.toThrow(/kept for good/);
    const { id } = await hold(root);
    expectForbiddenAsRequester(await approve(reviewer, id));
    await expectPending(id, []);
  });

  test('revoking a key and renaming its row still update it; its line is unchanged', async () => {
    const reviewer = await mint(root, 'Revoked reviewer');
    const revoked = await root.client.delete(`/v1/api-keys/${reviewer.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ created_by: root.id, created_via: 'api', revoked_at: expect.any(String) });
    await rewrite("name = 'renamed', last_used_at = now()", reviewer.id);
    expect((await reviewer.client.get('/v1/api-keys/self')).status).toBe(401);
  });
});
