/**
 * Attack: riding another account's batch. Decisions are committed in groups (docs/operations.md,
 * "Group commit"): one transaction locks every agent a batch names, of whichever account, and the
 * batch checks in memory that each request's agent is its caller's. An attacker's admin keys name
 * the victim's agents (and the victim's test key names its own live agent, its live key its test
 * agent) in requests that arrive together with the victim's own, so they share batches. Each of
 * those answers exactly as an agent that does not exist; the victim's requests are decided as if
 * the attacker had never asked; nothing is written for the attacker and nothing of the victim's
 * reaches it. A request that fails for a reason of its own (frozen, unknown agent) fails alone.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { batchMetrics } from '../support/batch-metrics.js';
import { createTestContext, agentWithPolicy, type ApiResponse, type Client, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let attacker: TestAccount;
let victim: TestAccount;
/** The victim's agents: one in test mode, one in live mode. */
let testAgent: { agentId: string; policyId: string };
let liveAgent: { agentId: string; policyId: string };

const BATCHING = { size: 64, lingerMs: 1, inFlight: 2 };
const UNKNOWN_AGENT = 'agt_doesnotexist00000000000';

beforeAll(async () => {
  ctx = await createTestContext({ authorizeBatch: BATCHING, testModeRateLimit: 100_000 });
  [attacker, victim] = await Promise.all([ctx.account('growth'), ctx.account('growth')]);
  const budget = { budget_monthly: 10_000_000, budget_single_max: 100_000 };
  testAgent = await agentWithPolicy(victim.test, budget);
  liveAgent = await agentWithPolicy(victim.live!, budget);
});
afterAll(() => ctx?.close());

const spend = (client: Client, agentId: string, amount: number) => client.post('/v1/authorize', { agent_id: agentId, amount, currency: 'USD', vendor: 'shop.example' });

/** The error as the caller sees it, without the request id that differs for every request. */
const errorOf = (res: ApiResponse) => {
  const { request_id: _ignored, ...rest } = res.body.error ?? {};
  return { status: res.status, error: rest, keys: Object.keys(res.body).sort() };
};

async function agentRecord(agentId: string) {
  const db = ctx.database.db;
  const decisions = await db.selectFrom('decisions').select(['id', 'account_id', 'livemode', 'amount', 'requested_by']).where('agent_id', '=', agentId).execute();
  const agent = await db.selectFrom('agents').select(['decision_seq', 'account_id']).where('id', '=', agentId).executeTakeFirstOrThrow();
  const spendRows = await db.selectFrom('agent_spend').select(['period', 'approved', 'reserved']).where('agent_id', '=', agentId).execute();
  const audit = await db.selectFrom('audit_records').select(['account_id', 'livemode', 'decision_id', 'amount']).where('agent_id', '=', agentId).where('type', '=', 'authorization.decision').execute();
  const month = spendRows.find((r) => r.period.startsWith('M:'));
  return {
    decisions,
    seq: Number(agent.decision_seq),
    approved: Number(month?.approved ?? 0),
    reserved: Number(month?.reserved ?? 0),
    audit,
  };
}

/** What an account holds of spend decisions: rows of each kind, and its billable checks. */
async function accountRecord(accountId: string) {
  const agents = [testAgent.agentId, liveAgent.agentId];
  const { rows } = await sql<Record<string, string | number | null>>`
    SELECT
      (SELECT count(*) FROM decisions WHERE account_id = ${accountId}) AS decisions,
      (SELECT count(*) FROM audit_records WHERE account_id = ${accountId} AND type = 'authorization.decision') AS decision_audit,
      (SELECT count(*) FROM audit_records WHERE account_id = ${accountId} AND agent_id = ANY(${agents}::text[])) AS audit_naming_agents,
      (SELECT count(*) FROM events WHERE account_id = ${accountId} AND type LIKE 'authorize.%') AS decision_events,
      (SELECT count(*) FROM outbox WHERE account_id = ${accountId}) AS outbox,
      (SELECT coalesce(sum(checks), 0) FROM usage_counters WHERE account_id = ${accountId}) AS checks`.execute(ctx.database.db);
  const r = rows[0]!;
  return {
    decisions: Number(r.decisions),
    decisionAudit: Number(r.decision_audit),
    auditNamingAgents: Number(r.audit_naming_agents),
    decisionEvents: Number(r.decision_events),
    outbox: Number(r.outbox),
    checks: Number(r.checks),
  };
}

describe("the attacker's requests in the victim's batches", () => {
  test("every foreign request answers 404 exactly as an unknown agent; the victim's are decided as if it had asked alone; nothing is written for the attacker and nothing of the victim's reaches it", async () => {
    // What an agent that does not exist answers, in each scope asking.
    const unknown = {
      attackerTest: errorOf(await spend(attacker.test, UNKNOWN_AGENT, 7_777)),
      attackerLive: errorOf(await spend(attacker.live!, UNKNOWN_AGENT, 7_777)),
      victimTest: errorOf(await spend(victim.test, UNKNOWN_AGENT, 7_777)),
      victimLive: errorOf(await spend(victim.live!, UNKNOWN_AGENT, 7_777)),
    };
    expect(unknown.attackerTest).toEqual({ status: 404, error: { code: 'not_found', message: expect.any(String), param: 'agent_id' }, keys: ['error'] });
    for (const ref of Object.values(unknown)) expect(ref).toEqual(unknown.attackerTest);

    const attackerBefore = await accountRecord(attacker.id);
    const victimBefore = await accountRecord(victim.id);
    expect(attackerBefore).toMatchObject({ decisions: 0, decisionAudit: 0, auditNamingAgents: 0, decisionEvents: 0, checks: 0 });
    const metricsBefore = await batchMetrics(ctx);

    type Sent = { who: 'own' | 'foreign'; scope: keyof typeof unknown; agentId: string; amount: number; res: Promise<ApiResponse> };
    const sent: Sent[] = [];
    const send = (who: Sent['who'], scope: Sent['scope'], client: Client, agentId: string, amount: number) => sent.push({ who, scope, agentId, amount, res: spend(client, agentId, amount) });
    const ROUNDS = 6;
    // Interleaved, all in flight at once: the attacker's requests land in the victim's batches.
    for (let i = 0; i < ROUNDS; i++) {
      send('own', 'victimTest', victim.test, testAgent.agentId, 100 + i);
      send('foreign', 'attackerTest', attacker.test, testAgent.agentId, 7_000 + i);
      send('own', 'victimLive', victim.live!, liveAgent.agentId, 200 + i);
      send('foreign', 'attackerLive', attacker.live!, liveAgent.agentId, 7_100 + i);
      send('foreign', 'attackerTest', attacker.test, liveAgent.agentId, 7_200 + i);
      send('foreign', 'attackerLive', attacker.live!, testAgent.agentId, 7_300 + i);
      // The victim's own keys in the other mode: as foreign as another account's.
      send('foreign', 'victimTest', victim.test, liveAgent.agentId, 7_400 + i);
      send('foreign', 'victimLive', victim.live!, testAgent.agentId, 7_500 + i);
    }
    const answers = await Promise.all(sent.map(async (s) => ({ ...s, res: await s.res })));

    // They were decided in shared batches, not one by one; and every one of them in a batch that
    // committed (a batch that fails is decided again one by one and is not counted).
    const metricsAfter = await batchMetrics(ctx);
    expect(metricsAfter.sum - metricsBefore.sum).toBeGreaterThan(metricsAfter.count - metricsBefore.count);
    expect(metricsAfter.sum - metricsBefore.sum).toBe(sent.length);

    const own = answers.filter((a) => a.who === 'own');
    const foreign = answers.filter((a) => a.who === 'foreign');
    for (const a of foreign) {
      expect(errorOf(a.res), `${a.scope} → ${a.agentId}`).toEqual(unknown[a.scope]);
      expect(a.res.body).not.toHaveProperty('decision');
      expect(a.res.body).not.toHaveProperty('decision_id');
    }
    for (const a of own) {
      expect(a.res.status, `${a.scope} ${a.amount}`).toBe(200);
      expect(a.res.body).toMatchObject({ object: 'decision', decision: 'approved', agent_id: a.agentId, amount: a.amount });
    }

    // Nothing of the victim's in any answer the attacker was given.
    const victimSecrets = [victim.id, testAgent.policyId, liveAgent.policyId, ...own.map((a) => a.res.body.decision_id as string), ...own.map((a) => a.res.body.authorization_token as string)];
    for (const a of foreign.filter((f) => f.scope.startsWith('attacker'))) {
      for (const secret of victimSecrets) expect(a.res.text).not.toContain(secret);
      expect(a.res.text).not.toMatch(/"(decision|policy_applied|authorization_token|amount)"/);
    }

    // The victim's agents hold exactly what the victim's own requests made.
    const ownAmounts = (agentId: string) => own.filter((a) => a.agentId === agentId).map((a) => a.amount).sort((x, y) => x - y);
    for (const [agent, livemode] of [[testAgent, false], [liveAgent, true]] as const) {
      const amounts = ownAmounts(agent.agentId);
      expect(amounts).toHaveLength(ROUNDS);
      const rec = await agentRecord(agent.agentId);
      expect(rec.decisions.map((d) => Number(d.amount)).sort((x, y) => x - y)).toEqual(amounts);
      expect(rec.decisions.every((d) => d.account_id === victim.id && d.livemode === livemode)).toBe(true);
      expect(rec.seq).toBe(ROUNDS);
      expect(rec.approved).toBe(amounts.reduce((s, x) => s + x, 0));
      expect(rec.reserved).toBe(0);
      expect(rec.audit.map((r) => Number(r.amount)).sort((x, y) => x - y)).toEqual(amounts);
      expect(rec.audit.every((r) => r.account_id === victim.id && r.livemode === livemode)).toBe(true);
    }

    // The attacker: no decisions, audit records, events, outbox rows or billable checks.
    expect(await accountRecord(attacker.id)).toEqual(attackerBefore);
    // The victim: one of each per own decision; checks only for its own live-mode decisions.
    const victimAfter = await accountRecord(victim.id);
    expect(victimAfter.decisions - victimBefore.decisions).toBe(2 * ROUNDS);
    expect(victimAfter.decisionAudit - victimBefore.decisionAudit).toBe(2 * ROUNDS);
    expect(victimAfter.decisionEvents - victimBefore.decisionEvents).toBe(2 * ROUNDS);
    expect(victimAfter.checks - victimBefore.checks).toBe(ROUNDS);

    // And through the API, the attacker's keys see nothing of it.
    for (const client of [attacker.test, attacker.live!]) {
      for (const agent of [testAgent, liveAgent]) {
        const audit = await client.get(`/v1/audit-logs?agent_id=${agent.agentId}&limit=100`);
        expect(audit.status).toBe(200);
        expect(audit.body.data).toEqual([]);
        expect((await client.get(`/v1/agents/${agent.agentId}`)).status).toBe(404);
      }
      const events = await client.get('/v1/events?limit=100');
      expect(events.body.data.filter((e: { type: string }) => e.type.startsWith('authorize.'))).toEqual([]);
      for (const secret of victimSecrets) expect(events.text).not.toContain(secret);
    }
  });
});

describe('a request that fails for a reason of its own', () => {
  test('a frozen agent (403 agent_frozen) and an unknown agent (404 not_found) in the same batch as valid requests fail alone; the others are decided', async () => {
    const acct = await ctx.account('growth');
    const policy = { budget_monthly: 2_500, budget_single_max: 100_000 };
    const frozen = await agentWithPolicy(acct.test, policy);
    expect((await acct.test.post(`/v1/agents/${frozen.agentId}/freeze`)).status).toBe(200);
    const deactivated = await agentWithPolicy(acct.test, policy);
    expect((await acct.test.delete(`/v1/agents/${deactivated.agentId}`)).status).toBe(200);
    const a = await agentWithPolicy(acct.test, policy);
    const b = await agentWithPolicy(acct.test, policy);
    const metricsBefore = await batchMetrics(ctx);

    type Kind = 'frozen' | 'deactivated' | 'unknown' | 'a' | 'b';
    const target: Record<Kind, string> = { frozen: frozen.agentId, deactivated: deactivated.agentId, unknown: UNKNOWN_AGENT, a: a.agentId, b: b.agentId };
    // a: three of 1,000 against a budget of 2,500 → two approved, one denied, whichever order.
    const plan: Kind[] = ['a', 'frozen', 'b', 'unknown', 'a', 'deactivated', 'b', 'frozen', 'a', 'unknown', 'b'];
    const answers = await Promise.all(plan.map(async (kind) => ({ kind, res: await spend(acct.test, target[kind], 1_000) })));

    // Shared batches, each of which committed: the failures did not send their batch to the
    // one-by-one path (which is not counted in decision_batch_size).
    const metricsAfter = await batchMetrics(ctx);
    expect(metricsAfter.sum - metricsBefore.sum).toBeGreaterThan(metricsAfter.count - metricsBefore.count);
    expect(metricsAfter.sum - metricsBefore.sum).toBe(plan.length);

    for (const { kind, res } of answers) {
      if (kind === 'frozen') {
        expect(res.status).toBe(403);
        expect(res.body.error).toMatchObject({ code: 'agent_frozen', param: 'agent_id' });
      } else if (kind === 'deactivated') {
        expect(res.status).toBe(403);
        expect(res.body.error).toMatchObject({ code: 'agent_deactivated', param: 'agent_id' });
      } else if (kind === 'unknown') {
        expect(res.status).toBe(404);
        expect(res.body.error).toMatchObject({ code: 'not_found', param: 'agent_id' });
      } else {
        expect(res.status, `${kind}: ${res.text}`).toBe(200);
        expect(res.body).toMatchObject({ object: 'decision', agent_id: target[kind] });
      }
    }
    const decisionsOf = (kind: Kind) => answers.filter((x) => x.kind === kind).map((x) => x.res.body.decision as string).sort();
    expect(decisionsOf('a')).toEqual(['approved', 'approved', 'denied']);
    expect(decisionsOf('b')).toEqual(['approved', 'approved', 'denied']);

    // Every answered decision was committed, and nothing else was.
    for (const { kind, res } of answers.filter((x) => x.kind === 'a' || x.kind === 'b')) {
      expect((await acct.test.get(`/v1/decisions/${res.body.decision_id}`)).body).toMatchObject({ decision_id: res.body.decision_id, agent_id: target[kind] });
    }
    for (const agent of [a, b]) {
      const rec = await agentRecord(agent.agentId);
      expect(rec.decisions).toHaveLength(3);
      expect(rec.seq).toBe(3);
      expect(rec.approved).toBe(2_000);
      expect(rec.audit).toHaveLength(3);
    }
    for (const agent of [frozen, deactivated]) {
      const rec = await agentRecord(agent.agentId);
      expect(rec).toEqual({ decisions: [], seq: 0, approved: 0, reserved: 0, audit: [] });
    }
    const totals = await accountRecord(acct.id);
    expect(totals).toMatchObject({ decisions: 6, decisionAudit: 6, decisionEvents: 6, checks: 0 });
  });
});
