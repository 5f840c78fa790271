/**
 * Attack: a key of one mode (or of another account) lists or reads objects outside its scope.
 * Three scopes each hold one object of every kind; every list and read route is asked from every
 * scope, and only that scope's own objects may ever come back. Table-driven so a new route is one row.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestContext, policyBody, type Client, type TestContext } from '../support/context.js';

let ctx: TestContext;

interface Seeded {
  policy: string;
  agent: string;
  held: string;
  endpoint: string;
  event: string;
  delivery: string;
  apiKey: string;
  audit: string[];
}

/** One object of each kind in the client's scope: a held decision with its event and delivery. */
async function seed(client: Client): Promise<Seeded> {
  const endpoint = (await client.post('/v1/webhook-endpoints', { url: 'https://93.184.216.34/hook', events: ['authorize.held'] })).body.id;
  const policy = (await client.post('/v1/policies', policyBody({ require_approval_above: 100 }))).body.id;
  const agent = (await client.post('/v1/agents', { name: 'scoped', policy_id: policy })).body.id;
  const held = (await client.post('/v1/authorize', { agent_id: agent, amount: 500, currency: 'USD', vendor: 'shop.example' })).body;
  expect(held.decision).toBe('held');
  const apiKey = (await client.post('/v1/api-keys', { name: 'scoped', role: 'reviewer' })).body.id;
  const event = (await client.get('/v1/events?type=authorize.held')).body.data[0].id;
  const delivery = (await client.post(`/v1/events/${event}/redeliver`)).body.data[0].id;
  const audit = (await client.get('/v1/audit-logs?limit=100')).body.data.map((r: { id: string }) => r.id);
  expect(audit.length).toBeGreaterThan(0);
  return { policy, agent, held: held.decision_id, endpoint, event, delivery, apiKey, audit };
}

const idOf = (item: { id?: string; decision_id?: string }) => item.id ?? item.decision_id;

/** Every list route, with the seeded objects the scope's own list must show. */
const lists: { route: string; path: (s: Seeded) => string; own: (s: Seeded) => string[] }[] = [
  { route: 'GET /v1/policies', path: () => '/v1/policies?limit=100', own: (s) => [s.policy] },
  { route: 'GET /v1/agents', path: () => '/v1/agents?limit=100', own: (s) => [s.agent] },
  { route: 'GET /v1/approvals', path: () => '/v1/approvals?limit=100', own: (s) => [s.held] },
  { route: 'GET /v1/approvals?status=pending', path: () => '/v1/approvals?status=pending&limit=100', own: (s) => [s.held] },
  { route: 'GET /v1/webhook-endpoints', path: () => '/v1/webhook-endpoints?limit=100', own: (s) => [s.endpoint] },
  { route: 'GET /v1/webhook-endpoints/:id/deliveries', path: (s) => `/v1/webhook-endpoints/${s.endpoint}/deliveries?limit=100`, own: (s) => [s.delivery] },
  { route: 'GET /v1/events', path: () => '/v1/events?limit=100', own: (s) => [s.event] },
  { route: 'GET /v1/api-keys', path: () => '/v1/api-keys?limit=100', own: (s) => [s.apiKey] },
  { route: 'GET /v1/audit-logs', path: () => '/v1/audit-logs?limit=100', own: (s) => s.audit },
];

/** Every read route of one object. */
const reads: { route: string; path: (s: Seeded) => string }[] = [
  { route: 'GET /v1/policies/:id', path: (s) => `/v1/policies/${s.policy}` },
  { route: 'GET /v1/agents/:id', path: (s) => `/v1/agents/${s.agent}` },
  { route: 'GET /v1/decisions/:id', path: (s) => `/v1/decisions/${s.held}` },
  { route: 'GET /v1/webhook-endpoints/:id', path: (s) => `/v1/webhook-endpoints/${s.endpoint}` },
  { route: 'GET /v1/webhook-endpoints/:id/deliveries', path: (s) => `/v1/webhook-endpoints/${s.endpoint}/deliveries` },
  { route: 'GET /v1/events/:id', path: (s) => `/v1/events/${s.event}` },
];

type ScopeName = 'account A, test mode' | 'account A, live mode' | 'account B, test mode' | 'account B, live mode';
const scopes: Record<ScopeName, { client: Client; seeded: Seeded }> = {} as never;
const names = (): ScopeName[] => Object.keys(scopes) as ScopeName[];

beforeAll(async () => {
  ctx = await createTestContext();
  const [a, b] = await Promise.all([ctx.account('growth'), ctx.account('growth')]);
  const clients: [ScopeName, Client][] = [
    ['account A, test mode', a.test],
    ['account A, live mode', a.live!],
    ['account B, test mode', b.test],
    ['account B, live mode', b.live!],
  ];
  for (const [name, client] of clients) scopes[name] = { client, seeded: await seed(client) };
});
afterAll(() => ctx?.close());

describe.each(lists)('$route', ({ path, own }) => {
  test('from each scope lists its own objects and none of any other mode or account', async () => {
    for (const viewer of names()) {
      const { client, seeded } = scopes[viewer];
      const res = await client.get(path(seeded));
      expect(res.status, viewer).toBe(200);
      const listed = new Set<string>(res.body.data.map(idOf));
      for (const id of own(seeded)) expect(listed.has(id), `${viewer} lists its own ${id}`).toBe(true);
      for (const other of names().filter((n) => n !== viewer)) {
        for (const id of own(scopes[other].seeded)) expect(listed.has(id), `${viewer} lists ${other}'s ${id}`).toBe(false);
      }
    }
  });
});

describe.each(reads)('$route', ({ path }) => {
  test("reads its own scope's object and answers 404 for every other mode's and account's", async () => {
    for (const viewer of names()) {
      const { client } = scopes[viewer];
      for (const owner of names()) {
        const res = await client.get(path(scopes[owner].seeded));
        expect(res.status, `${viewer} reading ${owner}'s`).toBe(owner === viewer ? 200 : 404);
      }
    }
  });
});

describe('GET /v1/usage', () => {
  test("counts only the caller's own account's live checks", async () => {
    // Each live scope made one authorize call in seed(); the test modes are free and uncounted.
    for (const viewer of ['account A, live mode', 'account B, live mode'] as const) {
      expect((await scopes[viewer].client.get('/v1/usage')).body, viewer).toMatchObject({ checks: 1 });
    }
  });
});
