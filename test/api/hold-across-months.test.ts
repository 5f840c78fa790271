/**
 * A hold counts in the period it was requested in (spend periods are UTC months and days). One
 * created on the last evening of January and resolved in February releases its reservation from
 * January and, when approved, spends in January; February's budget is untouched.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { resolveHeldDecision, type ResolveInput } from '../../src/approvals/resolution.service.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';

const january = new Date('2026-01-31T23:50:00Z');
const february = new Date('2026-02-01T00:10:00Z');
let clock = january;
let ctx: TestContext;
let acct: TestAccount;

beforeAll(async () => {
  ctx = await createTestContext({ now: () => clock });
  acct = await ctx.account('growth');
});
afterAll(() => ctx?.close());

const spend = async (agentId: string) =>
  Object.fromEntries(
    (await ctx.database.db.selectFrom('agent_spend').select(['period', 'approved', 'reserved']).where('agent_id', '=', agentId).execute()).map((r) => [r.period, { approved: Number(r.approved), reserved: Number(r.reserved) }]),
  );

const outcomes: [ResolveInput['outcome'], number][] = [
  ['approved', 900],
  ['denied', 0],
  ['expired', 0],
];

describe('a hold made in January and resolved in February', () => {
  test.each(outcomes)('%s: January releases its reservation (and spends %i); February has nothing', async (outcome, spent) => {
    clock = january;
    const policy = await acct.test.post('/v1/policies', policyBody({ budget_monthly: 1_000, require_approval_above: 100, approval_timeout_seconds: 3_600 }));
    const agentId = (await acct.test.post('/v1/agents', { name: 'late', policy_id: policy.body.id })).body.id;
    const held = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 900, currency: 'USD', vendor: 'shop.example' });
    expect(held.body).toMatchObject({ decision: 'held', status: 'pending' });
    expect(await spend(agentId)).toEqual({ 'M:2026-01': { approved: 0, reserved: 900 }, 'D:2026-01-31': { approved: 0, reserved: 900 } });

    clock = february;
    const actor = outcome === 'expired' ? { type: 'system' as const, id: null } : { type: 'reviewer' as const, id: 'key_r' };
    const resolved = await resolveHeldDecision({ db: ctx.database.db, signer: ctx.signer, now: () => clock }, { decisionId: held.body.decision_id, outcome, resolvedBy: actor.id ?? 'system', actor });
    expect(resolved.decision.status).toBe(outcome);
    expect(await spend(agentId)).toEqual({ 'M:2026-01': { approved: spent, reserved: 0 }, 'D:2026-01-31': { approved: spent, reserved: 0 } });

    // February's whole budget is still there.
    const next = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 100, currency: 'USD', vendor: 'shop.example' });
    expect(next.body.decision).toBe('approved');
    expect((await spend(agentId))['M:2026-02']).toEqual({ approved: 100, reserved: 0 });
  });
});
