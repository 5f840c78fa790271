/**
 * A batch whose transaction fails is decided again request by request (docs/operations.md, "Group
 * commit"): no request is answered with a decision that was not committed, and nothing is written
 * twice. The failure is made by the database itself: a statement trigger refuses any insert of more
 * than one decision, which only a batch makes.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { batchMetrics } from '../support/batch-metrics.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;

beforeAll(async () => {
  // A database of its own: the trigger must not reach other files' batches.
  ctx = await createTestContext({ testModeRateLimit: 1_000_000, ownDatabase: true, authorizeBatch: { size: 64, lingerMs: 1, inFlight: 2 } });
  acct = await ctx.account('growth');
  // Sequences are not rolled back: it counts the refused batches.
  await sql`CREATE SEQUENCE refused_batches`.execute(ctx.database.db);
  await sql`
    CREATE FUNCTION refuse_batches() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF (SELECT count(*) FROM inserted) > 1 THEN
        PERFORM nextval('refused_batches');
        RAISE EXCEPTION 'batches refused by this test';
      END IF;
      RETURN NULL;
    END $$`.execute(ctx.database.db);
  await sql`CREATE TRIGGER refuse_batches AFTER INSERT ON decisions REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION refuse_batches()`.execute(ctx.database.db);
});
afterAll(() => ctx?.close());

test('a batch whose transaction fails is decided again one by one: every answer committed, once, in budget', async () => {
  const AMOUNT = 100;
  const policy = await acct.test.post('/v1/policies', policyBody({ budget_monthly: 12 * AMOUNT, budget_single_max: AMOUNT }));
  const agents: string[] = [];
  for (let i = 0; i < 3; i++) agents.push((await acct.test.post('/v1/agents', { name: `a${i}`, policy_id: policy.body.id })).body.id);
  /** Batches of two or more committed so far (a request alone is counted as a batch of one). */
  const grouped = async () => {
    const { count, single } = await batchMetrics(ctx);
    return count - single;
  };
  const before = await grouped();

  const results = await Promise.all(
    Array.from({ length: 60 }, (_, i) => acct.test.post('/v1/authorize', { agent_id: agents[i % 3], amount: AMOUNT, currency: 'USD', vendor: 'v.example', metadata: { n: i } })),
  );
  expect(results.filter((r) => r.status !== 200).map((r) => r.text)).toEqual([]);
  // Batches were tried and refused, none was counted as committed: each request was decided alone.
  const refused = await sql<{ last_value: string; is_called: boolean }>`SELECT last_value, is_called FROM refused_batches`.execute(ctx.database.db);
  expect(refused.rows[0]!.is_called).toBe(true);
  expect(Number(refused.rows[0]!.last_value)).toBeGreaterThan(0);
  expect(await grouped()).toBe(before);

  const ids = results.map((r) => r.body.decision_id as string);
  const stored = await sql<{ id: string; agent_id: string; decision: string; amount: string }>`SELECT id, agent_id, decision, amount FROM decisions WHERE agent_id = ANY(${agents}::text[])`.execute(ctx.database.db);
  // Exactly the answered decisions exist: none answered but missing, none written twice.
  expect(stored.rows.map((r) => r.id).sort()).toEqual([...ids].sort());
  for (const agentId of agents) {
    const approved = results.filter((r, i) => i % 3 === agents.indexOf(agentId) && r.body.decision === 'approved');
    expect(approved).toHaveLength(12);
    const spend = await sql<{ approved: string }>`SELECT approved FROM agent_spend WHERE agent_id = ${agentId} AND period LIKE 'M:%'`.execute(ctx.database.db);
    expect(Number(spend.rows[0]!.approved)).toBe(12 * AMOUNT);
  }
  const records = await sql<{ n: string }>`SELECT count(*) AS n FROM audit_records WHERE agent_id = ANY(${agents}::text[]) AND type = 'authorization.decision'`.execute(ctx.database.db);
  expect(Number(records.rows[0]!.n)).toBe(60);
  expect((await acct.test.get('/v1/audit-logs/verify')).body.valid).toBe(true);
});
