import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { signApprovalAuthority } from '../../src/approvals/approval-authority.js';
import { createHeldActivities } from '../../activities/held-authorization.js';
import { DECISION_RESOLVED_CHANNEL } from '../../src/decisions/decisions.repository.js';
import { verifyAuthorizationToken } from '../../src/tokens/authorization-token.js';
import type { ResolveActivityInput } from '../../workflows/held-authorization.types.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';
import { until } from '../support/wait.js';

let ctx: TestContext;
let acct: TestAccount;
let activities: ReturnType<typeof createHeldActivities>;
const env = new MockActivityEnvironment();

beforeAll(async () => {
  ctx = await createTestContext();
  acct = await ctx.account('growth');
  activities = createHeldActivities({ db: ctx.database.db, signer: ctx.signer });
});
afterAll(() => ctx?.close());

/** An agent with a $20 monthly budget whose requests above $1 are held. */
async function heldAgent(): Promise<string> {
  const p = await acct.test.post('/v1/policies', policyBody({ budget_monthly: 2_000, require_approval_above: 100 }));
  return (await acct.test.post('/v1/agents', { name: 'held', policy_id: p.body.id })).body.id;
}
const hold = async (agentId: string, amount: number) => {
  const res = await acct.test.post('/v1/authorize', { agent_id: agentId, amount, currency: 'USD', vendor: 'shop.example' });
  expect(res.body.decision).toBe('held');
  return res.body.decision_id as string;
};
const spend = async (agentId: string) =>
  (await sql<{ approved: number; reserved: number }>`SELECT approved, reserved FROM agent_spend WHERE agent_id = ${agentId} AND period LIKE 'M:%'`.execute(ctx.database.db)).rows[0];
const run = (input: Partial<ResolveActivityInput> & { decisionId: string }) => {
  const full: ResolveActivityInput = { outcome: 'approved', note: null, reviewer: 'key_reviewer', via: 'api', ...input };
  // A reviewer's Update carries the API's mark, as the API sends it (one without is the operator's).
  if (full.via === 'api' && full.reviewer && full.outcome !== 'expired' && !('authority' in input)) {
    full.authority = signApprovalAuthority({ decisionId: full.decisionId, reviewer: full.reviewer, outcome: full.outcome });
  }
  return env.run(activities.resolveHeldDecision, full);
};
const auditOf = async (decisionId: string) =>
  (await acct.test.get(`/v1/audit-logs?type=approval.completed&limit=100`)).body.data.filter((r: any) => r.decision_id === decisionId);
const eventsOf = async (decisionId: string) =>
  (await ctx.database.db.selectFrom('events').selectAll().where('type', '=', 'approval.completed').execute()).filter((e) => (e.data as any).decision_id === decisionId);

describe('resolveHeldDecision activity (real PostgreSQL)', () => {
  test.each(['approved', 'denied'] as const)('no approval after expiry: a %s outcome reaching the database after expires_at records the expiry instead', async (outcome) => {
    const agentId = await heldAgent();
    const id = await hold(agentId, 700);
    await ctx.database.db.updateTable('decisions').set({ expires_at: new Date(Date.now() - 1_000) }).where('id', '=', id).execute();

    const result = await run({ decisionId: id, outcome, note: 'too late' });
    expect(result).toMatchObject({ decisionId: id, changed: true, decision: 'denied', status: 'expired', reasonCode: 'approval_expired', resolvedBy: 'system' });
    const decision = (await acct.test.get(`/v1/decisions/${id}`)).body;
    expect(decision).toMatchObject({ decision: 'denied', status: 'expired', reason_code: 'approval_expired' });
    expect(decision).not.toHaveProperty('authorization_token');
    expect(await spend(agentId)).toEqual({ approved: 0, reserved: 0 });
    const audit = await auditOf(id);
    expect(audit).toHaveLength(1);
    expect(audit[0].actor).toEqual({ type: 'system', id: null });
  });

  test('approve: the reservation becomes spend, a token is minted, one audit record and one event', async () => {
    const agentId = await heldAgent();
    const id = await hold(agentId, 600);
    expect(await spend(agentId)).toEqual({ approved: 0, reserved: 600 });

    const result = await run({ decisionId: id, note: 'looks fine' });
    expect(result).toMatchObject({ decisionId: id, changed: true, decision: 'approved', status: 'approved', reasonCode: null, resolvedBy: 'key_reviewer' });
    expect(JSON.stringify(result)).not.toMatch(/gca_/);
    expect(await spend(agentId)).toEqual({ approved: 600, reserved: 0 });

    const decision = (await acct.test.get(`/v1/decisions/${id}`)).body;
    expect(decision).toMatchObject({ decision: 'approved', status: 'approved', resolved_at: expect.any(String) });
    const verified = await verifyAuthorizationToken(ctx.signer, decision.authorization_token, new Date());
    expect(verified).toMatchObject({ valid: true, claims: { jti: id, amount: 600, sub: agentId } });

    const audit = await auditOf(id);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor: { type: 'reviewer', id: 'key_reviewer' }, decision: 'approved', amount: 600, metadata: { status: 'approved', note: 'looks fine' } });
    const events = await eventsOf(id);
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toEqual({ decision_id: id, outcome: 'approved', reason_code: null, note: 'looks fine', resolved_by: 'key_reviewer', resolved_at: decision.resolved_at });
    expect(JSON.stringify(events[0]!.data)).not.toMatch(/gca_|token/);
  });

  test('the resolution is announced on the database channel the API processes listen on, so long-polls elsewhere wake', async () => {
    const agentId = await heldAgent();
    const id = await hold(agentId, 300);
    const heard: string[] = [];
    const stop = await ctx.database.listen(DECISION_RESOLVED_CHANNEL, (payload) => heard.push(payload));
    try {
      await run({ decisionId: id, outcome: 'denied' });
      // Other files' resolutions share the channel on a shared PostgreSQL database: look for this one.
      await until('the resolution to be announced', () => (heard.includes(id) ? true : undefined), 5_000);
    } finally {
      await stop();
    }
  });

  test('a repeated call records nothing twice', async () => {
    const agentId = await heldAgent();
    const id = await hold(agentId, 500);
    await run({ decisionId: id });
    const again = await run({ decisionId: id, outcome: 'denied' });
    expect(again).toMatchObject({ changed: false, decision: 'approved', status: 'approved' });
    expect(await spend(agentId)).toEqual({ approved: 500, reserved: 0 });
    expect(await auditOf(id)).toHaveLength(1);
    expect(await eventsOf(id)).toHaveLength(1);
  });

  test('deny releases the reservation; expiry resolves as denied with approval_expired by the system', async () => {
    const agentId = await heldAgent();
    const denied = await hold(agentId, 700);
    const expired = await hold(agentId, 300);
    expect(await spend(agentId)).toEqual({ approved: 0, reserved: 1_000 });

    expect(await run({ decisionId: denied, outcome: 'denied', note: 'not this vendor' })).toMatchObject({ decision: 'denied', status: 'denied', reasonCode: 'policy_denied' });
    expect(await run({ decisionId: expired, outcome: 'expired', reviewer: null, via: 'system' })).toMatchObject({
      decision: 'denied',
      status: 'expired',
      reasonCode: 'approval_expired',
      resolvedBy: 'system',
    });
    expect(await spend(agentId)).toEqual({ approved: 0, reserved: 0 });
    const d = (await acct.test.get(`/v1/decisions/${denied}`)).body;
    expect(d).toMatchObject({ decision: 'denied', reason_code: 'policy_denied' });
    expect(d.reason).toContain('not this vendor');
    expect(d).not.toHaveProperty('authorization_token');
    expect((await auditOf(expired))[0]).toMatchObject({ actor: { type: 'system', id: null }, reason: 'approval_expired' });
  });

  test('reservation arithmetic stays exact across mixed outcomes and the budget frees up', async () => {
    const agentId = await heldAgent();
    const a = await hold(agentId, 900);
    const b = await hold(agentId, 800);
    const c = await hold(agentId, 250);
    expect(await spend(agentId)).toEqual({ approved: 0, reserved: 1_950 });
    // 1,950 reserved of 2,000: another 100 does not fit.
    expect((await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 100, currency: 'USD', vendor: 'x.example' })).body.reason_code).toBe('budget_exceeded');
    await run({ decisionId: a });
    await run({ decisionId: b, outcome: 'denied' });
    await run({ decisionId: c, outcome: 'expired', via: 'system' });
    expect(await spend(agentId)).toEqual({ approved: 900, reserved: 0 });
    expect((await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 100, currency: 'USD', vendor: 'x.example' })).body.decision).toBe('approved');
  });

  test('freezing the agent denies its pending holds at once; the activity then changes nothing', async () => {
    const agentId = await heldAgent();
    const id = await hold(agentId, 400);
    expect((await acct.test.post(`/v1/agents/${agentId}/freeze`)).status).toBe(200);
    const d = (await acct.test.get(`/v1/decisions/${id}`)).body;
    expect(d).toMatchObject({ decision: 'denied', status: 'denied', reason_code: 'agent_frozen' });
    expect(await spend(agentId)).toEqual({ approved: 0, reserved: 0 });
    const notice = await ctx.database.db.selectFrom('outbox').selectAll().where('topic', '=', 'held_resolved').where('ref_id', '=', id).execute();
    expect(notice).toHaveLength(1);
    expect(await run({ decisionId: id })).toMatchObject({ changed: false, status: 'denied' });
    expect(await auditOf(id)).toHaveLength(1);
    const frozenEvents = await ctx.database.db.selectFrom('events').selectAll().where('type', '=', 'agent.frozen').execute();
    expect(frozenEvents.some((e) => (e.data as any).id === agentId)).toBe(true);
  });

  test('deactivating the agent denies its pending holds with agent_deactivated', async () => {
    const agentId = await heldAgent();
    const id = await hold(agentId, 400);
    await acct.test.delete(`/v1/agents/${agentId}`);
    expect((await acct.test.get(`/v1/decisions/${id}`)).body).toMatchObject({ status: 'denied', reason_code: 'agent_deactivated' });
  });

  test('an unknown decision is a non-retryable failure', async () => {
    await expect(run({ decisionId: 'dec_missing' })).rejects.toSatisfy(
      (err: unknown) => err instanceof ApplicationFailure && err.nonRetryable === true && err.type === 'DecisionNotFound',
    );
  });
});
