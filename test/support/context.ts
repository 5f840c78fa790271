import { createAccount } from '../../src/accounts/accounts.service.js';
import type { Plan } from '../../src/db/database.js';
import { connectDatabase, type ConnectOptions, type Database } from '../../src/db/connect.js';
import { adminQuery, cloneTemplate, databaseUrl, derivedName, dropDatabase, migrateAndBindTestKeys } from './pg-template.js';
import { openEmbeddedDatabase } from './embedded-template.js';
import { createLogger, type Logger } from '../../src/kernel/logger.js';
import { startHttpServer, type RunningServer } from '../../src/http/server.js';
import { generatePrivateJwk, keysFromJwks } from '../../src/tokens/signing-keys.js';
import type { TokenSigner } from '../../src/tokens/authorization-token.js';
import type { MandateKeys } from '../../src/mandates/mandate-deps.js';
import { generateMandatePrivateJwk, mandateKeysFromJwks } from '../../src/mandates/mandate-signing-keys.js';
import { TemporalGateway, type WorkflowGateway } from '../../src/temporal/gateway.js';
import { EngineMonitor } from '../../src/temporal/engine-status.js';
import { checkResponse, warmUp } from './openapi-conformance.js';
import { TEST_IDEMPOTENCY_KEY, useTestAuditKey } from './server-keys.js';
import { stripeIssuingRail } from '../../src/rails/stripe-issuing/endpoint.js';
import type { AuthorizeBatchSettings } from '../../src/kernel/config.js';
import type { AppDeps } from '../../src/http/app.js';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface Client {
  key: string;
  get<T = any>(path: string, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  patch<T = any>(path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  delete<T = any>(path: string, headers?: Record<string, string>): Promise<ApiResponse<T>>;
}

export interface TestAccount {
  id: string;
  test: Client;
  live: Client | undefined;
}

export interface TestContext {
  database: Database;
  /** The PostgreSQL URL of this context's database; undefined on the embedded database. */
  databaseUrl: string | undefined;
  baseUrl: string;
  server: RunningServer;
  signer: TokenSigner;
  /** The app's mandate signing keys (MANDATE_SIGNING_KEY): they sign the AP2 mandates and receipts it answers. */
  mandateKeys: MandateKeys;
  gateway: WorkflowGateway;
  /** The engine's state as /readyz reports it: probed through `gateway` when asked. */
  engine: EngineMonitor;
  /** A fresh account: tests stay isolated from each other even on one shared database. */
  account(plan?: Plan, opts?: { rateLimit?: number; includedChecks?: number; overageRateMicros?: number }): Promise<TestAccount>;
  client(key: string): Client;
  raw(path: string, init?: RequestInit): Promise<ApiResponse>;
  close(): Promise<void>;
}

async function toResponse(res: Response): Promise<ApiResponse> {
  const text = await res.text();
  let body: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('application/json')) body = JSON.parse(text);
  return { status: res.status, headers: res.headers, body, text };
}

/**
 * One real database (PostgreSQL when DATABASE_URL is set, else an in-memory PGlite for this file)
 * and the real app listening on 127.0.0.1.
 */
export const UNREACHABLE_ENGINE_PORT = 1;

export interface TestContextOptions {
  gateway?: (deps: { db: Database['db']; signer: TokenSigner }) => WorkflowGateway;
  /**
   * Replaces the test-mode limit of 100 requests per minute, for files whose fixtures make more
   * requests than that with one account's test keys. The limits themselves are tested with the
   * real numbers (test/api/rate-limit.test.ts).
   */
  testModeRateLimit?: number;
  allowPrivateUrls?: boolean;
  now?: () => Date;
  log?: Logger;
  /**
   * On PostgreSQL, a database of this file's own instead of the shared one (for files that must
   * see every row of a table, not only their accounts').
   */
  ownDatabase?: boolean;
  /** Told of every query the app's database handle sends (query-count tests). */
  onQuery?: (sql: string) => void;
  /** A server span per request (the test registered a tracer provider). */
  tracing?: boolean;
  /** This PostgreSQL database, already migrated (e.g. reached as another role), instead of the shared one. */
  databaseUrl?: string;
  /** This database, already connected and migrated (a migration test's), instead of a new one; closed with the context. */
  database?: Database;
  /** Group commit settings of the app (AUTHORIZE_BATCH_*); absent: the service's defaults. */
  authorizeBatch?: AuthorizeBatchSettings;
  /** Wraps the database driver of the app (fault injection, e.g. test/support/lossy-commit.ts). */
  wrapDriver?: ConnectOptions['wrapDriver'];
  /** PUBLIC_BASE_URL of the app. */
  publicBaseUrl?: string;
  /** How agents' key directories are fetched: a resolver (test/support/rebinding-dns.ts), a CA (test/support/tls-certs.ts), a shorter timeout. */
  keyDirectories?: AppDeps['keyDirectories'];
  /** The app's mandate signing keys; absent: a key generated for this context. */
  mandateKeys?: MandateKeys;
  /**
   * MAX_QUEUE_MS of the app; absent: 60 s. A test's queue on a loaded machine (200 requests at once
   * on one agent, the embedded engine's one connection) is not the overload admission control is
   * for: its own tests (test/api/admission-control.test.ts) give a short bound.
   */
  maxQueueMs?: number;
}

/** The tests' MAX_QUEUE_MS unless a test sets its own (TestContextOptions.maxQueueMs). */
const TEST_MAX_QUEUE_MS = 60_000;

export async function createTestContext(opts: TestContextOptions = {}): Promise<TestContext> {
  useTestAuditKey();
  warmUp();
  const sharedUrl = process.env.DATABASE_URL;
  const own = sharedUrl && opts.ownDatabase && !opts.databaseUrl ? await createScratchDatabase(sharedUrl, { migrated: true }) : undefined;
  const url = opts.databaseUrl ?? own?.url ?? sharedUrl;
  // A generous pool wait: the 200-way concurrency tests queue on one agent's lock on a loaded machine.
  const hooks = { ...(opts.onQuery ? { onQuery: opts.onQuery } : {}), ...(opts.wrapDriver ? { wrapDriver: opts.wrapDriver } : {}) };
  const database =
    opts.database ?? (url ? await connectDatabase({ databaseUrl: url, poolSize: 10, connectTimeoutMs: 30_000, ...hooks }) : await openEmbeddedDatabase(hooks));
  const keys = await keysFromJwks([await generatePrivateJwk()]);
  const signer = { issuer: 'spend-auth-test', keys };
  const mandateKeys = opts.mandateKeys ?? mandateKeysFromJwks([await generateMandatePrivateJwk()]);
  // No engine runs here: the gateway points at a port nothing listens on, so approvals answer 503.
  const gateway = opts.gateway?.({ db: database.db, signer }) ?? new TemporalGateway({ address: `127.0.0.1:${UNREACHABLE_ENGINE_PORT}`, namespace: 'default', taskQueue: 'spend-authorization' });
  const engine = new EngineMonitor({
    address: 'workflow engine',
    probe: async () => {
      if ((await gateway.health()) !== 'up') throw new Error('no answer in time');
    },
  });
  const rateLimit = opts.testModeRateLimit ? { limits: { testMode: opts.testModeRateLimit } } : undefined;
  // startHttpServer hands every service it is given on to createApp.
  const services: Parameters<typeof startHttpServer>[2] = {
    signer,
    mandateKeys,
    gateway,
    engine,
    rateLimit,
    idempotencyKey: TEST_IDEMPOTENCY_KEY,
    rails: { stripeIssuing: stripeIssuingRail },
    allowPrivateUrls: opts.allowPrivateUrls ?? false,
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.tracing ? { tracing: true } : {}),
    ...(opts.authorizeBatch ? { authorizeBatch: opts.authorizeBatch } : {}),
    ...(opts.publicBaseUrl ? { publicBaseUrl: opts.publicBaseUrl } : {}),
    ...(opts.keyDirectories ? { keyDirectories: opts.keyDirectories } : {}),
    maxQueueMs: opts.maxQueueMs ?? TEST_MAX_QUEUE_MS,
  };
  const server = await startHttpServer(database, { port: 0 }, services, opts.log ?? createLogger('silent'), '127.0.0.1');
  const baseUrl = `http://127.0.0.1:${server.port}`;

  const raw = async (path: string, init?: RequestInit) => {
    // fetch's own error says only "fetch failed"; its cause (a reset, a refused connection) is what explains it.
    const sent = await fetch(baseUrl + path, init).catch((err: Error) => {
      throw new Error(`${init?.method ?? 'GET'} ${path}: ${err.message} (${(err.cause as Error | undefined)?.message ?? 'no cause given'})`, { cause: err });
    });
    const res = await toResponse(sent);
    checkResponse(init?.method ?? 'GET', path, res);
    return res;
  };
  const client = (key: string): Client => {
    const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      raw(path, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    return {
      key,
      get: (p, h) => send('GET', p, undefined, h),
      post: (p, b, h) => send('POST', p, b, h),
      patch: (p, b, h) => send('PATCH', p, b, h),
      delete: (p, h) => send('DELETE', p, undefined, h),
    };
  };

  return {
    database,
    databaseUrl: url,
    baseUrl,
    server,
    signer,
    mandateKeys,
    gateway,
    engine,
    raw,
    client,
    async account(plan = 'growth', opts = {}) {
      const created = await createAccount(database.db, { name: `test-${plan}`, plan, ...opts });
      return {
        id: created.account.id,
        test: client(created.keys.test),
        live: created.keys.live ? client(created.keys.live) : undefined,
      };
    },
    async close() {
      await server.close(100);
      await gateway.close();
      await database.close();
      await own?.drop();
    },
  };
}

export interface ScratchDatabaseOptions {
  /**
   * At the latest migration, with the test keys bound (as the shared database is): a clone of the
   * run's template (test/support/pg-template.ts), or migrated here when there is none. Absent: an
   * empty database (migration tests build an older schema on it).
   */
  migrated?: boolean;
}

/** A fresh database on the server of `sharedUrl`, dropped again by `drop`. */
export async function createScratchDatabase(sharedUrl: string, opts: ScratchDatabaseOptions = {}): Promise<{ url: string; drop(): Promise<void> }> {
  const name = derivedName(sharedUrl, `f${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`);
  const url = databaseUrl(sharedUrl, name);
  const drop = () => dropDatabase(sharedUrl, name);
  const cloned = opts.migrated ? await cloneTemplate(sharedUrl, name) : false;
  if (!cloned) await adminQuery(sharedUrl, `CREATE DATABASE "${name}"`);
  if (opts.migrated && !cloned) {
    try {
      await migrateAndBindTestKeys(url);
    } catch (err) {
      await drop().catch(() => {});
      throw err;
    }
  }
  return { url, drop };
}

/** A fresh policy (policyBody with `policy` over it) and an agent bound to it. */
export async function agentWithPolicy(client: Client, policy: Record<string, unknown> = {}): Promise<{ agentId: string; policyId: string }> {
  const p = await client.post('/v1/policies', policyBody(policy));
  if (p.status !== 201) throw new Error(`policy not created: ${p.status} ${p.text}`);
  const a = await client.post('/v1/agents', { name: 'buyer', policy_id: p.body.id });
  if (a.status !== 201) throw new Error(`agent not created: ${a.status} ${a.text}`);
  return { agentId: a.body.id, policyId: p.body.id };
}

/** A policy body with sensible defaults, for tests that need one and care about a few fields. */
export const policyBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'Test policy',
  budget_monthly: 100_000,
  budget_single_max: 10_000,
  ...overrides,
});
