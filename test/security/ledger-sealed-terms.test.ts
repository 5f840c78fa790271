/**
 * Attack (DECISIONS §7, finding 3 of the fifth round): an insider moves the books together so they
 * agree, to get budget back or to bill less. A decision moved to last month with its counters
 * moved with it frees this month's budget; usage counters zeroed bill nothing. Verify took the
 * periods from the very row it checked, and never looked at usage: both verified valid. The
 * periods now come from the terms sealed in the decision's record, and each live month's count
 * from the live decision records (kind `usage`). The statements need only UPDATE and INSERT on
 * decisions, agent_spend and usage_counters: they run as the database's owner and, on PostgreSQL,
 * as a role with exactly the runtime grants of docs/security.md.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { agentWithPolicy, createTestContext, type TestContext } from '../support/context.js';
import { INSIDER_NAMES, insiders, type Insiders } from '../support/insider.js';

let ctx: TestContext;
let who: Insiders;

beforeAll(async () => {
  ctx = await createTestContext();
  who = await insiders(ctx);
});
afterAll(async () => {
  await who?.drop();
  await ctx?.close();
});

const insider = (name: Insiders['all'][number]['name']) => who.named(name);

/** The month before `M:YYYY-MM`, and a day in it. */
function monthBefore(month: string): { month: string; day: string } {
  const [y, m] = month.slice(2).split('-').map(Number) as [number, number];
  const before = new Date(Date.UTC(y, m - 2, 15));
  const iso = before.toISOString();
  return { month: `M:${iso.slice(0, 7)}`, day: `D:${iso.slice(0, 10)}` };
}

test.each(INSIDER_NAMES)("a decision moved to last month with its counters: the decision's periods are named (%s)", async (name) => {
  const a = await ctx.account();
  const { agentId } = await agentWithPolicy(a.test, { budget_monthly: 5_000, budget_single_max: 5_000 });
  const spent = await a.test.post('/v1/authorize', { agent_id: agentId, amount: 4_000, currency: 'USD', vendor: 'shop.example' });
  expect(spent.body.decision).toBe('approved');
  const id = spent.body.decision_id as string;
  const row = await ctx.database.db.selectFrom('decisions').select(['spend_month', 'spend_day']).where('id', '=', id).executeTakeFirstOrThrow();
  expect((await a.test.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true, ledger_mismatches: 0 });

  const last = monthBefore(row.spend_month);
  await insider(name).run(
    sql`UPDATE decisions SET spend_month = ${last.month}, spend_day = ${last.day} WHERE id = ${id}`,
    sql`UPDATE agent_spend SET approved = approved - 4000 WHERE agent_id = ${agentId} AND period IN (${row.spend_month}, ${row.spend_day})`,
    sql`INSERT INTO agent_spend (agent_id, period, approved, reserved) VALUES (${agentId}, ${last.month}, 4000, 0), (${agentId}, ${last.day}, 4000, 0)`,
  );
  // The budget the move freed is spent again...
  expect((await a.test.post('/v1/authorize', { agent_id: agentId, amount: 4_000, currency: 'USD', vendor: 'shop.example' })).body.decision).toBe('approved');
  // ...and the next verify says so, naming the moved decision by what its record sealed.
  const v = (await a.test.get('/v1/audit-logs/verify')).body;
  expect(v).toMatchObject({ valid: false, first_invalid: null, ledger_mismatches: 1 });
  expect(v.ledger_mismatch_examples).toEqual([{ kind: 'decision', id, expected: { spend_month: row.spend_month, spend_day: row.spend_day }, found: { spend_month: last.month, spend_day: last.day } }]);
});

test.each(INSIDER_NAMES)("usage counters zeroed: the live month's count is named, test mode has none (%s)", async (name) => {
  const a = await ctx.account();
  expect(a.live).toBeDefined();
  const { agentId } = await agentWithPolicy(a.live!, { budget_monthly: 100_000, budget_single_max: 10_000, require_approval_above: 5_000 });
  for (const amount of [100, 200, 6_000]) expect((await a.live!.post('/v1/authorize', { agent_id: agentId, amount, currency: 'USD', vendor: 'shop.example' })).status).toBe(200);
  expect((await a.live!.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true, ledger_mismatches: 0 });
  const month = new Date().toISOString().slice(0, 7);
  expect((await a.live!.get('/v1/usage')).body).toMatchObject({ checks: 3 });

  await insider(name).run(sql`UPDATE usage_counters SET checks = 0 WHERE account_id = ${a.id}`);
  const v = (await a.live!.get('/v1/audit-logs/verify')).body;
  expect(v).toMatchObject({ valid: false, first_invalid: null, ledger_mismatches: 1 });
  expect(v.ledger_mismatch_examples).toEqual([{ kind: 'usage', id: a.id, expected: { month, checks: 3 }, found: { month, checks: 0 } }]);
  // Test mode is never counted: its books are not the live ones.
  expect((await a.test.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true, ledger_mismatches: 0 });
});

test.each(INSIDER_NAMES)('usage counters raised (the customer billed for checks never made): named too (%s)', async (name) => {
  const a = await ctx.account();
  const { agentId } = await agentWithPolicy(a.live!, { budget_monthly: 100_000, budget_single_max: 10_000 });
  expect((await a.live!.post('/v1/authorize', { agent_id: agentId, amount: 100, currency: 'USD', vendor: 'shop.example' })).status).toBe(200);
  const month = new Date().toISOString().slice(0, 7);
  await insider(name).run(sql`INSERT INTO usage_counters (account_id, month, shard, checks) VALUES (${a.id}, ${month}, 63, 1000) ON CONFLICT (account_id, month, shard) DO UPDATE SET checks = usage_counters.checks + 1000`);
  const v = (await a.live!.get('/v1/audit-logs/verify')).body;
  expect(v.ledger_mismatch_examples).toEqual([{ kind: 'usage', id: a.id, expected: { month, checks: 1 }, found: { month, checks: 1_001 } }]);
});
