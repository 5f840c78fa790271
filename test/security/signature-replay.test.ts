/**
 * Attack: replaying a captured signed request (DECISIONS §19 step 9). The exact replay and the
 * replay raced against the original across two API instances on one database (each with its own
 * caches, as two processes have) fail `signature_replayed`; the same headers under another
 * Idempotency-Key fail `signature_invalid`, since the key is covered (step 5); nothing new is decided. The nonce is unique per thumbprint across
 * accounts, so the same public key registered by another account does not reopen it.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { connectDatabase, type Database } from '../../src/db/connect.js';
import { startHttpServer, type RunningServer } from '../../src/http/server.js';
import { createLogger } from '../../src/kernel/logger.js';
import { TEST_IDEMPOTENCY_KEY } from '../support/server-keys.js';
import { send, sendSigned, signWebBotAuth, signingAgent, spendOf, type SigningAgent } from '../support/agent-signing.js';

let ctx: TestContext;
let acct: TestAccount;
let agent: SigningAgent;
let second: RunningServer;
let secondDb: Database | undefined;
let secondUrl: string;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  acct = await ctx.account();
  agent = await signingAgent(ctx.database.db, acct.test);
  // A second API instance on the same database: its own key and agent-key caches, its own pool on PostgreSQL.
  secondDb = ctx.databaseUrl ? await connectDatabase({ databaseUrl: ctx.databaseUrl, poolSize: 5 }) : undefined;
  second = await startHttpServer(
    secondDb ?? ctx.database,
    { port: 0 },
    { signer: ctx.signer, gateway: ctx.gateway, engine: ctx.engine, idempotencyKey: TEST_IDEMPOTENCY_KEY, rateLimit: { limits: { testMode: 100_000 } } },
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

const decisions = async (agentId: string) => (await ctx.database.db.selectFrom('decisions').select('id').where('agent_id', '=', agentId).execute()).length;

test('the exact replay: signature_replayed; the replay under another Idempotency-Key: signature_invalid (the key is covered); nothing decided', async () => {
  const first = await sendSigned(ctx.baseUrl, agent.bearer, { method: 'POST', path: '/v1/authorize', body: spendOf(agent.agentId), headers: { 'idempotency-key': 'a-1' } }, (u) => signWebBotAuth(u, agent.ed));
  expect(first.status, first.text).toBe(200);
  const before = await decisions(agent.agentId);
  const replay = await send(ctx.baseUrl, agent.bearer, { method: 'POST', path: '/v1/authorize', headers: first.sent.headers, body: first.sent.body });
  expect(replay.status).toBe(401);
  expect(replay.body.error.code).toBe('signature_replayed');
  const otherKey = await send(ctx.baseUrl, agent.bearer, { method: 'POST', path: '/v1/authorize', headers: { ...first.sent.headers, 'idempotency-key': 'a-2' }, body: first.sent.body });
  expect(otherKey.status).toBe(401);
  expect(otherKey.body.error.code).toBe('signature_invalid');
  expect(await decisions(agent.agentId)).toBe(before);
});

test('one signed request sent 8 times at once to two instances: exactly one 200, seven signature_replayed, one decision', async () => {
  const a = await signingAgent(ctx.database.db, acct.test);
  // Both instances have the agent's keys cached before the race.
  for (const base of [ctx.baseUrl, secondUrl]) {
    expect((await sendSigned(base, a.bearer, { method: 'GET', path: '/v1/api-keys/self' }, (u) => signWebBotAuth(u, a.ed))).status).toBe(200);
  }
  const signed = await sendSigned(ctx.baseUrl, a.bearer, { method: 'GET', path: '/v1/api-keys/self' }, (u) => signWebBotAuth(u, a.ed));
  expect(signed.status).toBe(200);
  const body = Buffer.from(JSON.stringify(spendOf(a.agentId)));
  const headers = await signWebBotAuth({ method: 'POST', url: `${ctx.baseUrl}/v1/authorize`, headers: { 'content-type': 'application/json' }, body }, a.ed);
  // The signature covers @authority: the second instance is reached with the first one's Host.
  const host = new URL(ctx.baseUrl).host;
  const answers = await Promise.all(
    Array.from({ length: 8 }, (_, i) => send(i % 2 === 0 ? ctx.baseUrl : secondUrl, a.bearer, { method: 'POST', path: '/v1/authorize', headers: { ...headers, ...(i % 2 === 1 ? { host } : {}) }, body })),
  );
  const statuses = answers.map((r) => (r.status === 200 ? 'ok' : r.body.error.code)).sort();
  expect(statuses).toEqual(['ok', ...Array(7).fill('signature_replayed')]);
  expect(await decisions(a.agentId)).toBe(1);
});

test('the same public key registered by another account: a request captured from one is replayed to the other in vain', async () => {
  const other = await ctx.account();
  const theirs = await signingAgent(ctx.database.db, other.test, { key: agent.ed });
  const first = await sendSigned(ctx.baseUrl, agent.bearer, { method: 'POST', path: '/v1/authorize', body: spendOf(agent.agentId) }, (u) => signWebBotAuth(u, agent.ed));
  expect(first.status).toBe(200);
  const replay = await send(ctx.baseUrl, theirs.bearer, { method: 'POST', path: '/v1/authorize', headers: first.sent.headers, body: first.sent.body });
  expect(replay.status).toBe(401);
  expect(replay.body.error.code).toBe('signature_replayed');
});
