/**
 * Attack (DECISIONS §7, finding 11 of the fifth round): an insider with the owner's rights deletes
 * an approved decision row and lowers its agent's counter with it, so the budget it used is free
 * again. The decisions and the counters then agree with each other, and verify said `valid: true`.
 * Its sealed `authorization.decision` record is still in the chain: verify now counts the records
 * whose decision is gone (`records_without_decision`), and any makes it invalid.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { agentWithPolicy, createTestContext, type TestContext } from '../support/context.js';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx?.close());

test('a decision row deleted with its counter lowered: valid false, records_without_decision 1', async () => {
  const a = await ctx.account();
  const { agentId } = await agentWithPolicy(a.test, { budget_monthly: 10_000 });
  const kept = await a.test.post('/v1/authorize', { agent_id: agentId, amount: 1_000, currency: 'USD', vendor: 'shop.example' });
  const gone = await a.test.post('/v1/authorize', { agent_id: agentId, amount: 4_000, currency: 'USD', vendor: 'shop.example' });
  expect([kept.body.decision, gone.body.decision]).toEqual(['approved', 'approved']);
  expect((await a.test.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true, records_without_decision: 0, ledger_mismatches: 0 });

  // The insider's SQL, as the owner: the row and whatever refers to it, and the counters made to match.
  const db = ctx.database.db;
  await sql`DELETE FROM outbox WHERE ref_id IN (SELECT id FROM events WHERE data->>'decision_id' = ${gone.body.decision_id})`.execute(db).catch(() => {});
  await sql`DELETE FROM events WHERE data->>'decision_id' = ${gone.body.decision_id}`.execute(db);
  await sql`DELETE FROM decisions WHERE id = ${gone.body.decision_id}`.execute(db);
  await sql`UPDATE agent_spend SET approved = approved - 4000 WHERE agent_id = ${agentId}`.execute(db);

  const verify = (await a.test.get('/v1/audit-logs/verify')).body;
  expect(verify).toMatchObject({ valid: false, records_without_decision: 1, ledger_mismatches: 0, decisions_without_record: 0 });
  // The chain itself is whole: it is the missing row that is seen.
  expect(verify.first_invalid).toBeNull();
});
