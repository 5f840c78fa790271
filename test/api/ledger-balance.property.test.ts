/**
 * Property: whatever lifecycle an agent's decisions go through (approvals, denials, holds approved,
 * denied or expired, captures in full or in part, voids, expiries of uncaptured approvals), the
 * books balance: verify answers valid with no ledger mismatch. The recompute in verify is the same
 * rule the code that moves the counters follows.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { resolveHeldDecision } from '../../src/approvals/resolution.service.js';
import { expireUncapturedApprovals } from '../../src/capture/capture.service.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;

beforeAll(async () => {
  // A database of its own on PostgreSQL: the sweep looks at every account's approvals.
  ctx = await createTestContext({ testModeRateLimit: 1_000_000, ownDatabase: true });
}, 180_000);
afterAll(() => ctx?.close());

type Op =
  | { kind: 'authorize'; amount: number }
  | { kind: 'resolve'; pick: number; outcome: 'approved' | 'denied' | 'expired' }
  | { kind: 'capture'; pick: number; part: boolean }
  | { kind: 'void'; pick: number }
  | { kind: 'expire'; pick: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  // Up to 500 approved, above held, above 2,000 denied (the single maximum), beyond the budget denied.
  // Twice as likely as the rest: the other steps act on decisions made before.
  fc.record({ kind: fc.constant('authorize' as const), amount: fc.integer({ min: 1, max: 2_500 }) }),
  fc.record({ kind: fc.constant('authorize' as const), amount: fc.integer({ min: 1, max: 2_500 }) }),
  fc.record({ kind: fc.constant('resolve' as const), pick: fc.nat(), outcome: fc.constantFrom('approved' as const, 'denied' as const, 'expired' as const) }),
  fc.record({ kind: fc.constant('capture' as const), pick: fc.nat(), part: fc.boolean() }),
  fc.record({ kind: fc.constant('void' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('expire' as const), pick: fc.nat() }),
);

test('verify finds no ledger mismatch after any lifecycle', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 6, maxLength: 16 }), async (ops) => {
      // An account per run: verify answers for the whole account, so a failing run must not fail the next.
      const acct: TestAccount = await ctx.account('growth');
      const policy = await acct.test.post('/v1/policies', policyBody({ budget_monthly: 5_000, budget_single_max: 2_000, require_approval_above: 500, capture_window_seconds: 3_600 }));
      const agentId = (await acct.test.post('/v1/agents', { name: 'prop', policy_id: policy.body.id })).body.id as string;
      const decisions: Array<{ id: string; amount: number; decision: string }> = [];
      const pick = (n: number, want: string) => {
        const some = decisions.filter((d) => d.decision === want);
        return some.length > 0 ? some[n % some.length] : undefined;
      };
      for (const o of ops) {
        if (o.kind === 'authorize') {
          const res = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: o.amount, currency: 'USD', vendor: 'shop.example' });
          expect(res.status, res.text).toBe(200);
          decisions.push({ id: res.body.decision_id, amount: o.amount, decision: res.body.decision });
        } else if (o.kind === 'resolve') {
          const held = pick(o.pick, 'held');
          if (!held) continue;
          const r = await resolveHeldDecision(
            { db: ctx.database.db, signer: ctx.signer },
            { decisionId: held.id, outcome: o.outcome, resolvedBy: 'key_r', actor: { type: 'reviewer', id: 'key_r' } },
          );
          held.decision = r.decision.decision;
        } else {
          const approved = pick(o.pick, 'approved');
          if (!approved) continue;
          if (o.kind === 'capture') {
            await acct.test.post(`/v1/decisions/${approved.id}/capture`, o.part && approved.amount > 1 ? { amount: Math.ceil(approved.amount / 2) } : {});
          } else if (o.kind === 'void') {
            await acct.test.post(`/v1/decisions/${approved.id}/void`);
          } else {
            // Its deadline moved into the past, then the sweep, as the Schedule would run it.
            await ctx.database.db.updateTable('decisions').set({ capture_expires_at: new Date(Date.now() - 1_000) }).where('id', '=', approved.id).where('capture_status', '=', 'uncaptured').execute();
            await expireUncapturedApprovals({ db: ctx.database.db });
          }
        }
      }
      const verify = await acct.test.get('/v1/audit-logs/verify');
      expect(verify.body).toMatchObject({ valid: true, ledger_mismatches: 0, ledger_mismatch_examples: [] });
    }),
    { numRuns: 20 },
  );
}, 300_000);
