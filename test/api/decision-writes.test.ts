/**
 * How a decision is written: all of its rows as one statement, applied only while the agent is as
 * its evaluation read it (otherwise decided again under the agent's lock).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { agentUnchanged, readAgentState } from '../../src/authorization/authorization.repository.js';
import { periodsOf } from '../../src/decisions/spend.repository.js';
import { auditInsert, auditRecord } from '../../src/audit/audit.repository.js';
import { executeTogether, PreconditionFailed } from '../../src/db/statements.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;

beforeAll(async () => {
  // More than 100 test-mode requests a minute with one account's keys.
  ctx = await createTestContext({ testModeRateLimit: 10_000 });
  acct = await ctx.account('growth');
});
afterAll(() => ctx?.close());

async function newAgent(policy: Record<string, unknown> = {}): Promise<string> {
  const p = await acct.test.post('/v1/policies', policyBody(policy));
  return (await acct.test.post('/v1/agents', { name: 'buyer', policy_id: p.body.id })).body.id;
}
const body = (agentId: string, amount = 1_000) => ({ agent_id: agentId, amount, currency: 'USD', vendor: 'openai.com' });
const auditCount = async (agentId: string) =>
  Number((await sql<{ n: number }>`SELECT count(*) AS n FROM audit_records WHERE agent_id = ${agentId}`.execute(ctx.database.db)).rows[0]!.n);
const decisionSeq = async (agentId: string) =>
  Number((await sql<{ s: number }>`SELECT decision_seq AS s FROM agents WHERE id = ${agentId}`.execute(ctx.database.db)).rows[0]!.s);
const stateOf = async (agentId: string) => (await readAgentState(ctx.database.db, acct.id, false, agentId, periodsOf(new Date())))!;
const recordFor = (agentId: string) =>
  auditInsert(ctx.database.db, auditRecord({ accountId: acct.id, livemode: false, type: 'test.write', actor: { type: 'system', id: null }, agentId }));

describe('executeTogether with a precondition', () => {
  test('writes every statement when the agent is unchanged, and counts the decision', async () => {
    const agentId = await newAgent();
    const before = await auditCount(agentId);
    const { agent } = await stateOf(agentId);
    await executeTogether(ctx.database.db, [recordFor(agentId), recordFor(agentId)], { precondition: agentUnchanged(ctx.database.db, agent) });
    expect(await auditCount(agentId)).toBe(before + 2);
    expect(await decisionSeq(agentId)).toBe(agent.decision_seq + 1);
  });

  test('writes nothing when another decision came first', async () => {
    const agentId = await newAgent();
    const { agent } = await stateOf(agentId);
    expect((await acct.test.post('/v1/authorize', body(agentId))).status).toBe(200);
    const before = await auditCount(agentId);
    await expect(
      executeTogether(ctx.database.db, [recordFor(agentId)], { precondition: agentUnchanged(ctx.database.db, agent) }),
    ).rejects.toBeInstanceOf(PreconditionFailed);
    expect(await auditCount(agentId)).toBe(before);
    expect(await decisionSeq(agentId)).toBe(agent.decision_seq + 1);
  });

  test('writes nothing when the agent was frozen, or moved to another policy, after it was read', async () => {
    const agentId = await newAgent();
    const { agent } = await stateOf(agentId);
    expect((await acct.test.post(`/v1/agents/${agentId}/freeze`, {})).status).toBe(200);
    const before = await auditCount(agentId);
    await expect(executeTogether(ctx.database.db, [recordFor(agentId)], { precondition: agentUnchanged(ctx.database.db, agent) })).rejects.toBeInstanceOf(
      PreconditionFailed,
    );
    expect(await auditCount(agentId)).toBe(before);

    const other = await newAgent();
    const read = (await stateOf(other)).agent;
    const p = await acct.test.post('/v1/policies', policyBody({}));
    expect((await acct.test.patch(`/v1/agents/${other}`, { policy_id: p.body.id })).status).toBe(200);
    await expect(executeTogether(ctx.database.db, [recordFor(other)], { precondition: agentUnchanged(ctx.database.db, read) })).rejects.toBeInstanceOf(
      PreconditionFailed,
    );
  });

  test('refuses a statement with literal text, whose placeholders could not be renumbered safely', async () => {
    await expect(executeTogether(ctx.database.db, [ctx.database.db.selectNoFrom(sql.lit('x').as('x'))])).rejects.toThrow(/fully parameterised/);
  });
});

describe('deciding', () => {
  test('every decision counts once on its agent, whichever way it was written', async () => {
    const agentId = await newAgent({ budget_monthly: 1_000_000 });
    const sequential = 5;
    for (let i = 0; i < sequential; i++) expect((await acct.test.post('/v1/authorize', body(agentId))).status).toBe(200);
    // Concurrent requests of one agent mostly collide and are decided again under the lock.
    const results = await Promise.all(Array.from({ length: 30 }, () => acct.test.post('/v1/authorize', body(agentId))));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(await decisionSeq(agentId)).toBe(sequential + 30);
    const decisions = Number((await sql<{ n: number }>`SELECT count(*) AS n FROM decisions WHERE agent_id = ${agentId}`.execute(ctx.database.db)).rows[0]!.n);
    expect(decisions).toBe(sequential + 30);
    const { spend } = await stateOf(agentId);
    expect(spend.month).toEqual({ approved: (sequential + 30) * 1_000, reserved: 0 });
  });

  test('a denial that tips auto-freeze freezes the agent in the same transaction', async () => {
    const agentId = await newAgent({ vendor_denylist: ['blocked.example'], auto_freeze: { denials: 2, window_seconds: 600 } });
    for (let i = 0; i < 2; i++) {
      const res = await acct.test.post('/v1/authorize', { ...body(agentId), vendor: 'blocked.example' });
      expect(res.body.decision).toBe('denied');
    }
    expect((await acct.test.get(`/v1/agents/${agentId}`)).body.status).toBe('frozen');
    expect(await decisionSeq(agentId)).toBe(2);
  });
});
