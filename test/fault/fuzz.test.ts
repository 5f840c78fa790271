import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, policyBody, type TestContext } from '../support/context.js';
import { FakeInlineGateway } from '../support/fake-gateway.js';

/** Generated malformed requests across every POST and PATCH endpoint: never a 5xx, never a stack trace. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
let ctx: TestContext;
let key: string;
let ids: Record<string, string>;

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
});
afterAll(() => ctx?.close());

const routes = (): [string, string][] => [
  ['POST', '/v1/authorize'],
  ['POST', '/v1/agents'],
  ['PATCH', `/v1/agents/${ids.agent}`],
  ['POST', `/v1/agents/${ids.agent}/freeze`],
  ['POST', `/v1/agents/${ids.agent}/unfreeze`],
  ['POST', '/v1/policies'],
  ['PATCH', `/v1/policies/${ids.policy}`],
  ['POST', '/v1/policies/simulate'],
  ['POST', '/v1/api-keys'],
  ['POST', '/v1/authorization-tokens/verify'],
  ['POST', '/v1/webhook-endpoints'],
  ['PATCH', `/v1/webhook-endpoints/${ids.endpoint}`],
  ['POST', `/v1/webhook-endpoints/${ids.endpoint}/rotate-secret`],
  ['POST', `/v1/events/${ids.event}/redeliver`],
  ['POST', `/v1/approvals/${ids.decision}/approve`],
  ['POST', `/v1/approvals/${ids.decision}/deny`],
  ['POST', '/agents'],
  ['POST', '/vaults'],
  ['POST', '/authorize'],
];

/** Field names the endpoints know, so generated objects reach the validators' interesting branches. */
const FIELDS = ['agent_id', 'amount', 'currency', 'vendor', 'category', 'metadata', 'name', 'policy_id', 'budget_monthly', 'budget_single_max', 'budget_daily',
  'vendor_allowlist', 'vendor_denylist', 'require_approval_above', 'categories_allowed', 'active', 'velocity_limits', 'auto_freeze', 'duplicate_window_seconds',
  'status', 'kyc_status', 'role', 'mode', 'token', 'url', 'events', 'enabled', 'note', 'policy', 'requests', 'from', 'to', 'daily_limit',
  'max_single_transaction', 'merchant_name', 'merchant_category', 'agent_type', 'endpoint_id', '__proto__', 'constructor'];

const value = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(-1, 0, 1.5, 2 ** 53, -(2 ** 63), Number.MAX_VALUE, '', ' ', 'USD', 'usd', '1e400', '12.345', 'x'.repeat(300), '2026-13-45', 'http://127.0.0.1', '*', null),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
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
