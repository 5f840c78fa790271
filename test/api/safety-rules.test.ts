import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestContext, policyBody, type Client, type TestContext } from '../support/context.js';

/** Decisions are made by this clock, so windows can roll without sleeping. */
let clock = new Date('2026-03-02T10:00:00.000Z');
const advance = (seconds: number) => {
  clock = new Date(clock.getTime() + seconds * 1000);
};
let ctx: TestContext;

beforeAll(async () => {
  // Fixtures here make hundreds of test-mode requests a minute on one account; limits are tested in rate-limit.test.ts.
  ctx = await createTestContext({ now: () => clock, testModeRateLimit: 100_000 });
});
afterAll(() => ctx?.close());

async function agentWith(client: Client, policy: Record<string, unknown>) {
  const p = await client.post('/v1/policies', policyBody({ budget_monthly: 10_000_000, budget_single_max: 100_000, ...policy }));
  expect(p.status).toBe(201);
  return (await client.post('/v1/agents', { name: 'bot', policy_id: p.body.id })).body.id as string;
}
const spend = (client: Client, agentId: string, over: Record<string, unknown> = {}, headers?: Record<string, string>) =>
  client.post('/v1/authorize', { agent_id: agentId, amount: 1_000, currency: 'USD', vendor: 'api.vendor.example', ...over }, headers);

describe('velocity_limits', () => {
  test.each([
    [{ velocity_limits: [{ window_seconds: 60 }] }, 'velocity_limits.0'],
    [{ velocity_limits: [{ window_seconds: 59, max_count: 1 }] }, 'velocity_limits.0.window_seconds'],
    [{ velocity_limits: Array.from({ length: 6 }, () => ({ window_seconds: 60, max_count: 1 })) }, 'velocity_limits'],
    [{ duplicate_window_seconds: 0 }, 'duplicate_window_seconds'],
    [{ auto_freeze: { denials: 0, window_seconds: 60 } }, 'auto_freeze.denials'],
  ])('%j is refused (400 naming %s)', async (policy, param) => {
    const a = await ctx.account();
    const res = await a.test.post('/v1/policies', policyBody(policy));
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe(param);
  });

  test('100 concurrent requests against max_count 10 per hour: exactly 10 approved', async () => {
    const a = await ctx.account();
    const agentId = await agentWith(a.test, { velocity_limits: [{ window_seconds: 3600, max_count: 10 }] });
    const results = await Promise.all(Array.from({ length: 100 }, () => spend(a.test, agentId)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(results.filter((r) => r.body.decision === 'approved')).toHaveLength(10);
    const denied = results.filter((r) => r.body.decision === 'denied');
    expect(denied).toHaveLength(90);
    expect(denied.every((r) => r.body.reason_code === 'velocity_exceeded')).toBe(true);
  });

  test('the window rolls: once it has passed, requests are approved again', async () => {
    const a = await ctx.account();
    const agentId = await agentWith(a.test, { velocity_limits: [{ window_seconds: 60, max_count: 2 }, { window_seconds: 3600, max_amount: 5_000 }] });
    expect((await spend(a.test, agentId)).body.decision).toBe('approved');
    advance(10);
    expect((await spend(a.test, agentId)).body.decision).toBe('approved');
    advance(10);
    expect((await spend(a.test, agentId)).body).toMatchObject({ decision: 'denied', reason_code: 'velocity_exceeded' });
    advance(45); // the first spend is now 65 s old
    expect((await spend(a.test, agentId)).body.decision).toBe('approved');
    // 3,000 approved this hour; 2,500 more would pass 5,000.
    advance(120);
    expect((await spend(a.test, agentId, { amount: 2_500 })).body).toMatchObject({ decision: 'denied', reason_code: 'velocity_exceeded' });
    expect((await spend(a.test, agentId, { amount: 2_000 })).body.decision).toBe('approved');
  });

  test('pending holds count; denials do not', async () => {
    const a = await ctx.account();
    const agentId = await agentWith(a.test, { velocity_limits: [{ window_seconds: 600, max_count: 2 }], require_approval_above: 5_000, vendor_denylist: ['bad.example'] });
    expect((await spend(a.test, agentId, { vendor: 'bad.example' })).body.decision).toBe('denied');
    expect((await spend(a.test, agentId, { amount: 6_000 })).body.decision).toBe('held');
    expect((await spend(a.test, agentId)).body.decision).toBe('approved');
    expect((await spend(a.test, agentId)).body.reason_code).toBe('velocity_exceeded');
  });
});

describe('duplicate_window_seconds', () => {
  test('an identical request without an Idempotency-Key inside the window is held as duplicate_suspected', async () => {
    const a = await ctx.account();
    const agentId = await agentWith(a.test, { duplicate_window_seconds: 300, vendor_allowlist: ['vendor.example'] });
    expect((await spend(a.test, agentId)).body.decision).toBe('approved');
    advance(30);
    const dup = await spend(a.test, agentId, { vendor: 'https://API.vendor.example/pay' });
    expect(dup.body).toMatchObject({ decision: 'held', reason_code: 'duplicate_suspected', status: 'pending' });
    // A different amount or vendor is not a duplicate.
    expect((await spend(a.test, agentId, { amount: 1_001 })).body.decision).toBe('approved');
    expect((await spend(a.test, agentId, { vendor: 'other.vendor.example' })).body.decision).toBe('approved');
    advance(301);
    expect((await spend(a.test, agentId, { amount: 777 })).body.decision).toBe('approved');
    advance(301);
    expect((await spend(a.test, agentId)).body.decision).toBe('approved');
  });

  test('requests with an Idempotency-Key are never suspected', async () => {
    const a = await ctx.account();
    const agentId = await agentWith(a.test, { duplicate_window_seconds: 300 });
    expect((await spend(a.test, agentId, {}, { 'idempotency-key': 'inv-1' })).body.decision).toBe('approved');
    expect((await spend(a.test, agentId, {}, { 'idempotency-key': 'inv-2' })).body.decision).toBe('approved');
  });

  test('denials of earlier steps win over duplicate suspicion', async () => {
    const a = await ctx.account();
    const agentId = await agentWith(a.test, { duplicate_window_seconds: 300, budget_monthly: 1_500 });
    expect((await spend(a.test, agentId)).body.decision).toBe('approved');
    expect((await spend(a.test, agentId)).body).toMatchObject({ decision: 'denied', reason_code: 'budget_exceeded' });
  });
});

describe('auto_freeze', () => {
  test('tips exactly at N denials: the tipping request gets its decision, the agent is frozen by the system, once', async () => {
    const a = await ctx.account();
    const agentId = await agentWith(a.test, { auto_freeze: { denials: 3, window_seconds: 3600 }, vendor_denylist: ['bad.example'], require_approval_above: 5_000 });
    const hold = await spend(a.test, agentId, { amount: 6_000 });
    expect(hold.body.decision).toBe('held');
    for (let i = 1; i <= 2; i++) {
      expect((await spend(a.test, agentId, { vendor: 'bad.example' })).body.decision).toBe('denied');
      expect((await a.test.get(`/v1/agents/${agentId}`)).body.status).toBe('active');
    }
    const tipping = await spend(a.test, agentId, { vendor: 'bad.example' });
    expect(tipping.status).toBe(200);
    expect(tipping.body).toMatchObject({ decision: 'denied', reason_code: 'policy_denied' });
    expect((await a.test.get(`/v1/agents/${agentId}`)).body.status).toBe('frozen');
    const after = await spend(a.test, agentId);
    expect(after.status).toBe(403);
    expect(after.body.error.code).toBe('agent_frozen');

    const frozenAudit = (await a.test.get(`/v1/audit-logs?agent_id=${agentId}&type=agent.frozen`)).body.data;
    expect(frozenAudit).toHaveLength(1);
    expect(frozenAudit[0]).toMatchObject({ actor: { type: 'system', id: null }, reason: 'runaway protection' });
    const events = (await a.test.get('/v1/events?type=agent.frozen')).body.data.filter((e: any) => e.data.id === agentId);
    expect(events).toHaveLength(1);
    expect((await a.test.get(`/v1/decisions/${hold.body.decision_id}`)).body).toMatchObject({ status: 'denied', reason_code: 'agent_frozen' });
  });

  test('denials outside the window do not count', async () => {
    const a = await ctx.account();
    const agentId = await agentWith(a.test, { auto_freeze: { denials: 2, window_seconds: 60 }, vendor_denylist: ['bad.example'] });
    await spend(a.test, agentId, { vendor: 'bad.example' });
    advance(61);
    await spend(a.test, agentId, { vendor: 'bad.example' });
    expect((await a.test.get(`/v1/agents/${agentId}`)).body.status).toBe('active');
    await spend(a.test, agentId, { vendor: 'bad.example' });
    expect((await a.test.get(`/v1/agents/${agentId}`)).body.status).toBe('frozen');
  });
});

/** Every row the account owns, table by table (scoped, so other test files sharing the database do not interfere). */
async function tableCounts(accountId: string): Promise<Record<string, number>> {
  const owned = ['api_keys', 'agents', 'policies', 'decisions', 'audit_records', 'audit_chains', 'events', 'idempotency_keys', 'webhook_deliveries', 'webhook_endpoints'];
  const out: Record<string, number> = {};
  for (const t of owned) {
    out[t] = Number((await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(t)} WHERE account_id = ${accountId}`.execute(ctx.database.db)).rows[0]!.n);
  }
  const one = async (name: string, query: ReturnType<typeof sql<{ n: number }>>) => {
    out[name] = Number((await query.execute(ctx.database.db)).rows[0]!.n);
  };
  await one('accounts', sql<{ n: number }>`SELECT count(*) AS n FROM accounts WHERE id = ${accountId}`);
  await one('agent_spend_rows', sql<{ n: number }>`SELECT count(*) AS n FROM agent_spend s JOIN agents a ON a.id = s.agent_id WHERE a.account_id = ${accountId}`);
  await one('agent_spend_total', sql<{ n: number }>`SELECT coalesce(sum(s.approved + s.reserved), 0) AS n FROM agent_spend s JOIN agents a ON a.id = s.agent_id WHERE a.account_id = ${accountId}`);
  await one('outbox', sql<{ n: number }>`SELECT count(*) AS n FROM outbox o WHERE o.ref_id IN (SELECT id FROM decisions WHERE account_id = ${accountId} UNION ALL SELECT id FROM events WHERE account_id = ${accountId})`);
  return out;
}

describe('POST /v1/policies/simulate', () => {
  test('round trip: 1,000 recorded decisions replayed against their unchanged policy come out the same, and nothing changes anywhere', async () => {
    const a = await ctx.account();
    const policy = {
      budget_monthly: 400_000,
      budget_single_max: 9_000,
      require_approval_above: 6_000,
      vendor_denylist: ['bad.example'],
      velocity_limits: [{ window_seconds: 600, max_count: 40 }],
      duplicate_window_seconds: 120,
    };
    const agents = [await agentWith(a.test, policy)];
    const policyId = (await a.test.get(`/v1/agents/${agents[0]}`)).body.policy_id;
    for (let i = 0; i < 3; i++) agents.push((await a.test.post('/v1/agents', { name: `b${i}`, policy_id: policyId })).body.id);
    advance(3600);
    const from = clock.toISOString();
    const vendors = ['a.example', 'b.example', 'bad.example', 'c.example'];
    for (let i = 0; i < 1_000; i++) {
      const amount = [500, 1_000, 2_500, 7_000, 9_500][(i * 7) % 5]!;
      const res = await spend(a.test, agents[i % 4]!, { amount, vendor: vendors[(i * 3) % 4] }, i % 11 === 0 ? { 'idempotency-key': `k${i}` } : undefined);
      expect(res.status).toBe(200);
      advance(7);
    }
    const to = clock.toISOString();
    const recorded = (await sql<{ decision: string; n: number }>`SELECT original_decision AS decision, count(*) AS n FROM decisions WHERE account_id = ${a.id} AND created_at >= ${new Date(from)} GROUP BY 1`.execute(ctx.database.db)).rows;
    const expected = Object.fromEntries(recorded.map((r) => [r.decision, Number(r.n)]));

    // Verifying seals pending audit records; do it before counting so only the simulation is measured.
    const headBefore = (await a.test.get('/v1/audit-logs/verify')).body.head_hash;
    const before = await tableCounts(a.id);
    const started = performance.now();
    const res = await a.test.post('/v1/policies/simulate', { policy_id: policyId, from, to });
    const ms = Math.round(performance.now() - started);
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(1_000);
    expect(res.body.summary).toEqual({ approved: expected.approved ?? 0, denied: expected.denied ?? 0, held: expected.held ?? 0, changed: 0 });
    for (const r of res.body.results) expect(r.would_be).toEqual(r.actual);
    console.log(`[simulate] round trip over 1000 recorded decisions: ${JSON.stringify(res.body.summary)} in ${ms} ms`);

    // The simulation's own call is the only thing it leaves behind; a second one matches too.
    const again = await a.test.post('/v1/policies/simulate', { policy: { name: 'draft', ...policy }, policy_id: policyId, from, to });
    expect(again.body.summary).toEqual(res.body.summary);
    expect(await tableCounts(a.id)).toEqual(before);
    expect((await a.test.get('/v1/audit-logs/verify')).body.head_hash).toBe(headBefore);
  }, 300_000);

  test('a draft change shows exactly what would change', async () => {
    const a = await ctx.account();
    const agentId = await agentWith(a.test, { require_approval_above: 5_000 });
    const policyId = (await a.test.get(`/v1/agents/${agentId}`)).body.policy_id;
    advance(60);
    const from = clock.toISOString();
    for (const amount of [1_000, 3_000, 6_000]) {
      await spend(a.test, agentId, { amount });
      advance(5);
    }
    const res = await a.test.post('/v1/policies/simulate', {
      policy_id: policyId,
      policy: policyBody({ budget_monthly: 10_000_000, budget_single_max: 100_000, require_approval_above: 2_000 }),
      from,
      to: clock.toISOString(),
    });
    expect(res.body.summary).toEqual({ approved: 1, denied: 0, held: 2, changed: 1 });
    const changed = res.body.results.filter((r: any) => r.would_be.decision !== r.actual.decision);
    expect(changed).toHaveLength(1);
    expect(changed[0]).toMatchObject({ request: { amount: 3_000 }, actual: { decision: 'approved' }, would_be: { decision: 'held', reason_code: 'approval_required' } });
    expect(changed[0].decision_id).toMatch(/^dec_/);
  });

  test('given requests are evaluated in order from the current state', async () => {
    const a = await ctx.account();
    const agentId = await agentWith(a.test, {});
    const res = await a.test.post('/v1/policies/simulate', {
      policy: policyBody({ budget_monthly: 2_500, budget_single_max: 2_000, vendor_denylist: ['bad.example'] }),
      requests: [
        { agent_id: agentId, amount: 1_000, currency: 'USD', vendor: 'ok.example' },
        { agent_id: agentId, amount: 1_000, currency: 'USD', vendor: 'bad.example' },
        { agent_id: agentId, amount: 1_000, currency: 'USD', vendor: 'ok.example' },
        { agent_id: agentId, amount: 1_000, currency: 'USD', vendor: 'ok.example' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: any) => r.would_be)).toEqual([
      { decision: 'approved', reason_code: null },
      { decision: 'denied', reason_code: 'policy_denied' },
      { decision: 'approved', reason_code: null },
      { decision: 'denied', reason_code: 'budget_exceeded' },
    ]);
    expect(res.body.summary).toEqual({ approved: 2, denied: 2, held: 0, changed: 0 });
    expect(res.body.results[0]).not.toHaveProperty('actual');
  });

  test.each([
    [{ from: '2026-01-01T00:00:00Z' }, 'policy'],
    [{ policy_id: 'pol_x', requests: [] }, 'requests'],
    [{ policy_id: 'pol_x', requests: [{ agent_id: 'agt_x', amount: 1, currency: 'USD', vendor: 'x' }], from: '2026-01-01T00:00:00Z' }, 'requests'],
    [{ policy_id: 'pol_x' }, 'from'],
    [{ policy_id: 'pol_x', from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }, 'to'],
    [{ policy_id: 'pol_x', requests: Array.from({ length: 1_001 }, () => ({ agent_id: 'agt_x', amount: 1, currency: 'USD', vendor: 'x' })) }, 'requests'],
    [{ policy_id: 'pol_x', requests: [{ agent_id: 'agt_x', amount: 1.5, currency: 'USD', vendor: 'x' }] }, 'requests.0.amount'],
  ])('%#: a malformed simulation answers 400 naming %s', async (body, param) => {
    const a = await ctx.account();
    const res = await a.test.post('/v1/policies/simulate', body);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe(param);
  });

  test('unknown policies and agents answer 404', async () => {
    const a = await ctx.account();
    expect((await a.test.post('/v1/policies/simulate', { policy_id: 'pol_missing', from: '2026-01-01T00:00:00Z' })).status).toBe(404);
    const res = await a.test.post('/v1/policies/simulate', { policy: policyBody(), requests: [{ agent_id: 'agt_missing', amount: 1, currency: 'USD', vendor: 'x' }] });
    expect(res.status).toBe(404);
    expect(res.body.error.param).toBe('requests.0.agent_id');
  });
});
