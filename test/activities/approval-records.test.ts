/**
 * What the held workflow's activities write for approvals, against the real database: who is in a
 * decision's `approvals`, with which note, who is recorded as having resolved it, and what a late or
 * repeated call answers. The holds are made through the API with the FAKE inline engine; the
 * activities are called as the workflow would call them.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { signApprovalAuthority } from '../../src/approvals/approval-authority.js';
import { createHeldActivities } from '../../activities/held-authorization.js';
import { expireOverdueHolds, HELD_EXPIRY_BATCH } from '../../src/approvals/resolution.service.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';
import { FakeInlineGateway } from '../support/fake-gateway.js';

let ctx: TestContext;
let acct: TestAccount;
let reviewer: { id: string; name: string };
let activities: ReturnType<typeof createHeldActivities>;

beforeAll(async () => {
  ctx = await createTestContext({ gateway: (deps) => new FakeInlineGateway(deps), testModeRateLimit: 100_000 });
  acct = await ctx.account('growth');
  const key = await acct.test.post('/v1/api-keys', { name: 'Rita', role: 'reviewer' });
  reviewer = { id: key.body.id, name: 'Rita' };
  activities = createHeldActivities({ db: ctx.database.db, signer: ctx.signer });
});
afterAll(() => ctx?.close());

/** A fresh hold of 5,000; `approvalsRequired` 2 makes it need a quorum. */
async function hold(approvalsRequired: 1 | 2): Promise<string> {
  const rules = approvalsRequired === 2 ? { approval_rules: [{ above: 1_000, approvals_required: 2 }] } : {};
  const p = await acct.test.post('/v1/policies', policyBody({ require_approval_above: 100, ...rules }));
  const agentId = (await acct.test.post('/v1/agents', { name: 'buyer', policy_id: p.body.id })).body.id;
  const held = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 5_000, currency: 'USD', vendor: 'shop.example' });
  expect(held.body).toMatchObject({ status: 'pending', approvals_required: approvalsRequired });
  return held.body.decision_id;
}

/** The API's mark on a reviewer's outcome, as the API sends it with the Update. */
const mark = (decisionId: string, outcome: 'approved' | 'denied' = 'approved') => signApprovalAuthority({ decisionId, reviewer: reviewer.id, outcome });
const decision = async (id: string) => (await acct.test.get(`/v1/decisions/${id}`)).body;
const auditTypes = async (id: string) =>
  (await ctx.database.db.selectFrom('audit_records').select('type').where('decision_id', '=', id).execute()).map((r) => r.type);
const row = (id: string) => ctx.database.db.selectFrom('decisions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('approvals recorded by the resolving activity', () => {
  test("a reviewer's approval of a hold needing one is in its approvals: the key, its name and the note", async () => {
    const id = await hold(1);
    expect(await activities.resolveHeldDecision({ decisionId: id, outcome: 'approved', note: 'looks fine', reviewer: reviewer.id, via: 'api', authority: mark(id) })).toMatchObject({ status: 'approved', changed: true });
    const d = await decision(id);
    expect(d.approvals).toEqual([{ api_key_id: reviewer.id, name: reviewer.name, note: 'looks fine', at: expect.any(String) }]);
    expect((await row(id)).resolved_by).toBe(reviewer.id);
    // One approval of one needed is the resolution itself: no separate record of a quorum's approval.
    expect(await auditTypes(id)).not.toContain('approval.recorded');
  });

  test("an operator's approval is in the approvals with no key, under the operator's name", async () => {
    const id = await hold(1);
    await activities.resolveHeldDecision({ decisionId: id, outcome: 'approved', note: null, reviewer: 'ops-anna', via: 'operator' });
    expect((await decision(id)).approvals).toEqual([{ api_key_id: null, name: 'ops-anna', note: null, at: expect.any(String) }]);
  });

  test("an Update that names no key carries no mark of the API: it is the operator's approval, listed as such", async () => {
    const id = await hold(1);
    expect(await activities.resolveHeldDecision({ decisionId: id, outcome: 'approved', note: null, reviewer: null, via: 'api' })).toMatchObject({ status: 'approved' });
    expect((await decision(id)).approvals).toEqual([{ api_key_id: null, name: 'operator', note: null, at: expect.any(String) }]);
  });

  test('the single-approval path on a quorum hold keeps the approval\'s note', async () => {
    const id = await hold(2);
    expect(await activities.resolveHeldDecision({ decisionId: id, outcome: 'approved', note: 'alone', reviewer: reviewer.id, via: 'api', authority: mark(id) })).toMatchObject({ status: 'pending' });
    expect((await decision(id)).approvals).toEqual([{ api_key_id: reviewer.id, name: reviewer.name, note: 'alone', at: expect.any(String) }]);
  });
});

describe('approvals towards a quorum', () => {
  test("operators together are one approver: a second operator's approval adds nothing", async () => {
    const id = await hold(2);
    expect(await activities.recordApproval({ decisionId: id, note: null, reviewer: 'ops-1', via: 'operator' })).toMatchObject({ status: 'pending', changed: true });
    expect(await activities.recordApproval({ decisionId: id, note: null, reviewer: 'ops-2', via: 'operator' })).toMatchObject({ status: 'pending', changed: false });
    expect((await decision(id)).approvals.map((a: { name: string }) => a.name)).toEqual(['ops-1']);
  });

  test('a quorum completed by an operator who gave no name is recorded as resolved by the operator', async () => {
    const id = await hold(2);
    await activities.recordApproval({ decisionId: id, note: null, reviewer: reviewer.id, via: 'api', authority: mark(id) });
    expect(await activities.recordApproval({ decisionId: id, note: null, reviewer: undefined as unknown as string, via: 'operator' })).toMatchObject({ status: 'approved' });
    expect((await row(id)).resolved_by).toBe('operator');
  });

  test('an approval arriving after the hold expired records the expiry, by the system', async () => {
    const id = await hold(2);
    await ctx.database.db.updateTable('decisions').set({ expires_at: new Date(Date.now() - 1_000) }).where('id', '=', id).execute();
    expect(await activities.recordApproval({ decisionId: id, note: 'late', reviewer: reviewer.id, via: 'api', authority: mark(id) })).toMatchObject({ status: 'expired', resolvedBy: 'system' });
    expect((await row(id))).toMatchObject({ status: 'expired', resolved_by: 'system' });
  });
});

describe('escalation', () => {
  test('asked again once the escalated hold was resolved: answered not escalated', async () => {
    const id = await hold(1);
    await ctx.database.db.updateTable('decisions').set({ escalates_at: new Date(Date.now() - 1_000) }).where('id', '=', id).execute();
    expect(await activities.escalateHold({ decisionId: id })).toMatchObject({ escalated: true, status: 'pending' });
    expect(await activities.escalateHold({ decisionId: id })).toMatchObject({ escalated: true, status: 'pending' });
    await activities.resolveHeldDecision({ decisionId: id, outcome: 'denied', note: null, reviewer: reviewer.id, via: 'api', authority: mark(id, 'denied') });
    expect(await activities.escalateHold({ decisionId: id })).toMatchObject({ escalated: false, status: 'denied' });
  });
});

describe('the expiry sweep', () => {
  test(`takes at most ${HELD_EXPIRY_BATCH} overdue holds a run; the next run takes the rest`, async () => {
    const other = await ctx.account('growth');
    const p = await other.test.post('/v1/policies', policyBody({ require_approval_above: 100 }));
    const agentId = (await other.test.post('/v1/agents', { name: 'buyer', policy_id: p.body.id })).body.id;
    for (let i = 0; i <= HELD_EXPIRY_BATCH; i++) {
      const held = await other.test.post('/v1/authorize', { agent_id: agentId, amount: 500, currency: 'USD', vendor: 'shop.example' });
      expect(held.body.decision).toBe('held');
    }
    await ctx.database.db.updateTable('decisions').set({ expires_at: new Date(Date.now() - 60_000) }).where('agent_id', '=', agentId).execute();
    const deps = { db: ctx.database.db };
    expect(await expireOverdueHolds(deps, { graceMs: 0, accountId: other.id })).toHaveLength(HELD_EXPIRY_BATCH);
    expect(await expireOverdueHolds(deps, { graceMs: 0, accountId: other.id })).toHaveLength(1);
  });
});
