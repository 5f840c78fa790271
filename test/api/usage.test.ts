/**
 * Usage metering (docs/api.md, "Usage"): each HTTP 200 of POST /v1/authorize with a live key
 * counts once, in the decision's transaction; replays, errors, 4xx and test mode never count.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { monthOf } from '../../src/usage/month.js';
import { getUsage } from '../../src/usage/usage.service.js';
import { createTestContext, policyBody, type Client, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx?.close());

const currentMonth = () => monthOf(new Date());

async function newAgent(client: Client, policy: Record<string, unknown> = {}): Promise<string> {
  const p = await client.post('/v1/policies', policyBody({ budget_monthly: 10_000_000, ...policy }));
  expect(p.status).toBe(201);
  const a = await client.post('/v1/agents', { name: 'buyer', policy_id: p.body.id });
  expect(a.status).toBe(201);
  return a.body.id;
}

/** Every day of a month as GET /v1/usage lists it, with the given counts ('YYYY-MM-DD' → checks). */
function days(month: string, counts: Record<string, number> = {}): { date: string; checks: number }[] {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const length = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return Array.from({ length }, (_, i) => {
    const date = `${month}-${String(i + 1).padStart(2, '0')}`;
    return { date, checks: counts[date] ?? 0 };
  });
}

const authorizeBody = (agentId: string, amount = 100) => ({ agent_id: agentId, amount, currency: 'USD', vendor: 'openai.com' });

/** The count straight from the table, independent of the endpoint under test. */
async function countedChecks(accountId: string, month = currentMonth()): Promise<number> {
  const { rows } = await sql<{ n: number | null }>`SELECT sum(checks) AS n FROM usage_counters WHERE account_id = ${accountId} AND month = ${month}`.execute(ctx.database.db);
  return Number(rows[0]?.n ?? 0);
}

const usage = async (client: Client, query = '') => {
  const res = await client.get(`/v1/usage${query}`);
  expect(res.status).toBe(200);
  return res.body;
};

describe('what counts', () => {
  let acct: TestAccount;
  let live: Client;
  let agentId: string;

  beforeAll(async () => {
    acct = await ctx.account('growth');
    live = acct.live!;
    agentId = await newAgent(live);
  });

  test('approved, denied and held answers (all HTTP 200) each count once', async () => {
    const before = await countedChecks(acct.id);
    const heldAgent = await newAgent(live, { require_approval_above: 50 });
    const approved = await live.post('/v1/authorize', authorizeBody(agentId));
    const denied = await live.post('/v1/authorize', { ...authorizeBody(agentId), currency: 'EUR' });
    const held = await live.post('/v1/authorize', authorizeBody(heldAgent, 60));
    expect([approved, denied, held].map((r) => [r.status, r.body.decision])).toEqual([
      [200, 'approved'],
      [200, 'denied'],
      [200, 'held'],
    ]);
    expect(await countedChecks(acct.id)).toBe(before + 3);
  });

  test('errors and 4xx answers never count', async () => {
    const before = await countedChecks(acct.id);
    const frozen = await newAgent(live);
    expect((await live.post(`/v1/agents/${frozen}/freeze`)).status).toBe(200);
    const reviewer = await live.post('/v1/api-keys', { name: 'rev', role: 'reviewer' });
    expect(reviewer.status).toBe(201);

    const answers = await Promise.all([
      live.post('/v1/authorize', { ...authorizeBody(agentId), amount: 0 }), // 400
      live.post('/v1/authorize', { ...authorizeBody(agentId), surprise: true }), // 400 unknown field
      live.post('/v1/authorize', authorizeBody('agt_doesnotexist')), // 404
      live.post('/v1/authorize', authorizeBody(frozen)), // 403 agent_frozen
      ctx.client(reviewer.body.key).post('/v1/authorize', authorizeBody(agentId)), // 403 forbidden
      ctx.client(`gc_live_${'q'.repeat(40)}`).post('/v1/authorize', authorizeBody(agentId)), // 401
    ]);
    expect(answers.map((r) => r.status)).toEqual([400, 400, 404, 403, 403, 401]);
    expect(await countedChecks(acct.id)).toBe(before);
  });

  test('an idempotent replay and a conflicting reuse of the key never count', async () => {
    const before = await countedChecks(acct.id);
    const first = await live.post('/v1/authorize', authorizeBody(agentId), { 'idempotency-key': 'usage-1' });
    const replay = await live.post('/v1/authorize', authorizeBody(agentId), { 'idempotency-key': 'usage-1' });
    const conflict = await live.post('/v1/authorize', authorizeBody(agentId, 999), { 'idempotency-key': 'usage-1' });
    expect([first.status, replay.status, conflict.status]).toEqual([200, 200, 409]);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await countedChecks(acct.id)).toBe(before + 1);
  });

  test('test mode is never counted, and its usage reads as free and unlimited', async () => {
    const testAgent = await newAgent(acct.test);
    const liveBefore = (await usage(live)).checks;
    for (let i = 0; i < 3; i += 1) expect((await acct.test.post('/v1/authorize', authorizeBody(testAgent))).status).toBe(200);

    expect((await usage(live)).checks).toBe(liveBefore);
    expect(await usage(acct.test)).toEqual({
      object: 'usage',
      month: currentMonth(),
      plan: 'growth',
      checks: 0,
      included: null,
      overage_checks: 0,
      overage_amount: '0.0000',
      livemode: false,
      daily: days(currentMonth()),
    });
    const sandbox = await ctx.account('sandbox');
    const sandboxAgent = await newAgent(sandbox.test);
    expect((await sandbox.test.post('/v1/authorize', authorizeBody(sandboxAgent))).status).toBe(200);
    expect(await countedChecks(sandbox.id)).toBe(0);
    expect(await usage(sandbox.test)).toMatchObject({ plan: 'sandbox', checks: 0, included: null, overage_amount: '0.0000', livemode: false });
  });
});

describe('exact under concurrency', () => {
  test('100 concurrent live authorizations of which 20 repeat an Idempotency-Key: exactly 80 counted', async () => {
    const acct = await ctx.account('growth');
    const live = acct.live!;
    const agents = await Promise.all(Array.from({ length: 4 }, () => newAgent(live)));
    const requests = Array.from({ length: 80 }, (_, i) => ({ key: `conc-${i}`, body: authorizeBody(agents[i % 4]!, 100 + i) }));
    // The 20 repeats interleaved with the originals, all in flight at once.
    const all = [...requests, ...requests.slice(0, 20)].sort(() => Math.random() - 0.5);

    const answers = await Promise.all(all.map((r) => live.post('/v1/authorize', r.body, { 'idempotency-key': r.key })));
    const decided = answers.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === null);
    const repeats = answers.filter((r) => r.status !== 200 || r.headers.get('idempotent-replayed') === 'true');
    expect(decided).toHaveLength(80);
    expect(repeats).toHaveLength(20);
    // A repeat is the first answer replayed, or 409 while the first is still in progress.
    for (const r of repeats) expect([200, 409]).toContain(r.status);

    const decisions = await ctx.database.db.selectFrom('decisions').select('id').where('account_id', '=', acct.id).where('livemode', '=', true).execute();
    expect(decisions).toHaveLength(80);
    expect(await countedChecks(acct.id)).toBe(80);
    expect((await usage(live)).checks).toBe(80);

    // Sent again after the fact, every repeat is a replay: still 80.
    const replays = await Promise.all(requests.slice(0, 20).map((r) => live.post('/v1/authorize', r.body, { 'idempotency-key': r.key })));
    expect(replays.every((r) => r.status === 200 && r.headers.get('idempotent-replayed') === 'true')).toBe(true);
    expect(await countedChecks(acct.id)).toBe(80);
  });
});

describe('GET /v1/usage', () => {
  test('answers the current UTC month by default with the plan, the count and its overage', async () => {
    const acct = await ctx.account('starter');
    const agentId = await newAgent(acct.live!);
    for (let i = 0; i < 2; i += 1) await acct.live!.post('/v1/authorize', authorizeBody(agentId));
    expect(await usage(acct.live!)).toEqual({
      object: 'usage',
      month: currentMonth(),
      plan: 'starter',
      checks: 2,
      included: 10_000,
      overage_checks: 0,
      overage_amount: '0.0000',
      livemode: true,
      daily: days(currentMonth(), { [new Date().toISOString().slice(0, 10)]: 2 }),
    });
  });

  test.each([
    ['starter', 10_003, 10_000, 3, '0.0045'],
    ['starter', 12_345, 10_000, 2_345, '3.5175'],
    ['growth', 100_000, 100_000, 0, '0.0000'],
    ['growth', 1_234_567, 100_000, 1_134_567, '907.6536'],
  ] as const)('%s with %i checks in a month: %i included, %i over, $%s', async (plan, checks, included, over, amount) => {
    const acct = await ctx.account(plan);
    // The count of a past month, written as the counters hold it (spread over shards).
    await ctx.database.db
      .insertInto('usage_counters')
      .values([
        { account_id: acct.id, month: '2026-01', shard: 0, checks: checks - 1 },
        { account_id: acct.id, month: '2026-01', shard: 5, checks: 1 },
      ])
      .execute();
    expect(await usage(acct.live!, '?month=2026-01')).toEqual({
      object: 'usage',
      month: '2026-01',
      plan,
      checks,
      included,
      overage_checks: over,
      overage_amount: amount,
      livemode: true,
      // Written straight into the counters, without decisions: no day has any.
      daily: days('2026-01'),
    });
    expect(await usage(acct.live!, '?month=2026-02')).toMatchObject({ month: '2026-02', checks: 0, overage_amount: '0.0000' });
  });

  test('an enterprise account is billed on its own terms, end to end', async () => {
    const acct = await ctx.account('enterprise', { includedChecks: 5, overageRateMicros: 500 });
    const agentId = await newAgent(acct.live!);
    for (let i = 0; i < 8; i += 1) expect((await acct.live!.post('/v1/authorize', authorizeBody(agentId))).status).toBe(200);
    expect(await usage(acct.live!)).toMatchObject({ plan: 'enterprise', checks: 8, included: 5, overage_checks: 3, overage_amount: '0.0015', livemode: true });

    const plain = await ctx.account('enterprise');
    expect(await usage(plain.live!)).toMatchObject({ plan: 'enterprise', included: 100_000 });
  });

  test('admin and reviewer keys may read it; agent keys may not', async () => {
    const acct = await ctx.account('growth');
    const agentId = await newAgent(acct.live!);
    const reviewer = await acct.live!.post('/v1/api-keys', { name: 'rev', role: 'reviewer' });
    const agentKey = await acct.live!.post('/v1/api-keys', { name: 'bot', role: 'agent', agent_id: agentId });
    expect((await ctx.client(reviewer.body.key).get('/v1/usage')).status).toBe(200);
    const refused = await ctx.client(agentKey.body.key).get('/v1/usage');
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
  });

  test.each([['2026-13'], ['2026-1'], ['26-01'], ['2026-01-01'], ['12026-01'], ['now']])('month=%s answers 400 naming month and its form', async (month) => {
    const acct = await ctx.account('growth');
    const res = await acct.live!.get(`/v1/usage?month=${encodeURIComponent(month)}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'month' });
    expect(res.body.error.message).toContain('must be a month as YYYY-MM');
  });

  test('month= (empty) answers 400 naming month', async () => {
    const acct = await ctx.account('growth');
    const res = await acct.live!.get('/v1/usage?month=');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'month' });
  });

  test('an unknown query parameter answers 400 naming it', async () => {
    const acct = await ctx.account('growth');
    const res = await acct.live!.get('/v1/usage?year=2026');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'year' });
  });

  test('one account never sees another account\'s checks', async () => {
    const a = await ctx.account('growth');
    const b = await ctx.account('growth');
    const agentId = await newAgent(a.live!);
    await a.live!.post('/v1/authorize', authorizeBody(agentId));
    expect((await usage(a.live!)).checks).toBe(1);
    expect((await usage(b.live!)).checks).toBe(0);
  });

  test('a caller whose account row is gone is answered 404 account, never a 500', async () => {
    const caller = { accountId: 'acct_Gone000000000000000000000', livemode: true, keyId: 'key_gone', role: 'admin', agentId: null, plan: 'growth', rateLimit: null } as const;
    await expect(getUsage(ctx.database.db, caller, undefined)).rejects.toMatchObject({ code: 'not_found', message: expect.stringContaining('account') });
  });
});

describe('GET /v1/usage: daily', () => {
  test('lists every UTC day of the month, each live check on its day, adding up to checks; test-mode checks are absent', async () => {
    const acct = await ctx.account('growth');
    const liveAgent = await newAgent(acct.live!);
    const testAgent = await newAgent(acct.test);
    for (let i = 0; i < 3; i += 1) expect((await acct.live!.post('/v1/authorize', authorizeBody(liveAgent))).status).toBe(200);
    expect((await acct.test.post('/v1/authorize', authorizeBody(testAgent))).status).toBe(200);
    // A replay is not another check, so it is not another day's count either.
    await acct.live!.post('/v1/authorize', authorizeBody(liveAgent), { 'idempotency-key': 'daily-1' });
    await acct.live!.post('/v1/authorize', authorizeBody(liveAgent), { 'idempotency-key': 'daily-1' });

    const body = await usage(acct.live!);
    expect(body.checks).toBe(4);
    expect(body.daily).toEqual(days(currentMonth(), { [new Date().toISOString().slice(0, 10)]: 4 }));
    expect(body.daily.reduce((sum: number, d: { checks: number }) => sum + d.checks, 0)).toBe(body.checks);
    expect((await usage(acct.test)).daily.every((d: { checks: number }) => d.checks === 0)).toBe(true);
  });

  test.each([
    ['2024-02', 29],
    ['2026-02', 28],
    ['2026-12', 31],
  ])('month=%s has %i days', async (month, length) => {
    const acct = await ctx.account('growth');
    const body = await usage(acct.live!, `?month=${month}`);
    expect(body.daily).toHaveLength(length);
    expect(body.daily[0]).toEqual({ date: `${month}-01`, checks: 0 });
    expect(body.daily.at(-1).date).toBe(`${month}-${length}`);
  });
});
