/**
 * Request logs and Prometheus metrics on the real app: one JSON line per request with its request
 * id, account, route and latency, and never a key, secret or token; metrics labelled by route
 * pattern and free of per-account data.
 */
import { Writable } from 'node:stream';
import type { Request } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { AppError } from '../../src/kernel/errors.js';
import { createLogger } from '../../src/kernel/logger.js';
import { createMetrics, recordRateLimitRejection } from '../../src/observability/metrics.js';
import { startMetricsServer } from '../../src/observability/metrics-server.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';
import { TEST_IDEMPOTENCY_KEY } from '../support/server-keys.js';

/** Everything the app logs, line by line. */
const lines: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  },
});
const logText = () => lines.join('\n');
const parsedLines = () => lines.map((l) => JSON.parse(l) as Record<string, any>);

/** The log line of a request is written when its response is done, which may be just after the client has it. */
async function logLineOf(requestId: string): Promise<Record<string, any>> {
  for (let i = 0; i < 100; i++) {
    const line = parsedLines().find((l) => l.request_id === requestId && l.msg?.startsWith('request'));
    if (line) return line;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no log line for ${requestId}`);
}

/** The value of one series in Prometheus text, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return undefined;
}

let ctx: TestContext;
let a: TestAccount;

beforeAll(async () => {
  ctx = await createTestContext({ allowPrivateUrls: true, log: createLogger('trace', 'spend-auth-test', sink) });
  a = await ctx.account();
});
afterAll(() => ctx?.close());

describe('request logs', () => {
  it('carry request id, account, method, route pattern, status and latency, and never a key, secret or token', async () => {
    const secrets: string[] = [a.test.key];
    const requestIds: string[] = [];
    const track = <T extends { headers: Headers }>(res: T) => {
      requestIds.push(res.headers.get('x-request-id')!);
      return res;
    };

    const apiKey = track(await a.test.post('/v1/api-keys', { name: 'ci', role: 'reviewer' }));
    expect(apiKey.status).toBe(201);
    secrets.push(apiKey.body.key);

    const endpoint = track(await a.test.post('/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', events: ['*'] }));
    expect(endpoint.status).toBe(201);
    secrets.push(endpoint.body.secret);
    const rotated = track(await a.test.post(`/v1/webhook-endpoints/${endpoint.body.id}/rotate-secret`));
    secrets.push(rotated.body.secret);

    const policy = track(await a.test.post('/v1/policies', policyBody()));
    const agent = track(await a.test.post('/v1/agents', { name: 'logger', policy_id: policy.body.id }));
    const decision = track(await a.test.post('/v1/authorize', { agent_id: agent.body.id, amount: 500, currency: 'USD', vendor: 'openai.com' }, { 'Idempotency-Key': 'log-test-1' }));
    expect(decision.body.decision).toBe('approved');
    secrets.push(decision.body.authorization_token);
    track(await a.test.post('/v1/authorization-tokens/verify', { token: decision.body.authorization_token }));
    track(await a.test.get(`/v1/decisions/${decision.body.decision_id}`));

    // A wrong key (in the header) and a key put where it does not belong (the query string).
    const bogus = `gc_test_${'Z'.repeat(40)}`;
    secrets.push(bogus);
    const unauthorized = track(await ctx.raw('/v1/agents', { headers: { authorization: `Bearer ${bogus}` } }));
    expect(unauthorized.status).toBe(401);
    track(await ctx.raw(`/v1/agents?api_key=${a.test.key}`, { headers: { authorization: `Bearer ${a.test.key}` } }));

    const chosen = track(await ctx.raw('/healthz', { headers: { 'x-request-id': 'caller-chosen-id-42' } }));
    expect(chosen.headers.get('x-request-id')).toBe('caller-chosen-id-42');

    for (const id of requestIds) await logLineOf(id);
    const text = logText();
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(20);
      expect(text).not.toContain(secret);
    }
    expect(text).not.toMatch(/gc_(test|live)_[0-9A-Za-z]{20}|whsec_|gca_|Bearer/);

    const created = await logLineOf(apiKey.headers.get('x-request-id')!);
    expect(created).toMatchObject({ method: 'POST', route: '/v1/api-keys', path: '/v1/api-keys', status: 201, account_id: a.id, livemode: false, msg: 'request' });
    expect(typeof created.latency_ms).toBe('number');
    expect(created.latency_ms).toBeGreaterThanOrEqual(0);
    for (const field of ['body', 'headers', 'req', 'res', 'query']) expect(created).not.toHaveProperty(field);

    expect(await logLineOf(decision.headers.get('x-request-id')!)).toMatchObject({ route: '/v1/authorize', status: 200, account_id: a.id });
    expect(await logLineOf(unauthorized.headers.get('x-request-id')!)).toMatchObject({ route: '/v1/agents', status: 401 });
    expect(await logLineOf(unauthorized.headers.get('x-request-id')!)).not.toHaveProperty('account_id');
    const probe = await logLineOf('caller-chosen-id-42');
    expect(probe).toMatchObject({ route: '/healthz', status: 200, level: 20 });
    const unknown = track(await a.test.get('/v1/no/such/route'));
    expect(await logLineOf(unknown.headers.get('x-request-id')!)).toMatchObject({ route: 'unmatched', status: 404 });
  });

  it('redact credentials wherever a log call passes them', () => {
    const captured: string[] = [];
    const log = createLogger('info', 'redact-test', new Writable({ write: (c: Buffer, _e, done) => (captured.push(c.toString()), done()) }));
    log.info({ key: 'gc_test_raw', secret: 'whsec_raw', token: 'gca_raw', authorization_token: 'gca_raw2', req: { headers: { authorization: 'Bearer gc_live_raw' } }, endpoint: { secret: 'whsec_nested' }, a: { b: { token: 'gca_deep' } } }, 'x');
    const out = captured.join('');
    expect(out).not.toMatch(/gc_test_raw|whsec_raw|gca_raw|gc_live_raw|whsec_nested|gca_deep/);
    expect(out).toContain('[redacted]');
  });
});

describe('GET /metrics', () => {
  const scrape = async () => {
    const res = await ctx.raw('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text;
  };

  it('labels request durations by route pattern and status, never by raw path', async () => {
    await a.test.get('/v1/agents/agt_metricsprobe123');
    const text = await scrape();
    expect(sample(text, 'http_request_duration_seconds_count', { method: 'GET', route: '/v1/agents/:id', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/# TYPE http_request_duration_seconds histogram/);
    expect(text).not.toContain('agt_metricsprobe123');
  });

  it('counts decisions by outcome once each, not idempotent replays', async () => {
    const before = await scrape();
    const count = (text: string, outcome: string) => sample(text, 'decisions_total', { outcome }) ?? 0;
    const policy = (await a.test.post('/v1/policies', policyBody({ require_approval_above: 1_000, vendor_denylist: ['casino.example'] }))).body;
    const agent = (await a.test.post('/v1/agents', { name: 'counted', policy_id: policy.id })).body;
    const ask = (amount: number, vendor: string, headers?: Record<string, string>) => a.test.post('/v1/authorize', { agent_id: agent.id, amount, currency: 'USD', vendor }, headers);
    expect((await ask(100, 'ok.example', { 'Idempotency-Key': 'metrics-once' })).body.decision).toBe('approved');
    expect((await ask(100, 'ok.example', { 'Idempotency-Key': 'metrics-once' })).headers.get('idempotent-replayed')).toBe('true');
    expect((await ask(100, 'casino.example')).body.decision).toBe('denied');
    expect((await ask(5_000, 'ok.example')).body.decision).toBe('held');
    const after = await scrape();
    expect(count(after, 'approved') - count(before, 'approved')).toBe(1);
    expect(count(after, 'denied') - count(before, 'denied')).toBe(1);
    expect(count(after, 'held') - count(before, 'held')).toBe(1);
    // The held request waits in the outbox: nothing carries it in this test.
    expect(sample(after, 'outbox_pending')).toBeGreaterThanOrEqual(process.env.DATABASE_URL ? 0 : 1);
    expect(sample(after, 'outbox_oldest_age_seconds')).toBeGreaterThanOrEqual(0);
  });

  it('shows no account, agent, key or decision identifiers, and needs no key', async () => {
    const text = await scrape();
    expect(text).not.toMatch(/acct_|agt_|pol_|dec_|gc_test_|gc_live_|key_/);
    for (const name of ['webhook_attempts_total', 'rate_limit_rejections_total', 'outbox_pending', 'outbox_oldest_age_seconds', 'decisions_total']) {
      expect(text).toContain(`# TYPE ${name} `);
    }
  });

  it('counts rate-limit rejections reported for a request, in that app’s registry only', async () => {
    const deps = { db: ctx.database.db, signer: ctx.signer, gateway: ctx.gateway, engine: ctx.engine, idempotencyKey: TEST_IDEMPOTENCY_KEY, authenticate: async () => Promise.reject(new AppError('unauthorized', 'x')) };
    const one = createApp(deps);
    const other = createApp(deps);
    recordRateLimitRejection({ app: one } as unknown as Request);
    recordRateLimitRejection({ app: one } as unknown as Request);
    const text = (app: typeof one) => (app.locals.metrics as ReturnType<typeof createMetrics>).registry.metrics();
    expect(sample(await text(one), 'rate_limit_rejections_total')).toBe(2);
    expect(sample(await text(other), 'rate_limit_rejections_total')).toBe(0);
  });
});

describe('the worker metrics listener', () => {
  it('serves /metrics and /healthz, and nothing else', async () => {
    const metrics = createMetrics();
    metrics.recordWebhookAttempt('delivered');
    metrics.recordWebhookAttempt('retry');
    metrics.recordWebhookAttempt('retry');
    const server = await startMetricsServer(metrics, 0, createLogger('silent'), '127.0.0.1');
    try {
      const base = `http://127.0.0.1:${server.port}`;
      const res = await fetch(`${base}/metrics`);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(sample(text, 'webhook_attempts_total', { result: 'delivered' })).toBe(1);
      expect(sample(text, 'webhook_attempts_total', { result: 'retry' })).toBe(2);
      expect(sample(text, 'webhook_attempts_total', { result: 'failed' })).toBe(0);
      expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok' });
      expect((await fetch(`${base}/v1/agents`)).status).toBe(404);
      expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(405);
    } finally {
      await server.close();
    }
  });
});
