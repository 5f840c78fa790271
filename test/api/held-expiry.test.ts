/**
 * Holds expire even without a workflow engine: the database-side fallback of the housekeeping loop
 * resolves a hold still pending some grace period after `expires_at` exactly as the workflow's
 * expiry does, and the workflow, when it runs later, finds it resolved and completes.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createHeldActivities } from '../../activities/held-authorization.js';
import { expireOverdueHolds, HELD_EXPIRY_GRACE_MS } from '../../src/approvals/resolution.service.js';
import { startHousekeeping } from '../../src/process/housekeeping.js';
import { createLogger } from '../../src/kernel/logger.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';
import { until } from '../support/wait.js';

// No engine: the context's gateway points at a port nothing listens on.
let ctx: TestContext;
/** Each test's own account: a sweep is scoped to it, and sees no other test's holds. */
let acct: TestAccount;

beforeAll(async () => {
  ctx = await createTestContext();
});
beforeEach(async () => {
  acct = await ctx.account('growth');
});
afterAll(() => ctx?.close());

/** A hold of 900 on a budget of 1,000 that expires a second after it is made. */
async function expiringHold(): Promise<{ agentId: string; decisionId: string; expiresAt: Date }> {
  const policy = await acct.test.post('/v1/policies', policyBody({ budget_monthly: 1_000, require_approval_above: 100, approval_timeout_seconds: 1 }));
  const agentId = (await acct.test.post('/v1/agents', { name: 'expiring', policy_id: policy.body.id })).body.id;
  const held = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 900, currency: 'USD', vendor: 'shop.example' });
  expect(held.body).toMatchObject({ decision: 'held', status: 'pending' });
  return { agentId, decisionId: held.body.decision_id, expiresAt: new Date(held.body.expires_at) };
}

const spend = (agentId: string) => ctx.database.db.selectFrom('agent_spend').select(['period', 'approved', 'reserved']).where('agent_id', '=', agentId).orderBy('period').execute();
const untilExpired = (at: Date) => new Promise((r) => setTimeout(r, Math.max(0, at.getTime() - Date.now()) + 50));

describe('expiry of held requests while the workflow engine is down', () => {
  test('a hold within the grace period after expires_at is left to the workflow', async () => {
    const { decisionId, expiresAt } = await expiringHold();
    await untilExpired(expiresAt);
    expect(HELD_EXPIRY_GRACE_MS).toBeGreaterThan(0);
    const expired = await expireOverdueHolds({ db: ctx.database.db }, { accountId: acct.id });
    expect(expired).not.toContain(decisionId);
    expect((await acct.test.get(`/v1/decisions/${decisionId}`)).body.status).toBe('pending');
  });

  test('past the grace period it is denied approval_expired by the system, its reservation released, with the audit record and approval.completed event of the workflow expiry', async () => {
    const { agentId, decisionId, expiresAt } = await expiringHold();
    // While held, the reservation counts: 150 more would exceed the budget of 1,000.
    expect((await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 150, currency: 'USD', vendor: 'shop.example' })).body.reason_code).toBe('budget_exceeded');
    await untilExpired(expiresAt);

    const expired = await expireOverdueHolds({ db: ctx.database.db }, { accountId: acct.id, graceMs: 0 });
    expect(expired).toEqual([decisionId]);

    const decision = (await acct.test.get(`/v1/decisions/${decisionId}`)).body;
    expect(decision).toMatchObject({ decision: 'denied', status: 'expired', reason_code: 'approval_expired', reason: 'No reviewer decided before the approval timeout.' });
    expect(decision.authorization_token).toBeUndefined();
    expect(new Date(decision.resolved_at).getTime()).toBeGreaterThanOrEqual(expiresAt.getTime());
    const row = await ctx.database.db.selectFrom('decisions').select(['resolved_by', 'resolution_note']).where('id', '=', decisionId).executeTakeFirstOrThrow();
    expect(row).toEqual({ resolved_by: 'system', resolution_note: null });
    expect((await spend(agentId)).map((s) => s.reserved)).toEqual([0, 0]);
    expect((await spend(agentId)).map((s) => s.approved)).toEqual([0, 0]);

    const audit = (await acct.test.get(`/v1/audit-logs?type=approval.completed&agent_id=${agentId}`)).body.data;
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ decision_id: decisionId, decision: 'denied', actor: { type: 'system', id: null }, reason: 'approval_expired', metadata: { status: 'expired' } });
    const events = (await acct.test.get('/v1/events?type=approval.completed&limit=100')).body.data.filter((e: { data: { decision_id: string } }) => e.data.decision_id === decisionId);
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({ outcome: 'denied', reason_code: 'approval_expired', note: null, resolved_by: 'system' });

    // The budget is free again, and a reviewer can no longer approve it.
    expect((await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 150, currency: 'USD', vendor: 'shop.example' })).body.reason_code).toBe('approval_required');
    expect((await acct.test.post(`/v1/approvals/${decisionId}/approve`)).status).toBe(409);
    expect((await acct.test.get('/v1/audit-logs/verify')).body.valid).toBe(true);

    // Once the engine is back, the workflow's own expiry finds the hold resolved: nothing is recorded twice.
    const activities = createHeldActivities({ db: ctx.database.db, signer: ctx.signer });
    const summary = await activities.resolveHeldDecision({ decisionId, outcome: 'expired', note: null, reviewer: null, via: 'system' });
    expect(summary).toMatchObject({ decisionId, changed: false, decision: 'denied', status: 'expired', reasonCode: 'approval_expired' });
    expect((await acct.test.get(`/v1/audit-logs?type=approval.completed&agent_id=${agentId}`)).body.data).toHaveLength(1);
    // Only the new hold of 150 is reserved: the expired one was not released a second time.
    expect((await spend(agentId)).map((s) => s.reserved)).toEqual([150, 150]);
  });

  test('the housekeeping loop runs the fallback on its own and wakes whoever waits on the decision', async () => {
    const { decisionId, expiresAt } = await expiringHold();
    const woken: string[] = [];
    const stop = startHousekeeping(ctx.database.db, createLogger('silent'), { heldExpiry: { intervalMs: 100, graceMs: 0, accountId: acct.id }, onHoldExpired: (id) => woken.push(id) });
    try {
      await untilExpired(expiresAt);
      await until('the hold to expire', async () => ((await acct.test.get(`/v1/decisions/${decisionId}`)).body.status === 'expired' ? true : undefined), 10_000);
      await until('the waiter to be woken', () => (woken.includes(decisionId) ? true : undefined), 2_000);
    } finally {
      stop();
    }
  });
});

describe('the sweep as the server runs it, for no one account', () => {
  // Its own database: a sweep over every account must not reach other files' holds on a shared one.
  let own: TestContext;
  beforeAll(async () => {
    own = await createTestContext({ ownDatabase: true });
  });
  afterAll(() => own?.close());

  test('takes the overdue holds of every account', async () => {
    const ids: string[] = [];
    for (const a of [await own.account('growth'), await own.account('growth')]) {
      const policy = await a.test.post('/v1/policies', policyBody({ require_approval_above: 100 }));
      const agentId = (await a.test.post('/v1/agents', { name: 'held', policy_id: policy.body.id })).body.id;
      ids.push((await a.test.post('/v1/authorize', { agent_id: agentId, amount: 500, currency: 'USD', vendor: 'shop.example' })).body.decision_id);
    }
    await own.database.db.updateTable('decisions').set({ expires_at: new Date(Date.now() - 60_000) }).where('id', 'in', ids).execute();
    expect((await expireOverdueHolds({ db: own.database.db })).sort()).toEqual([...ids].sort());
  });
});
