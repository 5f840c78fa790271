/**
 * Property: a batch decides any interleaving of agents' requests, authorizations and a rail's
 * swipes alike, exactly as the one-by-one path decides each agent's requests in turn: the same
 * decisions and reasons, the same matches and captures, the same spend, and the same audit order. The requests go straight to the service (no HTTP), so arrival order is the
 * order of the calls, and one fixed clock makes both runs see the same time.
 */
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { decide, groupDecisions } from '../../src/authorization/authorization.service.js';
import type { AuthorizationDeps } from '../../src/authorization/authorization.deps.js';
import { DecisionWaiter } from '../../src/authorization/decision-waiter.js';
import type { Caller } from '../../src/kernel/caller.js';
import type { RailOutcome, RailRequest } from '../../src/authorization/rail-request.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';
import { connectStripeIssuing } from '../support/stripe-issuing.js';

let ctx: TestContext;
let acct: TestAccount;
let caller: Caller;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 1_000_000 });
  acct = await ctx.account('growth');
  const key = await sql<{ id: string }>`SELECT id FROM api_keys WHERE account_id = ${acct.id} AND livemode = false AND role = 'admin' LIMIT 1`.execute(ctx.database.db);
  caller = { accountId: acct.id, livemode: false, keyId: key.rows[0]!.id, role: 'admin', agentId: null, plan: 'growth', rateLimit: null };
});
afterAll(() => ctx?.close());

const VENDORS = ['a.example', 'A.Example', 'b.example', 'blocked.example'];

const policy = fc.record({
  budget_monthly: fc.integer({ min: 300, max: 4_000 }),
  budget_daily: fc.option(fc.integer({ min: 200, max: 3_000 }), { nil: null }),
  budget_single_max: fc.integer({ min: 100, max: 1_500 }),
  require_approval_above: fc.option(fc.integer({ min: 50, max: 1_200 }), { nil: null }),
  velocity_limits: fc.option(
    fc.tuple(fc.option(fc.integer({ min: 1, max: 6 }), { nil: null }), fc.option(fc.integer({ min: 200, max: 2_000 }), { nil: null })),
    { nil: null },
  ),
  duplicate_window_seconds: fc.option(fc.integer({ min: 60, max: 600 }), { nil: null }),
});

type PolicyCase = typeof policy extends fc.Arbitrary<infer P> ? P : never;

const request = fc.record({ agent: fc.integer({ min: 0, max: 1 }), amount: fc.integer({ min: 1, max: 1_600 }), vendor: fc.constantFrom(...VENDORS) });

type Outcome = { decision: string; reason_code: string | null } | { error: string };

const outcomeOf = (r: PromiseSettledResult<{ decision: { decision: string; reason_code: string | null } }>): Outcome =>
  r.status === 'fulfilled' ? { decision: r.value.decision.decision, reason_code: r.value.decision.reason_code } : { error: (r.reason as { code?: string }).code ?? String(r.reason) };

async function agentsFor(policyId: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await acct.test.post('/v1/agents', { name: `p${i}`, policy_id: policyId })).body.id);
  return ids;
}

async function spendOf(agentId: string) {
  const rows = await sql<{ period: string; approved: string; reserved: string }>`SELECT period, approved, reserved FROM agent_spend WHERE agent_id = ${agentId} ORDER BY period`.execute(ctx.database.db);
  return rows.rows.map((r) => ({ period: r.period, approved: Number(r.approved), reserved: Number(r.reserved) }));
}

/** The agent's decision records in the order the audit chain holds them, as request numbers. */
async function auditOrder(agentId: string, numberOf: Map<string, number>) {
  const rows = await sql<{ decision_id: string }>`
    SELECT decision_id FROM audit_records WHERE agent_id = ${agentId} AND type = 'authorization.decision' ORDER BY insert_order`.execute(ctx.database.db);
  return rows.rows.map((r) => numberOf.get(r.decision_id));
}

/**
 * One case's set-up: a policy from `p`, two agents for the batch and two for the one-by-one path,
 * and the deps of each (grouped: one batch of up to 64, its sizes recorded), on one clock.
 */
async function twoRuns(p: PolicyCase, now: () => Date) {
  const created = await acct.test.post(
    '/v1/policies',
    policyBody({
      budget_monthly: p.budget_monthly,
      budget_daily: p.budget_daily,
      budget_single_max: p.budget_single_max,
      require_approval_above: p.require_approval_above,
      vendor_denylist: ['blocked.example'],
      duplicate_window_seconds: p.duplicate_window_seconds,
      velocity_limits: p.velocity_limits && (p.velocity_limits[0] !== null || p.velocity_limits[1] !== null) ? [{ window_seconds: 3_600, max_count: p.velocity_limits[0], max_amount: p.velocity_limits[1] }] : [],
    }),
  );
  expect(created.status).toBe(201);
  const batched = await agentsFor(created.body.id, 2);
  const alone = await agentsFor(created.body.id, 2);
  const sizes: number[] = [];
  const grouped: AuthorizationDeps = { db: ctx.database.db, signer: ctx.signer, waiter: new DecisionWaiter(), now, onBatch: (n) => sizes.push(n) };
  groupDecisions(grouped, { size: 64, lingerMs: 1, inFlight: 2 });
  const single: AuthorizationDeps = { db: ctx.database.db, signer: ctx.signer, waiter: new DecisionWaiter(), now };
  return { batched, alone, sizes, grouped, single };
}

test('a batch decides every interleaving of its agents’ requests as the one-by-one path does: decisions, spend, audit order', async () => {
  // The same instant for both runs; far enough in the past that no other test's rows share it.
  let clock = Date.parse('2031-03-14T09:00:00.000Z');
  await fc.assert(
    fc.asyncProperty(policy, fc.array(request, { minLength: 2, maxLength: 24 }), async (p, requests) => {
      clock += 24 * 3600 * 1000; // every case on a day of its own: velocity and duplicates start empty
      const now = () => new Date(clock);
      const { batched, alone, sizes, grouped, single } = await twoRuns(p, now);

      const input = (agentId: string, r: (typeof requests)[number]) => ({ agent_id: agentId, amount: r.amount, currency: 'USD', vendor: r.vendor });
      // All submitted in one tick: one batch, in this order.
      const inBatch = await Promise.allSettled(requests.map((r) => decide(grouped, caller, input(batched[r.agent]!, r))));
      expect(sizes).toEqual([requests.length]);
      const oneByOne: PromiseSettledResult<Awaited<ReturnType<typeof decide>>>[] = [];
      for (const r of requests) oneByOne.push(...(await Promise.allSettled([decide(single, caller, input(alone[r.agent]!, r))])));

      expect(inBatch.map(outcomeOf)).toEqual(oneByOne.map(outcomeOf));
      for (const i of [0, 1]) {
        expect(await spendOf(batched[i]!)).toEqual(await spendOf(alone[i]!));
        const numbers = (results: typeof inBatch) => new Map(results.flatMap((r, n) => (r.status === 'fulfilled' ? [[r.value.decision.decision_id, n] as const] : [])));
        const batchOrder = await auditOrder(batched[i]!, numbers(inBatch));
        expect(batchOrder).toEqual(await auditOrder(alone[i]!, numbers(oneByOne)));
        // Arrival order, and one record per decision.
        expect(batchOrder).toEqual([...batchOrder].sort((a, b) => a! - b!));
        expect(batchOrder).toHaveLength(requests.filter((r) => r.agent === i).length);
      }
    }),
    { numRuns: 25 },
  );
});

/** A rail's request as the Stripe rail makes it (rail-answers.service.ts), recording its answer in the decision's transaction. */
function swipeRail(connectionId: string, accountId: string, agentId: string, n: number, now: () => Date): RailRequest {
  const authorizationId = `iauth_prop_${agentId}_${n}`;
  const answerRow = (outcome: RailOutcome) => {
    const d = outcome.decision;
    const approved = d.decision === 'approved';
    return {
      connection_id: connectionId,
      authorization_id: authorizationId,
      account_id: accountId,
      livemode: false,
      request_event_id: `evt_prop_${agentId}_${n}`,
      agent_id: agentId,
      decision_id: d.decision_id,
      outcome: outcome.kind,
      approved,
      reason_code: approved ? null : d.reason_code,
      answer: { approved, metadata: { decision_id: d.decision_id } },
      counted_amount: approved ? d.amount : 0,
      approved_amount: approved ? d.amount : 0,
      increment: false,
      created_at: now(),
      updated_at: now(),
    };
  };
  return {
    ref: { type: 'stripe_issuing', connection_id: connectionId, authorization_id: authorizationId },
    answerRow,
    record: async (trx, outcome) => {
      await trx.insertInto('rail_authorizations').values({ ...answerRow(outcome), answer: JSON.stringify(answerRow(outcome).answer) } as never).execute();
    },
    checkInTime: () => undefined,
  };
}

const step = fc.record({
  kind: fc.constantFrom('authorize', 'authorize', 'swipe'),
  agent: fc.integer({ min: 0, max: 1 }),
  amount: fc.integer({ min: 1, max: 1_200 }),
  vendor: fc.constantFrom(...VENDORS),
});

type RailResult = PromiseSettledResult<RailOutcome>;

/** The agent's audit records in chain order, as (type, request number of the decision they name). */
async function auditTrail(agentId: string, numberOf: Map<string, number>) {
  const rows = await sql<{ type: string; decision_id: string }>`
    SELECT type, decision_id FROM audit_records WHERE agent_id = ${agentId} ORDER BY insert_order`.execute(ctx.database.db);
  return rows.rows.map((r) => `${r.type}:${numberOf.get(r.decision_id)}`);
}

test('swipes and authorizations in any interleaving: a batch decides them as one by one, rule 1’s matches and captures included', async () => {
  const connection = await connectStripeIssuing(acct.test);
  let clock = Date.parse('2033-05-02T09:00:00.000Z');
  let matches = 0;
  let approvals = 0;
  await fc.assert(
    // Each run opens with an authorization and a swipe it can match, so matches are met in every
    // sample's first steps whatever the draw (the policy may still refuse the authorization).
    fc.asyncProperty(policy, fc.array(step, { minLength: 0, maxLength: 22 }).map((rest) => [{ kind: 'authorize' as const, agent: 0, amount: 400, vendor: VENDORS[0]! }, { kind: 'swipe' as const, agent: 0, amount: 400, vendor: VENDORS[0]! }, ...rest]), async (p, steps) => {
      clock += 24 * 3600 * 1000;
      const now = () => new Date(clock);
      const { batched, alone, sizes, grouped, single } = await twoRuns(p, now);

      const run = (deps: AuthorizationDeps, agents: string[], s: (typeof steps)[number], n: number) => {
        // Swipes a quarter the size, so that many find an approval made before them to take.
        const input = { agent_id: agents[s.agent]!, amount: s.kind === 'swipe' ? Math.ceil(s.amount / 4) : s.amount, currency: 'USD', vendor: s.vendor };
        return decide(deps, caller, input, s.kind === 'swipe' ? { rail: swipeRail(connection.id, acct.id, agents[s.agent]!, n, now) } : {});
      };
      // All submitted in one tick: one batch, in this order.
      const inBatch: RailResult[] = await Promise.allSettled(steps.map((s, n) => run(grouped, batched, s, n)));
      expect(sizes).toEqual([steps.length]);
      const oneByOne: RailResult[] = [];
      for (const [n, s] of steps.entries()) oneByOne.push(...(await Promise.allSettled([run(single, alone, s, n)])));

      // The request that made each decision: a match names the authorization whose approval it took.
      const numbers = (results: RailResult[]) => new Map(results.flatMap((r, n) => (r.status === 'fulfilled' && r.value.kind === 'decided' ? [[r.value.decision.decision_id, n] as const] : [])));
      const shape = (results: RailResult[]) => {
        const made = numbers(results);
        return results.map((r) =>
          r.status === 'fulfilled'
            ? { kind: r.value.kind, decision: r.value.decision.decision, reason_code: r.value.decision.reason_code, capture: r.value.decision.capture?.status ?? null, of: made.get(r.value.decision.decision_id) }
            : { error: (r.reason as { code?: string }).code ?? String(r.reason) },
        );
      };
      expect(shape(inBatch)).toEqual(shape(oneByOne));
      matches += inBatch.filter((r) => r.status === 'fulfilled' && r.value.kind === 'matched').length;
      const made = inBatch.filter((r) => r.status === 'fulfilled' && r.value.kind === 'decided' && r.value.decision.decision === 'approved').length;
      if (made) approvals += made;
      for (const i of [0, 1]) {
        expect(await spendOf(batched[i]!)).toEqual(await spendOf(alone[i]!));
        expect(await auditTrail(batched[i]!, numbers(inBatch))).toEqual(await auditTrail(alone[i]!, numbers(oneByOne)));
      }
      const answers = async (agents: string[]) =>
        (await sql<{ outcome: string; approved: boolean }>`SELECT outcome, approved FROM rail_authorizations WHERE agent_id = ANY(${agents}) ORDER BY request_event_id`.execute(ctx.database.db)).rows.map((r) => `${r.outcome}:${r.approved}`);
      expect(await answers(batched)).toEqual(await answers(alone));
    }),
    { numRuns: 25 },
  );
  // The property held where it matters: swipes took approvals made in the same batch.
  expect({ matches: matches > 0, approvals: approvals > 0 }).toEqual({ matches: true, approvals: true });
}, 300_000);
