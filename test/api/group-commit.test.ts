/**
 * Concurrency at each batch size (docs/operations.md, "Group commit"): 1 (each decision its own
 * transaction), 8 and 64. Whatever the grouping, budgets are never overrun, every decision has one
 * record, usage counts each live check once, and the audit chain verifies.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { batchMetrics } from '../support/batch-metrics.js';
import { createTestContext, policyBody, type Client, type TestAccount, type TestContext } from '../support/context.js';

const AMOUNT = 100;
const HELD_AMOUNT = 300;

describe.each([1, 8, 64])('batch size %i', (size) => {
  let ctx: TestContext;
  let acct: TestAccount;
  let live: Client;

  beforeAll(async () => {
    ctx = await createTestContext({ testModeRateLimit: 1_000_000, authorizeBatch: { size, lingerMs: 1, inFlight: 2 } });
    acct = await ctx.account('enterprise', { rateLimit: 1_000_000 });
    live = acct.live!;
  });
  afterAll(() => ctx?.close());

  async function newAgent(client: Client, policy: Record<string, unknown>): Promise<string> {
    const p = await client.post('/v1/policies', policyBody(policy));
    return (await client.post('/v1/agents', { name: 'buyer', policy_id: p.body.id })).body.id;
  }
  const body = (agentId: string, amount: number, n: number) => ({ agent_id: agentId, amount, currency: 'USD', vendor: 'openai.com', metadata: { n } });
  const db = () => ctx.database.db;
  const spendOf = async (agentId: string) => {
    const row = (await sql<{ approved: string; reserved: string }>`SELECT approved, reserved FROM agent_spend WHERE agent_id = ${agentId} AND period LIKE 'M:%'`.execute(db())).rows[0];
    return { approved: Number(row?.approved ?? 0), reserved: Number(row?.reserved ?? 0) };
  };
  const recordsPerDecision = async (agentIds: string[]) =>
    (
      await sql<{ decision_id: string; n: string }>`
        SELECT decision_id, count(*) AS n FROM audit_records
        WHERE agent_id = ANY(${agentIds}::text[]) AND type = 'authorization.decision' GROUP BY decision_id`.execute(db())
    ).rows;
  test('200 concurrent requests against a budget that fits exactly 37: 37 approved, never overspent, one decision and one audit record each', async () => {
    const agentId = await newAgent(acct.test, { budget_monthly: 37 * AMOUNT, budget_single_max: AMOUNT });
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => acct.test.post('/v1/authorize', body(agentId, AMOUNT, i))));
    expect(results.map((r) => r.status).every((s) => s === 200)).toBe(true);
    expect(results.filter((r) => r.body.decision === 'approved')).toHaveLength(37);
    expect(results.filter((r) => r.body.decision === 'denied').every((r) => r.body.reason_code === 'budget_exceeded')).toBe(true);
    expect(await spendOf(agentId)).toEqual({ approved: 37 * AMOUNT, reserved: 0 });
    const ids = results.map((r) => r.body.decision_id);
    expect(new Set(ids).size).toBe(200);
    const records = await recordsPerDecision([agentId]);
    expect(records).toHaveLength(200);
    expect(records.every((r) => Number(r.n) === 1)).toBe(true);
    expect(new Set(records.map((r) => r.decision_id))).toEqual(new Set(ids));
    expect((await acct.test.get('/v1/audit-logs/verify')).body.valid).toBe(true);
  });

  // Its own time limit: at batch size 1 on a busy machine the 1,000 decisions alone may take 30 s.
  test('1,000 concurrent live requests over 10 agents never overshoot a budget, never deny what still fits, and count 1,000 checks', async () => {
    const AGENTS = 10;
    const budget = 23 * AMOUNT;
    const agents: string[] = [];
    for (let i = 0; i < AGENTS; i++) agents.push(await newAgent(live, { budget_monthly: budget, budget_single_max: 1_000, require_approval_above: 250 }));
    const checksBefore = (await live.get('/v1/usage')).body;
    const before = await batchMetrics(ctx);
    // Every tenth request is held (above the approval threshold) and reserves its amount.
    const sent = Array.from({ length: 1_000 }, (_, i) => ({ agentId: agents[i % AGENTS]!, amount: i % 10 === 9 ? HELD_AMOUNT : AMOUNT }));
    const results = await Promise.all(sent.map((s, i) => live.post('/v1/authorize', body(s.agentId, s.amount, i))));
    expect(results.filter((r) => r.status !== 200).map((r) => r.text)).toEqual([]);

    for (const agentId of agents) {
      const mine = results.filter((_, i) => sent[i]!.agentId === agentId).map((r) => r.body);
      const spend = await spendOf(agentId);
      // Never overshot, and equal to what the answers hold.
      expect(spend.approved + spend.reserved).toBeLessThanOrEqual(budget);
      expect(spend.approved).toBe(mine.filter((d) => d.decision === 'approved').reduce((s, d) => s + d.amount, 0));
      expect(spend.reserved).toBe(mine.filter((d) => d.decision === 'held').reduce((s, d) => s + d.amount, 0));
      // A request denied for the budget would not have fit even at the end (spend only grew).
      for (const d of mine.filter((x) => x.reason_code === 'budget_exceeded')) expect(spend.approved + spend.reserved + d.amount).toBeGreaterThan(budget);
      expect(mine.every((d) => d.reason_code === null || d.reason_code === 'budget_exceeded' || d.reason_code === 'approval_required')).toBe(true);
    }
    const records = await recordsPerDecision(agents);
    expect(records).toHaveLength(1_000);
    expect(records.every((r) => Number(r.n) === 1)).toBe(true);
    const checksAfter = (await live.get('/v1/usage')).body;
    expect(checksAfter.checks - checksBefore.checks).toBe(1_000);
    expect((await live.get('/v1/audit-logs/verify')).body.valid).toBe(true);

    // The rows a batch writes through JSON have the types the one-by-one path writes: objects, not text.
    const held = results.map((r) => r.body).filter((d) => d.decision === 'held').map((d) => d.decision_id as string);
    expect(held.length).toBeGreaterThan(0);
    const outbox = await sql<{ topic: string; ref_id: string; payload: unknown; account_id: string }>`
      SELECT topic, ref_id, payload, account_id FROM outbox WHERE topic = 'held_decision' AND ref_id = ANY(${held}::text[])`.execute(db());
    expect(outbox.rows.map((r) => r.ref_id).sort()).toEqual([...held].sort());
    expect(outbox.rows.every((r) => r.account_id === acct.id && JSON.stringify(r.payload) === '{}')).toBe(true);
    const types = await sql<{ data: string; metadata: string; approvals: string; decision_metadata: string }>`
      SELECT DISTINCT jsonb_typeof(e.data) AS data, jsonb_typeof(a.metadata) AS metadata, jsonb_typeof(d.approvals) AS approvals, jsonb_typeof(d.metadata) AS decision_metadata
      FROM decisions d JOIN audit_records a ON a.decision_id = d.id AND a.type = 'authorization.decision'
      JOIN events e ON e.data->>'decision_id' = d.id
      WHERE d.agent_id = ANY(${agents}::text[])`.execute(db());
    expect(types.rows).toEqual([{ data: 'object', metadata: 'object', approvals: 'array', decision_metadata: 'object' }]);
    const event = await live.get(`/v1/events?type=authorize.held&limit=1`);
    expect(event.body.data[0].data).toMatchObject({ decision_id: expect.stringMatching(/^dec_/), decision: 'held' });

    const after = await batchMetrics(ctx);
    // Grouping on: every decision went through a batch, and some were committed together; off: none did.
    if (size === 1) expect(after.count - before.count).toBe(0);
    else {
      expect(after.sum - before.sum).toBe(1_000);
      expect(after.count - before.count - (after.single - before.single)).toBeGreaterThan(0);
    }
  }, 120_000);
});
