/**
 * The resolving activities' check on approvals sent straight to the engine, against the real
 * database: which approvals of which holds are refused under each TEMPORAL_ALLOW_SIGNAL_APPROVALS,
 * what is recorded, and that the API's mark is what lets a reviewer's Update through. The holds are
 * made through the API with the FAKE inline engine; the activities are called as the workflow would.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHeldActivities } from '../../activities/held-authorization.js';
import { signApprovalAuthority, verifyApprovalAuthority } from '../../src/approvals/approval-authority.js';
import { resolveHeldDecision } from '../../src/approvals/resolution.service.js';
import type { SignalApprovals } from '../../src/kernel/config.js';
import { createTestContext, policyBody, type Client, type TestAccount, type TestContext } from '../support/context.js';
import { FakeInlineGateway } from '../support/fake-gateway.js';

let ctx: TestContext;
let acct: TestAccount;
let reviewerId: string;
/** Requests the live holds: an admin key minted beside the reviewers, so they are not of its line (four eyes). */
let requester: Client;

beforeAll(async () => {
  ctx = await createTestContext({ gateway: (deps) => new FakeInlineGateway(deps), testModeRateLimit: 100_000 });
  acct = await ctx.account('growth');
  reviewerId = (await acct.live!.post('/v1/api-keys', { name: 'Rita', role: 'reviewer' })).body.id;
  requester = ctx.client((await acct.live!.post('/v1/api-keys', { name: 'Requester', role: 'admin' })).body.key);
});
afterAll(() => ctx?.close());

const activities = (signalApprovals?: SignalApprovals) => createHeldActivities({ db: ctx.database.db, signer: ctx.signer, ...(signalApprovals ? { signalApprovals } : {}) });

async function hold(client: Client, approvalsRequired = 1): Promise<string> {
  const rules = approvalsRequired > 1 ? [{ above: 1_000, approvals_required: approvalsRequired }] : [];
  const p = await client.post('/v1/policies', policyBody({ require_approval_above: 100, approval_rules: rules }));
  const agentId = (await client.post('/v1/agents', { name: 'buyer', policy_id: p.body.id })).body.id;
  const held = await client.post('/v1/authorize', { agent_id: agentId, amount: 5_000, currency: 'USD', vendor: 'shop.example' });
  expect(held.body).toMatchObject({ status: 'pending' });
  return held.body.decision_id;
}

const records = (id: string) => ctx.database.db.selectFrom('audit_records').selectAll().where('decision_id', '=', id).orderBy('insert_order').execute();
const status = async (id: string) => (await ctx.database.db.selectFrom('decisions').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;

describe("the API's mark", () => {
  test('binds the decision, the key and the outcome', () => {
    const claim = { decisionId: 'dec_a', reviewer: 'key_a', outcome: 'approved' as const };
    const mark = signApprovalAuthority(claim);
    expect(verifyApprovalAuthority(claim, mark)).toBe(true);
    expect(verifyApprovalAuthority({ ...claim, decisionId: 'dec_b' }, mark)).toBe(false);
    expect(verifyApprovalAuthority({ ...claim, reviewer: 'key_b' }, mark)).toBe(false);
    expect(verifyApprovalAuthority({ ...claim, outcome: 'denied' }, mark)).toBe(false);
    expect(verifyApprovalAuthority(claim, undefined)).toBe(false);
    expect(verifyApprovalAuthority(claim, mark.slice(0, -2))).toBe(false);
  });
});

describe('by default (test-mode holds only)', () => {
  test('a signal approving a live hold: refused, approval.refused {actor operator, reason}, still pending', async () => {
    const id = await hold(requester);
    const out = await activities().resolveHeldDecision({ decisionId: id, outcome: 'approved', note: 'ok', reviewer: 'finance-lead', via: 'operator' });
    expect(out).toMatchObject({ status: 'pending', changed: false, refusal: 'live_approval_outside_api', resolvedBy: null });
    expect(await status(id)).toBe('pending');
    const refused = (await records(id)).filter((r) => r.type === 'approval.refused');
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ actor_type: 'operator', actor_id: 'finance-lead', reason: 'live_approval_outside_api', metadata: { outcome: 'approved', sent_as: 'signal', note: 'ok' } });
  });

  test("an Update claiming a reviewer's key without the mark, or with another hold's mark: refused", async () => {
    const id = await hold(requester);
    const other = signApprovalAuthority({ decisionId: 'dec_other', reviewer: reviewerId, outcome: 'approved' });
    for (const authority of [undefined, other]) {
      const out = await activities().resolveHeldDecision({ decisionId: id, outcome: 'approved', note: null, reviewer: reviewerId, via: 'api', ...(authority ? { authority } : {}) });
      expect(out.refusal).toBe('live_approval_outside_api');
    }
    // Towards a quorum as well.
    const quorum = await hold(requester, 2);
    expect(await activities().recordApproval({ decisionId: quorum, note: null, reviewer: reviewerId, via: 'api' })).toMatchObject({ status: 'pending', refusal: 'live_approval_outside_api' });
    expect((await records(quorum)).map((r) => r.type)).toEqual(['authorization.decision', 'approval.refused']);
  });

  test("the reviewer's Update with the API's mark approves the live hold", async () => {
    const id = await hold(requester);
    const authority = signApprovalAuthority({ decisionId: id, reviewer: reviewerId, outcome: 'approved' });
    expect(await activities().resolveHeldDecision({ decisionId: id, outcome: 'approved', note: null, reviewer: reviewerId, via: 'api', authority })).toMatchObject({ status: 'approved', changed: true });
    expect((await records(id)).map((r) => r.type)).not.toContain('approval.refused');
  });

  test('a denial by signal of a live hold is applied; a test-mode hold is approved by signal', async () => {
    const live = await hold(requester);
    expect(await activities().resolveHeldDecision({ decisionId: live, outcome: 'denied', note: null, reviewer: 'finance-lead', via: 'operator' })).toMatchObject({ status: 'denied' });
    const test = await hold(acct.test);
    expect(await activities().resolveHeldDecision({ decisionId: test, outcome: 'approved', note: null, reviewer: 'ops', via: 'operator' })).toMatchObject({ status: 'approved' });
  });

  test('a hold no longer pending is answered as it is, with nothing recorded', async () => {
    const id = await hold(requester);
    await activities().resolveHeldDecision({ decisionId: id, outcome: 'denied', note: null, reviewer: reviewerId, via: 'api' });
    const out = await activities().resolveHeldDecision({ decisionId: id, outcome: 'approved', note: null, reviewer: 'finance-lead', via: 'operator' });
    expect(out).toMatchObject({ status: 'denied', changed: false });
    expect(out.refusal).toBeUndefined();
    expect((await records(id)).map((r) => r.type)).not.toContain('approval.refused');
  });
});

describe('TEMPORAL_ALLOW_SIGNAL_APPROVALS', () => {
  test('live: a signal approves a live hold', async () => {
    const id = await hold(requester);
    expect(await activities('live').resolveHeldDecision({ decisionId: id, outcome: 'approved', note: null, reviewer: 'finance-lead', via: 'operator' })).toMatchObject({ status: 'approved' });
  });

  test('off: an approval outside the API is refused in test mode too (signal_approvals_off); the API\'s mark still approves', async () => {
    const id = await hold(acct.test);
    expect(await activities('off').resolveHeldDecision({ decisionId: id, outcome: 'approved', note: null, reviewer: 'ops', via: 'operator' })).toMatchObject({ status: 'pending', refusal: 'signal_approvals_off' });
    const testKey = (await acct.test.get('/v1/api-keys/self')).body.id;
    const authority = signApprovalAuthority({ decisionId: id, reviewer: testKey, outcome: 'approved' });
    expect(await activities('off').resolveHeldDecision({ decisionId: id, outcome: 'approved', note: null, reviewer: testKey, via: 'api', authority })).toMatchObject({ status: 'approved' });
  });
});

describe("an outcome without the API's mark is the operator's", () => {
  const approvals = async (id: string) => (await ctx.database.db.selectFrom('decisions').select('approvals').where('id', '=', id).executeTakeFirstOrThrow()).approvals;

  test('made-up reviewer ids do not fill a quorum: together they are the operators\' one approval', async () => {
    for (const setting of ['test', 'live'] as const) {
      const id = await hold(setting === 'test' ? acct.test : requester, 2);
      const first = await activities(setting).recordApproval({ decisionId: id, note: null, reviewer: 'fake1', via: 'api' });
      expect(first).toMatchObject({ status: 'pending', changed: true, countedAs: 'operator' });
      expect(await activities(setting).recordApproval({ decisionId: id, note: null, reviewer: 'fake2', via: 'api' })).toMatchObject({ status: 'pending', changed: false });
      // The single-approval path (a run without the quorum) counts the same way.
      expect(await activities(setting).resolveHeldDecision({ decisionId: id, outcome: 'approved', note: null, reviewer: 'fake3', via: 'api' })).toMatchObject({ status: 'pending', changed: false });
      expect(await approvals(id)).toEqual([{ api_key_id: null, name: 'fake1', note: null, at: expect.any(String) }]);
      const recorded = (await records(id)).filter((r) => r.type === 'approval.recorded');
      expect(recorded.map((r) => [r.actor_type, r.actor_id])).toEqual([['operator', 'fake1']]);
    }
  });

  test('an Update with no reviewer cannot approve a hold needing three: it is one approval, the hold stays pending', async () => {
    const id = await hold(acct.test, 3);
    expect(await activities().resolveHeldDecision({ decisionId: id, outcome: 'approved', note: null, reviewer: null, via: 'api' })).toMatchObject({ status: 'pending' });
    expect(await status(id)).toBe('pending');
    expect(await approvals(id)).toEqual([{ api_key_id: null, name: 'operator', note: null, at: expect.any(String) }]);
    // Nor does the resolving write approve such a hold for an actor with no approver behind it.
    const out = await resolveHeldDecision({ db: ctx.database.db, signer: ctx.signer }, { decisionId: id, outcome: 'approved', note: null, resolvedBy: 'system', actor: { type: 'system', id: null } });
    expect(out).toMatchObject({ changed: false, decision: { status: 'pending' } });
    expect((await records(id)).map((r) => r.type)).not.toContain('approval.completed');
  });

  test("a denial in a real key's name is applied, recorded as the operator's; naming the requester does not read as withdrawn", async () => {
    const requesterId = (await requester.get('/v1/api-keys/self')).body.id;
    for (const named of [reviewerId, requesterId]) {
      const id = await hold(requester);
      expect(await activities().resolveHeldDecision({ decisionId: id, outcome: 'denied', note: null, reviewer: named, via: 'api' })).toMatchObject({ status: 'denied' });
      const completed = (await records(id)).find((r) => r.type === 'approval.completed')!;
      expect([completed.actor_type, completed.actor_id]).toEqual(['operator', named]);
      const row = await ctx.database.db.selectFrom('decisions').select('reason').where('id', '=', id).executeTakeFirstOrThrow();
      expect(row.reason).not.toContain('Withdrawn');
    }
    // With the API's mark for the denial it is the key's own.
    const id = await hold(requester);
    const authority = signApprovalAuthority({ decisionId: id, reviewer: reviewerId, outcome: 'denied' });
    await activities().resolveHeldDecision({ decisionId: id, outcome: 'denied', note: null, reviewer: reviewerId, via: 'api', authority });
    const completed = (await records(id)).find((r) => r.type === 'approval.completed')!;
    expect([completed.actor_type, completed.actor_id]).toEqual(['reviewer', reviewerId]);
  });
});

describe('through the API', () => {
  test('POST /v1/approvals/:id/approve on a live hold approves it (the API marks its outcome), and the chain verifies', async () => {
    const id = await hold(requester);
    const reviewer = await acct.live!.post('/v1/api-keys', { name: 'Second pair of eyes', role: 'reviewer' });
    const approved = await ctx.client(reviewer.body.key).post(`/v1/approvals/${id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved' });
    const verified = await acct.live!.get('/v1/audit-logs/verify');
    expect(verified.body).toMatchObject({ valid: true });
  });
});
