/**
 * Attack: using a rail connection after its owner deleted it, through an API process that still has
 * it cached (docs/rails/stripe-issuing.md, "Operations"). Several API processes share one database;
 * each caches connections. A deletion made through one must stop the endpoint in every other before
 * the DELETE answers: the next swipe anywhere is refused as an unknown connection, and nothing is
 * recorded, even in a process whose notifications were lost. And the cache cannot be made to grow
 * by asking for connections that do not exist.
 *
 * Each "process" here is an app instance with its own cache; on PostgreSQL each also has its own
 * pool and listening connection, as a process of `serve --workers N` has. On the embedded database
 * (one process by design) the instances share it.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { connectDatabase, type Database } from '../../src/db/connect.js';
import { DECISION_RESOLVED_CHANNEL } from '../../src/decisions/decisions.repository.js';
import { startHttpServer, type RunningServer } from '../../src/http/server.js';
import { createLogger } from '../../src/kernel/logger.js';
import { listenForRailConnectionChanges, RailConnectionCache } from '../../src/rail-connections/rail-connection-cache.js';
import { RAIL_CONNECTION_CHANGED_CHANNEL } from '../../src/rail-connections/rail-connections.repository.js';
import { signingSecretCipher } from '../../src/rail-connections/signing-secret.js';
import { stripeIssuingRail } from '../../src/rails/stripe-issuing/endpoint.js';
import { createTestContext, type ApiResponse, type TestAccount, type TestContext } from '../support/context.js';
import { TEST_IDEMPOTENCY_KEY } from '../support/server-keys.js';
import { accountWithRail, asStripeReadsIt, authorizationAfter, connectStripeIssuing, requestEvent, signature, stripeEvent } from '../support/stripe-issuing.js';

/** Reads of a connection by the rail endpoint (the cache's one query). */
const CONNECTION_READ = /from "rail_connections" as "c" inner join "accounts"/;
let connectionReads = 0;

let ctx: TestContext;
/** Another process's database handle: its own pool and listener on PostgreSQL; the same one embedded. */
let otherDatabase: Database;
const started: RunningServer[] = [];

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000, onQuery: (q) => void (CONNECTION_READ.test(q) && (connectionReads += 1)) });
  otherDatabase = ctx.databaseUrl ? await connectDatabase({ databaseUrl: ctx.databaseUrl, poolSize: 4, connectTimeoutMs: 30_000 }) : ctx.database;
});
afterAll(async () => {
  for (const s of started) await s.close(100);
  if (otherDatabase && otherDatabase !== ctx.database) await otherDatabase.close();
  await ctx?.close();
});

const newCache = (db: Db = ctx.database.db, opts: ConstructorParameters<typeof RailConnectionCache>[1] = {}) =>
  new RailConnectionCache({ db, secrets: signingSecretCipher(TEST_IDEMPOTENCY_KEY) }, opts);

/** One more API process over the shared database, serving on its own port; its cache when given. */
async function apiProcess(database: Database, railConnections?: RailConnectionCache): Promise<string> {
  const server = await startHttpServer(
    database,
    { port: 0 },
    {
      signer: ctx.signer,
      gateway: ctx.gateway,
      engine: ctx.engine,
      rateLimit: { limits: { testMode: 100_000 } },
      idempotencyKey: TEST_IDEMPOTENCY_KEY,
      rails: { stripeIssuing: stripeIssuingRail },
      ...(railConnections ? { railConnections } : {}),
    },
    createLogger('silent'),
    '127.0.0.1',
  );
  started.push(server);
  return `http://127.0.0.1:${server.port}`;
}

/**
 * A process whose listening connection lost every notification (a fake of that fault: its
 * `listen` never delivers): only the checks on the request's own path are left to it.
 */
const deaf = (database: Database): Database => ({ ...database, listen: async () => async () => {} });

async function call(base: string, path: string, init: RequestInit): Promise<ApiResponse> {
  const res = await fetch(base + path, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: (res.headers.get('content-type') ?? '').includes('application/json') ? JSON.parse(text) : text };
}

/** Stripe posting a signed event to a connection's endpoint on one process. */
function post(base: string, rail: { id: string; secret: string }, event: unknown): Promise<ApiResponse> {
  const payload = JSON.stringify(event);
  return call(base, `/rails/stripe-issuing/${rail.id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature(payload, rail.secret) },
    body: payload,
  });
}

const deleteThrough = (base: string, acct: TestAccount, id: string) => call(base, `/v1/rail-connections/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${acct.test.key}` } });

/** What the connection has recorded: answers, processed events, decisions. */
async function recorded(connectionId: string) {
  const db = ctx.database.db;
  const count = async (table: 'rail_authorizations' | 'rail_events') => (await db.selectFrom(table).select('connection_id').where('connection_id', '=', connectionId).execute()).length;
  const decisions = (await db.selectFrom('decisions').select('id').where('rail_connection_id', '=', connectionId).execute()).length;
  return { answers: await count('rail_authorizations'), events: await count('rail_events'), decisions };
}

function expectUnknownConnection(res: ApiResponse): void {
  expect(res.status, res.text).toBe(400);
  expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'id', message: 'No such rail connection.' });
}

async function until(check: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`${what}: not reached in 10 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('a connection deleted through one API process', () => {
  test('is refused by the very next swipe on another that had it cached, and nothing is recorded', async () => {
    const { acct, rail, agentId } = await accountWithRail(ctx);
    const other = await apiProcess(otherDatabase);
    const first = requestEvent({ agentId, amount: 500, merchantUrl: 'shop.example' });
    expect(asStripeReadsIt(await post(ctx.baseUrl, rail, first)).approved).toBe(true);
    const before = await recorded(rail.id);

    const deleted = await deleteThrough(other, acct, rail.id);
    expect(deleted.body).toEqual({ id: rail.id, object: 'rail_connection', deleted: true });
    // No wait: the DELETE has answered, so every process refuses from now on.
    expectUnknownConnection(await post(ctx.baseUrl, rail, requestEvent({ agentId, amount: 500, merchantUrl: 'shop.example' })));
    expectUnknownConnection(await post(ctx.baseUrl, rail, stripeEvent('issuing_authorization.created', authorizationAfter(first, { approved: true }))));
    expect(await recorded(rail.id)).toEqual(before);
  });

  test('is refused at once by a process that never hears of it (its notifications lost): a new swipe, a repeat, a card event', async () => {
    const { acct, rail, agentId } = await accountWithRail(ctx);
    // Three such processes, each with the connection cached, each asked once after the deletion.
    const unaware = await Promise.all([0, 1, 2].map(async () => {
      const cache = newCache(otherDatabase.db);
      return { cache, base: await apiProcess(deaf(otherDatabase), cache) };
    }));
    const swipes = [];
    for (const { cache, base } of unaware) {
      const swipe = requestEvent({ agentId, amount: 700, merchantUrl: 'shop.example' });
      expect(asStripeReadsIt(await post(base, rail, swipe)).approved).toBe(true);
      expect(cache.size).toBe(1);
      swipes.push(swipe);
    }
    const before = await recorded(rail.id);

    expect((await deleteThrough(ctx.baseUrl, acct, rail.id)).status).toBe(200);
    // Still cached there: only the request's own query can tell.
    for (const { cache } of unaware) expect(cache.size).toBe(1);
    const [next, repeat, later] = unaware as [(typeof unaware)[0], (typeof unaware)[0], (typeof unaware)[0]];
    expectUnknownConnection(await post(next.base, rail, requestEvent({ agentId, amount: 700, merchantUrl: 'shop.example' })));
    expectUnknownConnection(await post(repeat.base, rail, swipes[1]));
    expectUnknownConnection(await post(later.base, rail, stripeEvent('issuing_authorization.created', authorizationAfter(swipes[2]!, { approved: true }))));
    expect(await recorded(rail.id)).toEqual(before);
    // Found gone, it is forgotten: the next request reads the connection and finds none.
    for (const { cache } of unaware) expect(cache.size).toBe(0);
    expectUnknownConnection(await post(next.base, rail, swipes[0]));
  });

  test('reaches the cache of every listening process by notification', async () => {
    const { acct, rail, agentId } = await accountWithRail(ctx);
    const cache = newCache(otherDatabase.db);
    const listening = await apiProcess(otherDatabase, cache);
    expect(asStripeReadsIt(await post(listening, rail, requestEvent({ agentId, amount: 100, merchantUrl: 'shop.example' }))).approved).toBe(true);
    expect(cache.size).toBe(1);
    expect((await deleteThrough(ctx.baseUrl, acct, rail.id)).status).toBe(200);
    await until(() => cache.size === 0, 'the other process dropping the deleted connection');
  });
});

describe('what the cache holds', () => {
  test('a process reads a connection once, not once per swipe', async () => {
    const { rail, agentId } = await accountWithRail(ctx);
    expect((await post(ctx.baseUrl, rail, requestEvent({ agentId, amount: 100, merchantUrl: 'shop.example' }))).status).toBe(200);
    const reads = connectionReads;
    for (let i = 0; i < 5; i++) expect((await post(ctx.baseUrl, rail, requestEvent({ agentId, amount: 100, merchantUrl: 'shop.example' }))).status).toBe(200);
    expect(connectionReads).toBe(reads);
  });

  test('a flood of unknown connection ids leaves nothing in the cache', async () => {
    const cache = newCache(otherDatabase.db);
    const base = await apiProcess(otherDatabase, cache);
    const { rail, agentId } = await accountWithRail(ctx);
    for (let i = 0; i < 200; i++) {
      const id = `rail_${Math.random().toString(36).slice(2)}${i}`;
      expectUnknownConnection(await post(base, { id, secret: rail.secret }, requestEvent({ agentId, amount: 100 })));
    }
    expect(cache.size).toBe(0);
    expect((await post(base, rail, requestEvent({ agentId, amount: 100, merchantUrl: 'shop.example' }))).status).toBe(200);
    expect(cache.size).toBe(1);
  });

  test('at most its bound of connections, the least recently used forgotten first; a forgotten one is read again', async () => {
    const acct = await ctx.account('growth');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await connectStripeIssuing(acct.test)).id);
    const cache = newCache(ctx.database.db, { maxEntries: 3 });
    for (const id of ids) expect((await cache.get(id))?.id).toBe(id);
    expect(cache.size).toBe(3);
    // The oldest two were forgotten; asked again, they are read again and push others out.
    expect((await cache.get(ids[0]!))?.id).toBe(ids[0]);
    expect(cache.size).toBe(3);
  });

  test('concurrent requests for one connection share one read; a deletion heard during the read is not remembered', async () => {
    const acct = await ctx.account('growth');
    const { id } = await connectStripeIssuing(acct.test);
    let reads = 0;
    const db = ctx.database.db;
    // Counts the cache's reads: its one query starts with selectFrom.
    const counting = new Proxy(db, { get: (target, p) => (p === 'selectFrom' ? (...a: Parameters<Db['selectFrom']>) => ((reads += 1), target.selectFrom(...a)) : Reflect.get(target, p)) });
    const cache = newCache(counting);
    const all = await Promise.all(Array.from({ length: 20 }, () => cache.get(id)));
    expect(new Set(all.map((c) => c?.id))).toEqual(new Set([id]));
    expect(reads).toBe(1);

    const fresh = newCache(db);
    const reading = fresh.get(id);
    fresh.drop(id);
    expect((await reading)?.id).toBe(id);
    expect(fresh.size).toBe(0);
  });
});

describe.runIf(process.env.DATABASE_URL)('the listening connection', () => {
  test('shared with the long-polls: when lost and opened again, the cache is emptied (notifications may have been missed), every subscription is told, and deletions are heard again', async () => {
    const database = await connectDatabase({ databaseUrl: ctx.databaseUrl!, poolSize: 2 });
    const cache = newCache(database.db);
    const stopRail = await listenForRailConnectionChanges(database, cache);
    let resolutionsReconnected = 0;
    const stopResolutions = await database.listen(DECISION_RESOLVED_CHANNEL, () => {}, () => void (resolutionsReconnected += 1));
    try {
      const listeners = async () =>
        (
          await sql<{ pid: number }>`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query IN (${`LISTEN "${RAIL_CONNECTION_CHANGED_CHANNEL}"`}, ${`LISTEN "${DECISION_RESOLVED_CHANNEL}"`})`.execute(
            ctx.database.db,
          )
        ).rows.map((r) => r.pid);
      const acct = await ctx.account('growth');
      const { id } = await connectStripeIssuing(acct.test);
      await cache.get(id);
      expect(cache.size).toBe(1);
      const before = await listeners();
      expect(before.length).toBeGreaterThan(0);
      await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = ANY(${before})`.execute(ctx.database.db);
      await until(() => cache.size === 0 && resolutionsReconnected === 1, 'the cache emptied, and every subscription told, on reconnection');

      await cache.get(id);
      expect(cache.size).toBe(1);
      expect((await acct.test.delete(`/v1/rail-connections/${id}`)).status).toBe(200);
      await until(() => cache.size === 0, 'the deletion heard on the new listening connection');
    } finally {
      await stopResolutions();
      await stopRail();
      await database.close();
    }
  }, 60_000);
});
