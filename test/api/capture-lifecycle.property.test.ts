/**
 * Property: whatever sequence of authorizations, captures (of any amount, valid or not), voids and
 * expiries an agent goes through, its spend counter is never negative, never above its budget, and
 * always equals what its approvals still hold: the whole amount while uncaptured, the captured
 * amount once captured, nothing once voided or expired. Every answer agrees with that model.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { expireUncapturedApprovals } from '../../src/capture/capture.service.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;

beforeAll(async () => {
  // A database of its own on PostgreSQL: the sweep looks at every account's approvals.
  ctx = await createTestContext({ testModeRateLimit: 1_000_000, ownDatabase: true });
  acct = await ctx.account('growth');
});
afterAll(() => ctx?.close());

const BUDGET = 1_000;

type Op =
  | { kind: 'authorize'; amount: number }
  | { kind: 'capture'; pick: number; amount: number | undefined }
  | { kind: 'void'; pick: number }
  | { kind: 'expire'; pick: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('authorize' as const), amount: fc.integer({ min: 1, max: 700 }) }),
  fc.record({ kind: fc.constant('capture' as const), pick: fc.nat(), amount: fc.option(fc.integer({ min: 1, max: 800 }), { nil: undefined }) }),
  fc.record({ kind: fc.constant('void' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('expire' as const), pick: fc.nat() }),
);

interface Approval {
  id: string;
  amount: number;
  status: 'uncaptured' | 'captured' | 'voided' | 'expired';
  captured: number;
}

const held = (a: Approval) => (a.status === 'uncaptured' ? a.amount : a.status === 'captured' ? a.captured : 0);

test('spend stays within [0, budget] and equals what the approvals hold, for any sequence', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), async (ops) => {
      const policy = await acct.test.post('/v1/policies', policyBody({ budget_monthly: BUDGET, budget_single_max: BUDGET, capture_window_seconds: 3_600 }));
      const agentId = (await acct.test.post('/v1/agents', { name: 'prop', policy_id: policy.body.id })).body.id as string;
      const approvals: Approval[] = [];
      for (const o of ops) {
        const target = approvals.length > 0 && o.kind !== 'authorize' ? approvals[o.pick % approvals.length]! : undefined;
        if (o.kind === 'authorize') {
          const res = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: o.amount, currency: 'USD', vendor: 'shop.example' });
          const room = BUDGET - approvals.reduce((s, a) => s + held(a), 0);
          expect(res.body.decision).toBe(o.amount <= room ? 'approved' : 'denied');
          if (res.body.decision === 'approved') approvals.push({ id: res.body.decision_id, amount: o.amount, status: 'uncaptured', captured: 0 });
        } else if (target && o.kind === 'capture') {
          const res = await acct.test.post(`/v1/decisions/${target.id}/capture`, o.amount === undefined ? {} : { amount: o.amount });
          const amount = o.amount ?? target.amount;
          if (amount > target.amount) expect(res.status).toBe(400);
          else if (target.status !== 'uncaptured') expect(res.status).toBe(409);
          else {
            expect(res.status).toBe(200);
            Object.assign(target, { status: 'captured', captured: amount });
          }
        } else if (target && o.kind === 'void') {
          const res = await acct.test.post(`/v1/decisions/${target.id}/void`);
          expect(res.status).toBe(target.status === 'uncaptured' ? 200 : 409);
          if (target.status === 'uncaptured') target.status = 'voided';
        } else if (target && o.kind === 'expire') {
          // Its deadline moved into the past, then the sweep, as the Schedule would run it.
          await ctx.database.db.updateTable('decisions').set({ capture_expires_at: new Date(Date.now() - 1_000) }).where('id', '=', target.id).execute();
          const { expired } = await expireUncapturedApprovals({ db: ctx.database.db });
          expect(expired.includes(target.id)).toBe(target.status === 'uncaptured');
          if (target.status === 'uncaptured') target.status = 'expired';
        }
        const row = await ctx.database.db.selectFrom('agent_spend').select(['approved', 'reserved']).where('agent_id', '=', agentId).where('period', 'like', 'M:%').executeTakeFirst();
        const spent = Number(row?.approved ?? 0);
        expect(spent).toBeGreaterThanOrEqual(0);
        expect(spent).toBeLessThanOrEqual(BUDGET);
        expect(spent).toBe(approvals.reduce((s, a) => s + held(a), 0));
      }
    }),
    { numRuns: 25 },
  );
}, 240_000);
