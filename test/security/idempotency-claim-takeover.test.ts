/**
 * Suspected, now settled: a request that stalls past its Idempotency-Key claim's lifetime (60 s)
 * before its write has its key taken over by the client's retry; both were then decided, and the
 * key replayed only one answer. Each claim now has its own id and a response is stored only under
 * the claim that made it, in the decision's transaction: the stalled request's write fails (409
 * `conflict`, param `Idempotency-Key`) and nothing of it commits. The stall is real: the request
 * waits on a row lock the test holds on its agent (the decision's foreign key needs it); the claim's
 * age is set back by an UPDATE, standing for the minute that passed. PostgreSQL only: the embedded
 * engine has one connection, so a lock held beside the service would stall the test itself.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { agentWithPolicy, createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { until } from '../support/wait.js';

let ctx: TestContext;
let acct: TestAccount;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 10_000 });
  acct = await ctx.account('growth');
});
afterAll(() => ctx?.close());

const decisionsOf = async (agentId: string) => (await ctx.database.db.selectFrom('decisions').select('id').where('agent_id', '=', agentId).execute()).length;
const claimOf = (key: string) => ctx.database.db.selectFrom('idempotency_keys').select(['created_at', 'status']).where('key', '=', key).executeTakeFirst();

describe.skipIf(!process.env.DATABASE_URL)('a request stalled past its claim, and the retry that took the key over', () => {
  test('exactly one is decided: the stalled one fails 409, the key replays the retry’s answer', async () => {
    const { agentId } = await agentWithPolicy(acct.test, { budget_monthly: 1_000_000, budget_single_max: 100_000 });
    const key = `stall-${Date.now().toString(36)}`;
    const body = { agent_id: agentId, amount: 500, currency: 'USD', vendor: 'shop.example' };
    const holder = new pg.Client({ connectionString: ctx.databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM agents WHERE id = $1 FOR UPDATE', [agentId]);
      const first = acct.test.post('/v1/authorize', body, { 'Idempotency-Key': key });
      await until('the first request claims the key', async () => (await claimOf(key)) ?? undefined);
      // The minute that passes while the first request is stalled.
      await ctx.database.db.updateTable('idempotency_keys').set({ created_at: new Date(Date.now() - 61_000) }).where('key', '=', key).execute();
      const retry = acct.test.post('/v1/authorize', body, { 'Idempotency-Key': key });
      // Taken over: the claim is the retry's, made just now.
      await until('the retry takes the key over', async () => (Date.now() - ((await claimOf(key))?.created_at.getTime() ?? 0) < 30_000 ? true : undefined));
      await holder.query('COMMIT');
      const [a, b] = await Promise.all([first, retry]);
      expect([a.status, b.status].sort()).toEqual([200, 409]);
      const stalled = a.status === 409 ? a : b;
      expect(stalled.body.error).toMatchObject({ code: 'conflict', param: 'Idempotency-Key' });
      const decided = a.status === 200 ? a : b;
      expect(await decisionsOf(agentId)).toBe(1);
      const again = await acct.test.post('/v1/authorize', body, { 'Idempotency-Key': key });
      expect(again.status).toBe(200);
      expect(again.body.decision_id).toBe(decided.body.decision_id);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
    } finally {
      await holder.query('ROLLBACK').catch(() => {});
      await holder.end();
    }
  });
});
