/**
 * Attack (DECISIONS §7, finding 3 of the fifth round): an insider edits a decision row together
 * with its counters to get budget back, so the decisions and the counters agree: lowering an
 * approval's `captured_amount`, or marking an approval `voided` with no void record. Verify took
 * those from the very row it checked and said `valid: true`. It now takes an approval's capture
 * from its sealed lifecycle records. The statements need only UPDATE on decisions and agent_spend,
 * which the runtime role of docs/security.md holds: they run as the database's owner and, on
 * PostgreSQL, as a role with exactly the runtime grants.
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

/** An agent with an approval captured at 3,000 of 5,000, and an uncaptured one of 2,000; verify valid. */
async function books() {
  const a = await ctx.account();
  const { agentId } = await agentWithPolicy(a.test, { budget_monthly: 100_000, budget_single_max: 10_000 });
  const captured = (await a.test.post('/v1/authorize', { agent_id: agentId, amount: 5_000, currency: 'USD', vendor: 'shop.example' })).body.decision_id as string;
  expect((await a.test.post(`/v1/decisions/${captured}/capture`, { amount: 3_000 })).status).toBe(200);
  const open = (await a.test.post('/v1/authorize', { agent_id: agentId, amount: 2_000, currency: 'USD', vendor: 'shop.example' })).body.decision_id as string;
  expect((await a.test.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true, ledger_mismatches: 0 });
  return { a, agentId, captured, open };
}

test.each(INSIDER_NAMES)("a captured amount lowered with the counters: the decision's capture is named (%s)", async (name) => {
  const { a, agentId, captured } = await books();
  await insider(name).run(sql`UPDATE decisions SET captured_amount = 1000 WHERE id = ${captured}`, sql`UPDATE agent_spend SET approved = approved - 2000 WHERE agent_id = ${agentId}`);
  const v = (await a.test.get('/v1/audit-logs/verify')).body;
  expect(v).toMatchObject({ valid: false, ledger_mismatches: 1 });
  expect(v.ledger_mismatch_examples).toEqual([{ kind: 'decision', id: captured, expected: { captured_amount: 3_000 }, found: { captured_amount: 1_000 } }]);
});

test.each(INSIDER_NAMES)('an approval marked voided with no void record, its counters lowered: named (%s)', async (name) => {
  const { a, agentId, open } = await books();
  await insider(name).run(sql`UPDATE decisions SET capture_status = 'voided' WHERE id = ${open}`, sql`UPDATE agent_spend SET approved = approved - 2000 WHERE agent_id = ${agentId}`);
  const v = (await a.test.get('/v1/audit-logs/verify')).body;
  expect(v).toMatchObject({ valid: false, ledger_mismatches: 1 });
  expect(v.ledger_mismatch_examples).toEqual([{ kind: 'decision', id: open, expected: { capture_status: 'uncaptured' }, found: { capture_status: 'voided' } }]);
});

test('untouched books stay valid through captures, voids, adjustments and expiry', async () => {
  const { a, open } = await books();
  expect((await a.test.post(`/v1/decisions/${open}/void`, {})).status).toBe(200);
  expect((await a.test.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true, ledger_mismatches: 0 });
});
