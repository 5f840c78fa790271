/**
 * Attack: one agent key locks its reviewers out. Requests from one agent key (a runaway agent, or
 * a leaked key without its signing key, whose every request is a 401) used the whole account's
 * minute: the reviewer's freeze, the admin's key revocation and every other agent then got 429
 * until the minute reset. DECISIONS §10: an agent key may take half of its account's minute; the
 * safety actions of an admin or reviewer key draw on a bucket of their own (60 a minute per key);
 * a request refused by the signature gate counts against that agent key's own bucket only. Run
 * across two API processes on one database, the counters being shared.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { connectDatabase, type Database } from '../../src/db/connect.js';
import { startHttpServer, type RunningServer } from '../../src/http/server.js';
import { createLogger } from '../../src/kernel/logger.js';
import { SAFETY_LIMIT_PER_MINUTE } from '../../src/ratelimit/limits.js';
import { agentWithPolicy, createTestContext, type Client, type TestContext } from '../support/context.js';
import { TEST_IDEMPOTENCY_KEY } from '../support/server-keys.js';
import { requireSignedDirect, send } from '../support/agent-signing.js';

const LIMIT = 40;
let ctx: TestContext;
let second: RunningServer;
let secondDb: Database | undefined;
let secondUrl: string;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: LIMIT });
  secondDb = ctx.databaseUrl ? await connectDatabase({ databaseUrl: ctx.databaseUrl, poolSize: 5 }) : undefined;
  second = await startHttpServer(
    secondDb ?? ctx.database,
    { port: 0 },
    { signer: ctx.signer, gateway: ctx.gateway, engine: ctx.engine, idempotencyKey: TEST_IDEMPOTENCY_KEY, rateLimit: { limits: { testMode: LIMIT } } },
    createLogger('silent'),
    '127.0.0.1',
  );
  secondUrl = `http://127.0.0.1:${second.port}`;
}, 240_000);
afterAll(async () => {
  await second?.close(100);
  await secondDb?.close();
  await ctx?.close();
});

/** A fresh account (its own counters), an agent with its agent key, and a reviewer key. */
async function account() {
  const acct = await ctx.account('growth');
  const { agentId, policyId } = await agentWithPolicy(acct.test, { budget_monthly: 100_000_000, budget_single_max: 1_000_000 });
  const created = (await acct.test.post('/v1/api-keys', { name: 'agent', role: 'agent', agent_id: agentId })).body;
  const [agentKey, agentKeyId] = [created.key as string, created.id as string];
  const reviewerKey = (await acct.test.post('/v1/api-keys', { name: 'reviewer', role: 'reviewer' })).body.key as string;
  // What the set-up left of the account's minute (it counted too); this read is one more.
  const left = Number((await acct.test.get('/v1/agents')).headers.get('x-ratelimit-remaining'));
  return { acct, agentId, policyId, agentKey, agentKeyId, reviewerKey, left };
}

/** `n` requests by `bearer`, alternating between the two processes; their statuses. */
async function flood(bearer: string, n: number, path: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i += 10) {
    const batch = Array.from({ length: Math.min(10, n - i) }, (_, j) => send((i + j) % 2 === 0 ? ctx.baseUrl : secondUrl, bearer, { method: 'GET', path }));
    for (const r of await Promise.all(batch)) statuses.push(r.status);
  }
  return statuses;
}
const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

test('a runaway agent key takes half the minute; the admin and the reviewer keep the rest', async () => {
  const { acct, agentId, agentKey, left } = await account();
  const statuses = await flood(agentKey, LIMIT + 10, `/v1/agents/${agentId}`);
  expect(count(statuses, 429)).toBe(LIMIT + 10 - LIMIT / 2);
  expect(count(statuses, 200)).toBe(LIMIT / 2);
  // The account's other half is there for everyone else, to the last place.
  const admin = await flood(acct.test.key, left - LIMIT / 2 + 1, '/v1/agents');
  expect(count(admin, 200)).toBe(left - LIMIT / 2);
  expect(count(admin, 429)).toBe(1);
});

test("with the account's minute spent, a reviewer's freeze and an admin's key revocation still go through, up to 60 a minute per key", async () => {
  const { acct, agentId, agentKey, agentKeyId, reviewerKey, left } = await account();
  expect(count(await flood(acct.test.key, left + 5, '/v1/agents'), 429)).toBe(5);
  const reviewer = ctx.client(reviewerKey);
  const freeze = await reviewer.post(`/v1/agents/${agentId}/freeze`);
  expect(freeze.status, freeze.text).toBe(200);
  expect(Number(freeze.headers.get('x-ratelimit-limit'))).toBe(SAFETY_LIMIT_PER_MINUTE);
  expect((await acct.test.delete(`/v1/api-keys/${agentKeyId}`)).status).toBe(200);
  expect((await send(ctx.baseUrl, agentKey, { method: 'GET', path: `/v1/agents/${agentId}` })).status).toBe(401);
  // Anything else the account asks for this minute is still refused.
  expect((await acct.test.get('/v1/agents')).status).toBe(429);
  // The safety bucket has its own bound, per key, across both processes.
  const unfreezes = await Promise.all(
    Array.from({ length: SAFETY_LIMIT_PER_MINUTE + 5 }, (_, i) => send(i % 2 === 0 ? ctx.baseUrl : secondUrl, reviewerKey, { method: 'POST', path: `/v1/agents/${agentId}/${i % 2 === 0 ? 'unfreeze' : 'freeze'}`, body: Buffer.from('{}') })),
  );
  expect(unfreezes.filter((r) => r.status === 429)).toHaveLength(6);
});

test('a leaked agent key without its signing key: its 401s cost its own bucket, never the account', async () => {
  const { acct, agentId, policyId, agentKey, left } = await account();
  await requireSignedDirect(ctx.database.db, policyId);
  const statuses = await flood(agentKey, LIMIT + 10, `/v1/agents/${agentId}`);
  expect(count(statuses, 401)).toBe(LIMIT / 2);
  expect(count(statuses, 429)).toBe(LIMIT + 10 - LIMIT / 2);
  // None of them took a place of the account's.
  const admin = await flood(acct.test.key, left, '/v1/agents');
  expect(count(admin, 200)).toBe(left);
});
