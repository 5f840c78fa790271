import fc from 'fast-check';
import http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestContext, policyBody, type TestContext } from '../support/context.js';
import { FakeInlineGateway } from '../support/fake-gateway.js';
import { checkResponse } from '../support/openapi-conformance.js';

/** Generated malformed requests across every POST and PATCH endpoint: never a 5xx, never a stack trace. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
let ctx: TestContext;
let key: string;
let ids: Record<string, string>;
/** Another key of the account: DELETE /v1/api-keys/:id must never be aimed at the key sending the requests. */
let otherKeyId: string;

beforeAll(async () => {
  // The fake engine (named as such) keeps approvals from answering 503 for want of a server.
  ctx = await createTestContext({ gateway: (deps) => new FakeInlineGateway(deps), testModeRateLimit: 1_000_000_000 });
  const a = await ctx.account('growth');
  key = a.test.key;
  const policy = (await a.test.post('/v1/policies', policyBody({ require_approval_above: 500 }))).body;
  const agent = (await a.test.post('/v1/agents', { name: 'fuzz', policy_id: policy.id })).body;
  const held = (await a.test.post('/v1/authorize', { agent_id: agent.id, amount: 900, currency: 'USD', vendor: 'x.example' })).body;
  const endpoint = (await a.test.post('/v1/webhook-endpoints', { url: 'https://93.184.216.34/hook', events: ['*'] })).body;
  const event = (await a.test.get('/v1/events?limit=1')).body.data[0];
  ids = { agent: agent.id, policy: policy.id, decision: held.decision_id, endpoint: endpoint.id, event: event.id };
  otherKeyId = (await a.test.post('/v1/api-keys', { name: 'other', role: 'reviewer' })).body.id;
});
afterAll(() => ctx?.close());

type Route = { method: string; path: string; id?: string; list?: boolean };
/** Every route that reads input (the public JWKS and OpenAPI documents read none). */
const everyRoute = (): Route[] => [
  { method: 'POST', path: '/v1/authorize' },
  { method: 'GET', path: '/v1/decisions/:id', id: ids.decision },
  { method: 'POST', path: '/v1/authorization-tokens/verify' },
  { method: 'POST', path: '/v1/webhook-endpoints' },
  { method: 'GET', path: '/v1/webhook-endpoints', list: true },
  { method: 'GET', path: '/v1/webhook-endpoints/:id', id: ids.endpoint },
  { method: 'PATCH', path: '/v1/webhook-endpoints/:id', id: ids.endpoint },
  { method: 'DELETE', path: '/v1/webhook-endpoints/:id', id: ids.endpoint },
  { method: 'POST', path: '/v1/webhook-endpoints/:id/rotate-secret', id: ids.endpoint },
  { method: 'GET', path: '/v1/webhook-endpoints/:id/deliveries', id: ids.endpoint, list: true },
  { method: 'GET', path: '/v1/events', list: true },
  { method: 'GET', path: '/v1/events/:id', id: ids.event },
  { method: 'POST', path: '/v1/events/:id/redeliver', id: ids.event },
  { method: 'GET', path: '/v1/approvals', list: true },
  { method: 'POST', path: '/v1/approvals/:id/approve', id: ids.decision },
  { method: 'POST', path: '/v1/approvals/:id/deny', id: ids.decision },
  { method: 'POST', path: '/v1/api-keys' },
  { method: 'GET', path: '/v1/api-keys', list: true },
  { method: 'GET', path: '/v1/api-keys/self' },
  { method: 'DELETE', path: '/v1/api-keys/:id', id: otherKeyId },
  { method: 'POST', path: '/v1/agents' },
  { method: 'GET', path: '/v1/agents', list: true },
  { method: 'GET', path: '/v1/agents/:id', id: ids.agent },
  { method: 'PATCH', path: '/v1/agents/:id', id: ids.agent },
  { method: 'DELETE', path: '/v1/agents/:id', id: ids.agent },
  { method: 'POST', path: '/v1/agents/:id/freeze', id: ids.agent },
  { method: 'POST', path: '/v1/agents/:id/unfreeze', id: ids.agent },
  { method: 'POST', path: '/v1/policies' },
  { method: 'GET', path: '/v1/policies', list: true },
  { method: 'POST', path: '/v1/policies/simulate' },
  { method: 'GET', path: '/v1/policies/:id', id: ids.policy },
  { method: 'PATCH', path: '/v1/policies/:id', id: ids.policy },
  { method: 'DELETE', path: '/v1/policies/:id', id: ids.policy },
  { method: 'GET', path: '/v1/audit-logs', list: true },
  { method: 'GET', path: '/v1/audit-logs/verify' },
  { method: 'GET', path: '/v1/usage' },
  { method: 'POST', path: '/agents' },
  { method: 'POST', path: '/vaults' },
  { method: 'POST', path: '/authorize' },
];
const at = (r: Route, id = r.id) => r.path.replace(':id', id ?? '');
/** The generated requests go to every route that takes a body. */
const routes = (): [string, string][] => everyRoute().filter((r) => r.method === 'POST' || r.method === 'PATCH').map((r) => [r.method, at(r)]);

/** Field names the endpoints know, so generated objects reach the validators' interesting branches. */
const FIELDS = ['agent_id', 'amount', 'currency', 'vendor', 'category', 'metadata', 'name', 'policy_id', 'budget_monthly', 'budget_single_max', 'budget_daily',
  'vendor_allowlist', 'vendor_denylist', 'require_approval_above', 'categories_allowed', 'active', 'velocity_limits', 'auto_freeze', 'duplicate_window_seconds',
  'status', 'kyc_status', 'role', 'mode', 'token', 'url', 'events', 'enabled', 'note', 'policy', 'requests', 'from', 'to', 'daily_limit',
  'max_single_transaction', 'merchant_name', 'merchant_category', 'agent_type', 'endpoint_id', '__proto__', 'constructor'];

/** Text PostgreSQL cannot store: a NUL, unpaired surrogates (JSON.stringify writes them as \\ud800 escapes). */
const UNSTORABLE = ['a\u0000b', '\u0000', '\ud800', 'x\udc00y', '\udbff\u0000'];

const value = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(-1, 0, 1.5, 2 ** 53, -(2 ** 63), Number.MAX_VALUE, '', ' ', 'USD', 'usd', '1e400', '12.345', 'x'.repeat(300), '2026-13-45', 'http://127.0.0.1', '*', null, ...UNSTORABLE),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
  fc.dictionary(fc.constantFrom('k', 'invoice', ...UNSTORABLE), fc.constantFrom('v', 1, true, ...UNSTORABLE), { maxKeys: 3 }),
);
const body = fc.oneof(
  { weight: 5, arbitrary: fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 8 }).map((o) => JSON.stringify(o)) },
  { weight: 2, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
  { weight: 1, arbitrary: fc.constantFrom('{', '{"amount": 1,}', '[]', 'null', '"\\ud800"', '{"a":'.repeat(50), '\u0000') },
);
const contentType = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', undefined);
const idempotencyKey = fc.option(fc.oneof(fc.string({ maxLength: 300 }), fc.constantFrom('k1', 'k2')), { nil: undefined });

test(`${RUNS} generated malformed requests across every POST and PATCH endpoint answer no 5xx`, async () => {
  const table = routes();
  const fiveHundreds: string[] = [];
  let count = 0;
  await fc.assert(
    fc.asyncProperty(fc.nat({ max: table.length - 1 }), body, contentType, idempotencyKey, async (route, payload, type, idem) => {
      const [method, path] = table[route]!;
      const headers: Record<string, string> = { authorization: `Bearer ${key}` };
      if (type) headers['content-type'] = type;
      if (idem !== undefined && /^[\x20-\x7e]*$/.test(idem)) headers['idempotency-key'] = idem;
      const res = await fetch(ctx.baseUrl + path, { method, headers, body: payload });
      const text = await res.text();
      // Every generated answer must also be one the OpenAPI document lists (status, envelope, headers).
      checkResponse(method, path, { status: res.status, headers: res.headers, body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text, text });
      count += 1;
      if (res.status >= 500) fiveHundreds.push(`${method} ${path} ${res.status} ${payload.slice(0, 120)} → ${text.slice(0, 200)}`);
      expect(text).not.toMatch(/\bat .+\.(ts|js):\d+|SELECT |INSERT INTO/);
      if (res.status >= 400) expect(JSON.parse(text).error.code).toEqual(expect.any(String));
    }),
    { numRuns: RUNS },
  );
  expect(fiveHundreds).toEqual([]);
  expect(count).toBe(RUNS);
  // Healthy afterwards: a valid request still works.
  expect((await fetch(`${ctx.baseUrl}/healthz`)).status).toBe(200);
  const ok = await ctx.client(key).post('/v1/authorize', { agent_id: ids.agent, amount: 100, currency: 'USD', vendor: 'ok.example' });
  expect([200, 403]).toContain(ok.status); // 403 if a generated request froze the agent
  expect((await ctx.client(key).get('/v1/audit-logs/verify')).body.valid).toBe(true);
}, 600_000);

/**
 * Text PostgreSQL cannot hold, and bodies that cannot be read, on every route that reads input:
 * each answers 400 invalid_request naming the parameter at fault (415 for a Content-Encoding that
 * is not supported), never 500.
 */
describe('unstorable text and unreadable bodies, on every route', () => {
  /** One raw request (any method may carry a body; fetch refuses one on GET). */
  function send(method: string, path: string, body?: Buffer, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const req = http.request(`${ctx.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {}), ...headers } }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve({ status: res.statusCode!, text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  const json = (text: string) => Buffer.from(text, 'utf8');
  type Case = { name: string; applies: (r: Route) => boolean; request: (r: Route) => { path: string; body?: Buffer; headers?: Record<string, string> }; status: number; param: string | undefined };
  const everywhere = () => true;
  const cases: Case[] = [
    { name: 'NUL in a string field', applies: everywhere, request: (r) => ({ path: at(r), body: json('{"name":"a\\u0000b"}') }), status: 400, param: 'name' },
    { name: 'NUL in a metadata value', applies: everywhere, request: (r) => ({ path: at(r), body: json('{"metadata":{"invoice":"INV\\u00007"}}') }), status: 400, param: 'metadata.invoice' },
    { name: 'NUL in a metadata key', applies: everywhere, request: (r) => ({ path: at(r), body: json('{"metadata":{"inv\\u0000oice":"7"}}') }), status: 400, param: 'metadata' },
    { name: 'NUL deep in an array', applies: everywhere, request: (r) => ({ path: at(r), body: json('{"requests":[{"vendor":"ok"},{"vendor":"x\\u0000"}]}') }), status: 400, param: 'requests.1.vendor' },
    { name: 'a lone high surrogate', applies: everywhere, request: (r) => ({ path: at(r), body: json('{"vendor":"\\ud800"}') }), status: 400, param: 'vendor' },
    { name: 'a lone low surrogate in a key', applies: everywhere, request: (r) => ({ path: at(r), body: json('{"metadata":{"\\udc00":1}}') }), status: 400, param: 'metadata' },
    { name: 'a body that is not gzip though it says so', applies: everywhere, request: (r) => ({ path: at(r), body: json('{"name":"x"}'), headers: { 'content-encoding': 'gzip' } }), status: 400, param: 'body' },
    { name: 'a truncated gzip body', applies: everywhere, request: (r) => ({ path: at(r), body: zlib.gzipSync('{"name":"x"}').subarray(0, 12), headers: { 'content-encoding': 'gzip' } }), status: 400, param: 'body' },
    { name: 'a body that is not deflate though it says so', applies: everywhere, request: (r) => ({ path: at(r), body: json('{"name":"x"}'), headers: { 'content-encoding': 'deflate' } }), status: 400, param: 'body' },
    { name: 'a body that is not br though it says so', applies: everywhere, request: (r) => ({ path: at(r), body: json('{"name":"x"}'), headers: { 'content-encoding': 'br' } }), status: 400, param: 'body' },
    { name: 'a Content-Encoding that is not supported', applies: everywhere, request: (r) => ({ path: at(r), body: json('{"name":"x"}'), headers: { 'content-encoding': 'zstd' } }), status: 415, param: 'Content-Encoding' },
    { name: 'NUL in a gzip body', applies: everywhere, request: (r) => ({ path: at(r), body: zlib.gzipSync('{"vendor":"a\\u0000"}'), headers: { 'content-encoding': 'gzip' } }), status: 400, param: 'vendor' },
    { name: 'NUL in a path id', applies: (r) => r.id !== undefined, request: (r) => ({ path: at(r, `${r.id}%00`) }), status: 400, param: undefined },
    { name: 'a lone surrogate in a path id (invalid UTF-8)', applies: (r) => r.id !== undefined, request: (r) => ({ path: at(r, `${r.id}%ED%A0%80`) }), status: 400, param: undefined },
    { name: 'NUL in a query parameter', applies: everywhere, request: (r) => ({ path: `${at(r)}?agent_id=agt_x%00` }), status: 400, param: 'agent_id' },
    { name: 'NUL in a query parameter name', applies: everywhere, request: (r) => ({ path: `${at(r)}?agent%00id=1` }), status: 400, param: 'query' },
    { name: 'NUL in a cursor', applies: (r) => r.list === true, request: (r) => ({ path: `${at(r)}?cursor=${Buffer.from('c1:agt_\u0000x').toString('base64url')}` }), status: 400, param: 'cursor' },
  ];
  const table = () => cases.flatMap((c) => everyRoute().filter(c.applies).map((r) => ({ c, r })));

  test('each kind of input answers its 4xx on each route that reads it', async () => {
    const wrong: string[] = [];
    let count = 0;
    for (const { c, r } of table()) {
      const { path, body, headers } = c.request(r);
      const res = await send(r.method, path, body, headers);
      count += 1;
      let error: { code?: string; param?: string } | undefined;
      try {
        error = JSON.parse(res.text).error;
      } catch {
        // reported below
      }
      if (res.status !== c.status || error?.code !== 'invalid_request' || error?.param !== c.param) {
        wrong.push(`${c.name}: ${r.method} ${path} → ${res.status} ${res.text.slice(0, 160)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(count).toBeGreaterThan(500);
    // Nothing was changed on the way: the agent still answers and the audit chain is whole.
    expect((await ctx.client(key).get(`/v1/agents/${ids.agent}`)).body.status).toMatch(/^(active|frozen)$/);
    expect((await ctx.client(key).get('/v1/audit-logs/verify')).body.valid).toBe(true);
  }, 120_000);
});
