/**
 * Rate limits (docs/api.md, "Rate limits"): per account and mode, fixed one-minute windows counted
 * in the database, so every API process shares them.
 *
 * Tests that count up to a limit run their own app instances with a pinned clock, so a minute
 * boundary can never reset a count halfway through. Requests "from another client" leave from a
 * random loopback address (127.x.y.z), so the per-address limit of one test never touches the
 * requests other test files make from 127.0.0.1.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connectDatabase, type Database } from '../../src/db/connect.js';
import { createLogger } from '../../src/kernel/logger.js';
import { accountBucket, windowAt } from '../../src/ratelimit/limits.js';
import { hitCounter, purgeCounters } from '../../src/ratelimit/ratelimit.repository.js';
import { rateLimiter } from '../../src/http/rate-limit.js';
import { errorHandler } from '../../src/http/errors.js';
import { authMiddleware, type Authenticator } from '../../src/http/auth.js';
import { AppError } from '../../src/kernel/errors.js';
import { startHttpServer, type RunningServer } from '../../src/http/server.js';
import { createTestContext, policyBody, type TestContext } from '../support/context.js';
import { TEST_IDEMPOTENCY_KEY } from '../support/server-keys.js';

let ctx: TestContext;
const instances: Array<{ server: RunningServer; database?: Database }> = [];

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  for (const i of instances) {
    await i.server.close(100);
    await i.database?.close();
  }
  await ctx?.close();
});

/** A clock the test moves by hand, shared by the instances that use it. */
function pinnedClock(secondsIntoMinute = 20) {
  const clock = { ms: Math.floor(Date.now() / 60_000) * 60_000 + secondsIntoMinute * 1000, now: () => clock.ms };
  return clock;
}

/**
 * Another API process on the same database: with PostgreSQL it has its own connection pool, as a
 * second process would; the embedded database can be opened only once, so it is shared.
 */
async function startInstance(now: () => number, unauthenticatedLimit?: number): Promise<string> {
  const url = process.env.DATABASE_URL;
  const database = url ? await connectDatabase({ databaseUrl: url, poolSize: 5 }) : ctx.database;
  const server = await startHttpServer(database, { port: 0 }, { signer: ctx.signer, gateway: ctx.gateway, engine: ctx.engine, idempotencyKey: TEST_IDEMPOTENCY_KEY, rateLimit: { now, ...(unauthenticatedLimit ? { unauthenticatedLimit } : {}) } }, createLogger('silent'), '127.0.0.1');
  instances.push({ server, database: url ? database : undefined });
  return `http://127.0.0.1:${server.port}`;
}

interface Res {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** One HTTP request leaving from `localAddress` (a loopback address other than 127.0.0.1 stands for another client). */
function send(url: string, opts: { key?: string; method?: string; body?: unknown; headers?: Record<string, string>; from?: string } = {}): Promise<Res> {
  return new Promise((resolve, reject) => {
    const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const req = http.request(
      url,
      {
        method: opts.method ?? 'GET',
        localAddress: opts.from,
        headers: {
          ...(opts.key ? { authorization: `Bearer ${opts.key}` } : {}),
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
          ...opts.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          if ((res.headers['content-type'] ?? '').includes('application/json')) body = JSON.parse(text);
          resolve({ status: res.statusCode!, headers: res.headers, body });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const randomLoopback = () => `127.${1 + Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}.${2 + Math.floor(Math.random() * 250)}`;

const limitHeaders = (res: Res) => ({
  limit: Number(res.headers['x-ratelimit-limit']),
  remaining: Number(res.headers['x-ratelimit-remaining']),
  reset: Number(res.headers['x-ratelimit-reset']),
});

function expectLimitHeaders(res: Res, limit: number) {
  expect(res.headers['x-ratelimit-limit']).toBe(String(limit));
  expect(res.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
  expect(res.headers['x-ratelimit-reset']).toMatch(/^\d+$/);
  const { reset, remaining } = limitHeaders(res);
  expect(reset).toBeGreaterThanOrEqual(1);
  expect(reset).toBeLessThanOrEqual(60);
  expect(remaining).toBeLessThanOrEqual(limit);
}

/** `n` requests in sequence (so the counts are in order), returning every response. */
async function burst(n: number, fn: () => Promise<Res>): Promise<Res[]> {
  const out: Res[] = [];
  for (let i = 0; i < n; i += 1) out.push(await fn());
  return out;
}

describe('headers on every /v1 response', () => {
  test('a 200 carries the limit of the account and mode, the requests left and the seconds to the next minute', async () => {
    const acct = await ctx.account('growth');
    const before = Date.now();
    const res = await send(`${ctx.baseUrl}/v1/agents`, { key: acct.test.key });
    const after = Date.now();
    expect(res.status).toBe(200);
    expectLimitHeaders(res, 100);
    expect(limitHeaders(res).remaining).toBe(99);
    expect(res.headers['retry-after']).toBeUndefined();
    // Whole seconds until the minute (UTC) ends, by this machine's clock (unless the minute ended meanwhile).
    if (windowAt(before).start.getTime() === windowAt(after).start.getTime()) {
      expect(limitHeaders(res).reset).toBeGreaterThanOrEqual(windowAt(after).resetSeconds);
      expect(limitHeaders(res).reset).toBeLessThanOrEqual(windowAt(before).resetSeconds);
    }
  });

  test('401 (no key, unknown key), 404 (unknown route, unknown id) and 400 responses carry them too', async () => {
    const base = await startInstance(pinnedClock().now);
    const acct = await ctx.account('growth');
    const from = randomLoopback();
    const noKey = await send(`${base}/v1/agents`, { from });
    const badKey = await send(`${base}/v1/agents`, { from, key: `gc_live_${'x'.repeat(40)}` });
    for (const res of [noKey, badKey]) {
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
      expectLimitHeaders(res, 100);
    }
    // Failed authentications count against the client's address.
    expect(limitHeaders(badKey).remaining).toBe(limitHeaders(noKey).remaining - 1);

    const route = await send(`${base}/v1/no-such-thing`, { key: acct.test.key });
    const id = await send(`${base}/v1/agents/agt_doesnotexist`, { key: acct.test.key });
    const invalid = await send(`${base}/v1/agents?limit=1000`, { key: acct.test.key });
    expect([route.status, id.status, invalid.status]).toEqual([404, 404, 400]);
    for (const res of [route, id, invalid]) expectLimitHeaders(res, 100);
    expect([route, id, invalid].map((r) => limitHeaders(r).remaining)).toEqual([99, 98, 97]);
  });

  test('the public JWKS endpoint is limited per client address and says so', async () => {
    const base = await startInstance(pinnedClock().now);
    const res = await send(`${base}/v1/.well-known/jwks.json`, { from: randomLoopback() });
    expect(res.status).toBe(200);
    expectLimitHeaders(res, 100);
    expect(limitHeaders(res).remaining).toBe(99);
  });

  test('the public OpenAPI document is limited per client address and says so, like every /v1 response', async () => {
    const base = await startInstance(pinnedClock().now);
    const from = randomLoopback();
    const res = await send(`${base}/v1/openapi.json`, { from });
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\.1/);
    expectLimitHeaders(res, 100);
    expect(limitHeaders(res).remaining).toBe(99);
    // It shares the address's count with the other public endpoint.
    expect(limitHeaders(await send(`${base}/v1/.well-known/jwks.json`, { from })).remaining).toBe(98);
  });

  test('health endpoints outside /v1 are not limited', async () => {
    const res = await send(`${ctx.baseUrl}/healthz`);
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });
});

describe('limits per plan and mode', () => {
  test.each([
    ['sandbox', 'test', undefined, 100],
    ['starter', 'test', undefined, 100],
    ['starter', 'live', undefined, 500],
    ['growth', 'live', undefined, 2_000],
    ['enterprise', 'live', 7_500, 7_500],
    ['enterprise', 'live', undefined, 2_000],
    ['enterprise', 'test', 7_500, 100],
  ] as const)('%s account, %s key (account rate limit %s): %i requests per minute', async (plan, mode, rateLimit, limit) => {
    const acct = await ctx.account(plan, { rateLimit });
    const client = mode === 'live' ? acct.live! : acct.test;
    const res = await send(`${ctx.baseUrl}/v1/agents`, { key: client.key });
    expect(res.status).toBe(200);
    expectLimitHeaders(res, limit);
    expect(limitHeaders(res).remaining).toBe(limit - 1);
  });
});

describe('over the limit', () => {
  test('the 101st test-mode request of a minute answers 429 rate_limited with Retry-After; the next minute is allowed again', async () => {
    const clock = pinnedClock(45);
    const base = await startInstance(clock.now);
    const acct = await ctx.account('growth');

    const ok = await burst(100, () => send(`${base}/v1/agents`, { key: acct.test.key }));
    expect(ok.map((r) => r.status)).toEqual(Array(100).fill(200));
    expect(ok.map((r) => limitHeaders(r).remaining)).toEqual(Array.from({ length: 100 }, (_, i) => 99 - i));
    expect(ok.every((r) => limitHeaders(r).reset === 15)).toBe(true);

    const limited = await send(`${base}/v1/agents`, { key: acct.test.key });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ error: { code: 'rate_limited', message: 'Too many requests: this account in test mode may make 100 requests per minute. Retry in 15 s.' } });
    expect(limitHeaders(limited)).toEqual({ limit: 100, remaining: 0, reset: 15 });
    expect(limited.headers['retry-after']).toBe('15');

    // Any request of the account and mode is refused, writes included, and nothing is created.
    const write = await send(`${base}/v1/policies`, { key: acct.test.key, method: 'POST', body: policyBody() });
    expect(write.status).toBe(429);
    expect((await ctx.database.db.selectFrom('policies').select('id').where('account_id', '=', acct.id).execute())).toEqual([]);

    // The other mode of the same account has its own count.
    const live = await send(`${base}/v1/agents`, { key: acct.live!.key });
    expect(live.status).toBe(200);
    expect(limitHeaders(live)).toMatchObject({ limit: 2_000, remaining: 1_999 });

    clock.ms += 15_000; // the next minute starts
    const next = await send(`${base}/v1/agents`, { key: acct.test.key });
    expect(next.status).toBe(200);
    expect(limitHeaders(next)).toEqual({ limit: 100, remaining: 99, reset: 60 });
    expect(next.headers['retry-after']).toBeUndefined();
  });

  test('an enterprise account is limited at its own number', async () => {
    const clock = pinnedClock(0);
    const base = await startInstance(clock.now);
    const acct = await ctx.account('enterprise', { rateLimit: 3 });
    const res = await burst(4, () => send(`${base}/v1/agents`, { key: acct.live!.key }));
    expect(res.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(res.map((r) => limitHeaders(r).remaining)).toEqual([2, 1, 0, 0]);
    expect(res[3]!.headers['retry-after']).toBe('60');
    expect(res[3]!.body.error.message).toBe('Too many requests: this account in live mode may make 3 requests per minute. Retry in 60 s.');
  });

  test('every authenticated request counts: errors, a request rolled back and an idempotent replay', async () => {
    const clock = pinnedClock();
    const base = await startInstance(clock.now);
    const acct = await ctx.account('growth');
    const key = acct.test.key;
    const policy = await send(`${base}/v1/policies`, { key, method: 'POST', body: policyBody() });
    const agent = await send(`${base}/v1/agents`, { key, method: 'POST', body: { name: 'a', policy_id: policy.body.id } });
    const authorize = { agent_id: agent.body.id, amount: 100, currency: 'USD', vendor: 'openai.com' };
    const first = await send(`${base}/v1/authorize`, { key, method: 'POST', body: authorize, headers: { 'idempotency-key': 'rl-1' } });
    const replay = await send(`${base}/v1/authorize`, { key, method: 'POST', body: authorize, headers: { 'idempotency-key': 'rl-1' } });
    const invalid = await send(`${base}/v1/authorize`, { key, method: 'POST', body: { ...authorize, amount: -1 } });
    expect([policy.status, agent.status, first.status, replay.status, invalid.status]).toEqual([201, 201, 200, 200, 400]);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect([policy, agent, first, replay, invalid].map((r) => limitHeaders(r).remaining)).toEqual([99, 98, 97, 96, 95]);
  });
});

describe('shared by every API process', () => {
  test('two app instances on one database share one limit', async () => {
    const clock = pinnedClock(30);
    const [a, b] = [await startInstance(clock.now), await startInstance(clock.now)];
    const acct = await ctx.account('growth');
    const key = acct.test.key;

    // Interleaved and concurrent: 50 on each instance.
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => send(`${i % 2 ? a : b}/v1/agents`, { key })));
    expect(results.map((r) => r.status)).toEqual(Array(100).fill(200));
    // Each request saw its own place in one shared count.
    expect(results.map((r) => limitHeaders(r).remaining).sort((x, y) => x - y)).toEqual(Array.from({ length: 100 }, (_, i) => i));

    for (const base of [a, b]) {
      const res = await send(`${base}/v1/agents`, { key });
      expect(res.status).toBe(429);
      expect(res.headers['retry-after']).toBe('30');
    }
  });
});

describe('above 1,000 requests a minute, places taken in blocks', () => {
  test('one process answers each request its own place, in order, as if counted one by one', async () => {
    const clock = pinnedClock(5);
    const base = await startInstance(clock.now);
    const acct = await ctx.account('enterprise', { rateLimit: 5_000 });
    const res = await burst(12, () => send(`${base}/v1/nope`, { key: acct.live!.key }));
    expect(res.map((r) => r.status)).toEqual(Array(12).fill(404));
    expect(res.map((r) => limitHeaders(r).remaining)).toEqual(Array.from({ length: 12 }, (_, i) => 4_999 - i));
  });

  /** What the shared count holds for an account's live bucket in the clock's window: the places handed out in blocks. */
  const sharedCount = async (accountId: string, clock: { now: () => number }) =>
    Number(
      (await ctx.database.db.selectFrom('rate_limit_counters').select('count').where('bucket', '=', accountBucket(accountId, true)).where('window_start', '=', windowAt(clock.now()).start).executeTakeFirst())?.count ?? 0,
    );

  test('a new minute starts from a fresh block: the last minute\'s unused places are not carried over', async () => {
    const clock = pinnedClock(5);
    const base = await startInstance(clock.now);
    const acct = await ctx.account('enterprise', { rateLimit: 5_000 });
    const first = await burst(3, () => send(`${base}/v1/nope`, { key: acct.live!.key }));
    expect(first.map((r) => limitHeaders(r).remaining)).toEqual([4_999, 4_998, 4_997]);
    clock.ms += 60_000;
    expect(limitHeaders(await send(`${base}/v1/nope`, { key: acct.live!.key })).remaining).toBe(4_999);
  });

  test('requests arriving while a block is fetched wait for that one fetch: the shared count grows a block at a time', async () => {
    const clock = pinnedClock(5);
    const base = await startInstance(clock.now);
    const acct = await ctx.account('enterprise', { rateLimit: 5_000 }); // blocks of 5
    const res = await Promise.all(Array.from({ length: 7 }, () => send(`${base}/v1/nope`, { key: acct.live!.key })));
    expect(res.map((r) => limitHeaders(r).remaining).sort((a, b) => b - a)).toEqual(Array.from({ length: 7 }, (_, i) => 4_999 - i));
    // Seven places from two blocks of five, not one block per request and not one place per round trip.
    expect(await sharedCount(acct.id, clock)).toBe(10);
  });

  test('requests reaching the limiter at once while a block is fetched wait for that one fetch', async () => {
    const clock = pinnedClock(5);
    const limits = rateLimiter({ db: ctx.database.db, now: clock.now });
    const accountId = `acct_blocks_${Date.now().toString(36)}`;
    const caller = { accountId, livemode: true, keyId: 'key_x', role: 'admin', agentId: null, plan: 'enterprise', rateLimit: 5_000 } as const;
    // The middleware called directly, seven times in one tick: over HTTP an in-process database can
    // answer each request before the next one is read, which would space them out.
    const pass = () =>
      new Promise<number>((resolve, reject) => {
        const headers: Record<string, string> = {};
        const req = { requestId: 'req_test', caller } as unknown as express.Request;
        const res = { req, setHeader: (name: string, value: string) => void (headers[name.toLowerCase()] = value) } as unknown as express.Response;
        void limits.perAccount(req, res, (err?: unknown) => (err ? reject(err) : resolve(Number(headers['x-ratelimit-remaining']))));
      });
    const remaining = await Promise.all(Array.from({ length: 7 }, pass));
    expect(remaining.sort((a, b) => b - a)).toEqual(Array.from({ length: 7 }, (_, i) => 4_999 - i));
    // Seven places from two blocks of five: one fetch per block, not one per request.
    expect(await sharedCount(accountId, clock)).toBe(10);
  });

  test("one account's block is kept while another account's requests come between", async () => {
    const clock = pinnedClock(5);
    const base = await startInstance(clock.now);
    const [a, b] = [await ctx.account('enterprise', { rateLimit: 5_000 }), await ctx.account('enterprise', { rateLimit: 5_000 })];
    const remaining = async (acct: typeof a) => limitHeaders(await send(`${base}/v1/nope`, { key: acct.live!.key })).remaining;
    expect([await remaining(a), await remaining(b), await remaining(a), await remaining(b)]).toEqual([4_999, 4_999, 4_998, 4_998]);
    expect(await sharedCount(a.id, clock)).toBe(5);
  });

  test('two processes together never allow more than the limit', async () => {
    const clock = pinnedClock(5);
    const [a, b] = [await startInstance(clock.now), await startInstance(clock.now)];
    const acct = await ctx.account('enterprise', { rateLimit: 2_100 });
    const statuses: number[] = [];
    // Concurrent waves on both instances, past the limit.
    for (let wave = 0; wave < 22; wave++) {
      const res = await Promise.all(Array.from({ length: 100 }, (_, i) => send(`${i % 2 ? a : b}/v1/nope`, { key: acct.live!.key })));
      statuses.push(...res.map((r) => r.status));
    }
    expect(statuses.filter((s) => s === 404)).toHaveLength(2_100);
    expect(statuses.filter((s) => s === 429)).toHaveLength(100);
  });
});

describe('clients without a valid key', () => {
  test('are limited to 100 failed authentications a minute per address; a valid key from that address still works', async () => {
    const clock = pinnedClock(50);
    const base = await startInstance(clock.now);
    const acct = await ctx.account('growth');
    const from = randomLoopback();
    const other = randomLoopback();

    const failed = await burst(100, () => send(`${base}/v1/agents`, { from, key: `gc_test_${'z'.repeat(40)}` }));
    expect(failed.map((r) => r.status)).toEqual(Array(100).fill(401));
    expect(limitHeaders(failed[99]!)).toEqual({ limit: 100, remaining: 0, reset: 10 });

    const limited = await send(`${base}/v1/agents`, { from });
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ code: 'rate_limited', message: 'Too many requests: a client without a valid API key may make 100 requests per minute. Retry in 10 s.' });
    expect(limited.headers['retry-after']).toBe('10');
    expect(limitHeaders(limited)).toEqual({ limit: 100, remaining: 0, reset: 10 });
    // Public endpoints share the address's count.
    expect((await send(`${base}/v1/.well-known/jwks.json`, { from })).status).toBe(429);

    // Another address is counted on its own; a valid key is counted against its account, not the address.
    expect((await send(`${base}/v1/agents`, { from: other })).status).toBe(401);
    const valid = await send(`${base}/v1/agents`, { from, key: acct.test.key });
    expect(valid.status).toBe(200);
    expect(limitHeaders(valid)).toMatchObject({ limit: 100, remaining: 99 });
  });

  test('the per-address limit follows UNAUTHENTICATED_RATE_LIMIT: at 3, the fourth keyless request of a minute answers 429', async () => {
    const clock = pinnedClock(50);
    const base = await startInstance(clock.now, 3);
    const from = randomLoopback();
    const failed = await burst(3, () => send(`${base}/v1/agents`, { from }));
    expect(failed.map((r) => r.status)).toEqual([401, 401, 401]);
    expect(limitHeaders(failed[2]!)).toEqual({ limit: 3, remaining: 0, reset: 10 });
    const limited = await send(`${base}/v1/.well-known/jwks.json`, { from });
    expect(limited.status).toBe(429);
    expect(limited.body.error.message).toContain('3 requests per minute');
  });
});

describe('counters', () => {
  test('count in one statement per request under concurrency, and windows that ended are purged', async () => {
    const bucket = `test:${Math.random()}`;
    const now = Date.now();
    const current = windowAt(now).start;
    const old = new Date(current.getTime() - 120_000);
    const counts = await Promise.all(Array.from({ length: 50 }, () => hitCounter(ctx.database.db, bucket, current)));
    expect(counts.sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    await hitCounter(ctx.database.db, bucket, old);

    expect(await purgeCounters(ctx.database.db, new Date(current.getTime() - 60_000))).toBeGreaterThanOrEqual(1);
    const rows = await ctx.database.db.selectFrom('rate_limit_counters').select(['window_start', 'count']).where('bucket', '=', bucket).execute();
    expect(rows).toEqual([{ window_start: current, count: 50 }]);
  });
});

describe('when the counters cannot be reached', () => {
  test('requests go on without the headers (fail open) and the error is logged once per request', async () => {
    // A real database handle whose server refuses connections (nothing listens on port 1).
    const unreachable = await connectDatabase({ databaseUrl: 'postgres://postgres@127.0.0.1:1/none', poolSize: 1 });
    const logged: unknown[] = [];
    const limits = rateLimiter({ db: unreachable.db, logError: (err) => logged.push(err) });
    const app = express();
    app.use((req, _res, next) => {
      req.requestId = 'req_test';
      if (req.get('authorization')) req.caller = { accountId: 'acct_x', livemode: false, keyId: 'key_x', role: 'admin', agentId: null, plan: 'growth', rateLimit: null };
      next();
    });
    app.get('/public', limits.perAddress, (_req, res) => void res.json({ ok: true }));
    app.get('/private', limits.perAccount, (_req, res) => void res.json({ ok: true }));
    app.use(errorHandler(() => {}));
    const server = await new Promise<http.Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const results = [await send(`${base}/public`), await send(`${base}/private`, { key: 'anything' })];
      for (const res of results) {
        expect(res.status).toBe(200);
        expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      }
      expect(logged).toHaveLength(2);
    } finally {
      server.close();
      await unreachable.close();
    }
  });
});

/** An app of the limiter alone, in the order src/http/app.ts mounts it, on 127.0.0.1; closed by the caller. */
async function limitedApp(limits: ReturnType<typeof rateLimiter>, authenticate: Authenticator): Promise<{ base: string; close: () => void }> {
  const app = express();
  app.use((req, _res, next) => {
    req.requestId = 'req_test';
    next();
  });
  app.get('/public', limits.perAccount, (_req, res) => void res.json({ ok: true }));
  app.get('/private', authMiddleware(authenticate), limits.onAuthFailure, limits.perAccount, (_req: express.Request, res: express.Response) => void res.json({ ok: true }));
  app.use(errorHandler(() => {}));
  const server = await new Promise<http.Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

describe('what counts against whom', () => {
  test('only a refused key counts against the client address: an authentication that fails otherwise (its database away) is answered as it is, uncounted', async () => {
    const limits = rateLimiter({ db: ctx.database.db });
    const app = await limitedApp(limits, async () => {
      throw new AppError('service_unavailable', 'The key store is unavailable.');
    });
    try {
      const from = randomLoopback();
      const res = await send(`${app.base}/private`, { from, key: `gc_test_${'z'.repeat(40)}` });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('service_unavailable');
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      const refused = await send(`${app.base}/private`, { from });
      expect(refused.status).toBe(401);
      // The first refusal of that address: the 503 before it was not counted.
      expect(limitHeaders(refused)).toMatchObject({ limit: 100, remaining: 99 });
    } finally {
      app.close();
    }
  });

  test('a request without a caller is not counted per account (nothing to count it against)', async () => {
    const limits = rateLimiter({ db: ctx.database.db });
    const app = await limitedApp(limits, async () => {
      throw new AppError('unauthorized', 'Invalid API key provided.');
    });
    try {
      const res = await send(`${app.base}/public`);
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    } finally {
      app.close();
    }
  });

  test('with no error logger configured, an unreachable counter still fails open', async () => {
    const unreachable = await connectDatabase({ databaseUrl: 'postgres://postgres@127.0.0.1:1/none', poolSize: 1 });
    const caller = { accountId: 'acct_x', livemode: false, keyId: 'key_x', role: 'admin', agentId: null, plan: 'growth', rateLimit: null } as const;
    const app = await limitedApp(rateLimiter({ db: unreachable.db }), async () => caller);
    try {
      const results = [await send(`${app.base}/private`, { key: 'anything' }), await send(`${app.base}/private`)];
      expect(results.map((r) => r.status)).toEqual([200, 401]);
      for (const res of results) expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    } finally {
      app.close();
      await unreachable.close();
    }
  });
});
