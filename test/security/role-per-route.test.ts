/**
 * Attack: a reviewer or agent key calls an operation its role may not call, with whatever input it
 * likes (a valid body, a malformed one, an Idempotency-Key), to change something or to learn
 * something from how its input is judged. Table-driven from the route declarations, so a new route
 * is covered the day it is declared: every role its declaration leaves out gets 403 forbidden
 * before its input is read, and nothing is written.
 */
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Role } from '../../src/db/database.js';
import { ROUTES } from '../../src/http/routes/index.js';
import { createTestContext, policyBody, type Client, type TestContext } from '../support/context.js';

let ctx: TestContext;
let accountId: string;
const keys = {} as Record<Exclude<Role, 'admin'>, Client>;
let ids: Record<string, string>;

beforeAll(async () => {
  // Three requests per route and role: more than the test-mode limit of one account allows in a minute.
  ctx = await createTestContext({ testModeRateLimit: 1000 });
  const acct = await ctx.account('growth');
  accountId = acct.id;
  const admin = acct.test;
  const policy = (await admin.post('/v1/policies', policyBody({ require_approval_above: 100 }))).body.id;
  const agent = (await admin.post('/v1/agents', { name: 'target', policy_id: policy })).body.id;
  const held = (await admin.post('/v1/authorize', { agent_id: agent, amount: 500, currency: 'USD', vendor: 'shop.example' })).body.decision_id;
  const endpoint = (await admin.post('/v1/webhook-endpoints', { url: 'https://93.184.216.34/hook', events: ['authorize.held'] })).body.id;
  const event = (await admin.get('/v1/events?type=authorize.held')).body.data[0].id;
  const key = (await admin.post('/v1/api-keys', { name: 'target', role: 'reviewer' })).body.id;
  keys.reviewer = ctx.client((await admin.post('/v1/api-keys', { name: 'r', role: 'reviewer' })).body.key);
  keys.agent = ctx.client((await admin.post('/v1/api-keys', { name: 'a', role: 'agent', agent_id: agent })).body.key);
  const agentKey = (await admin.post(`/v1/agents/${agent}/keys`, { jwk: generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }) })).body.id;
  // A real object behind every path parameter, so nothing answers 404 in place of 403: the first
  // parameter by the path before it, a later one (`:key_id`) by its name.
  ids = { '/v1/agents/': agent, '/v1/policies/': policy, '/v1/decisions/': held, '/v1/approvals/': held, '/v1/webhook-endpoints/': endpoint, '/v1/events/': event, '/v1/api-keys/': key, ':key_id': agentKey };
});
afterAll(() => ctx?.close());

const pathOf = (path: string) =>
  path.replace(/^(.*?\/)(:[a-z_]+)/, (_m, base: string) => `${base}${ids[base] ?? 'missing'}`).replace(/:[a-z_]+/g, (name) => ids[name] ?? 'missing');

const written = async () =>
  Number((await ctx.database.db.selectFrom('audit_records').select((eb) => eb.fn.countAll().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow()).n);

const forbidden = ROUTES.flatMap((route) =>
  route.roles === 'public'
    ? []
    : (['reviewer', 'agent'] as const).filter((role) => !(route.roles as readonly Role[]).includes(role)).map((role) => [role, route.method.toUpperCase(), route.path] as const),
);

describe('a key whose role a route does not list', () => {
  test('the table covers both roles and the quick-start surface', () => {
    expect(forbidden.filter(([role]) => role === 'reviewer').length).toBeGreaterThan(10);
    expect(forbidden.filter(([role]) => role === 'agent').length).toBeGreaterThan(20);
    expect(forbidden.some(([, , path]) => !path.startsWith('/v1/'))).toBe(true);
  });

  test.each(forbidden)('%s key: %s %s answers 403 forbidden whatever its input, and writes nothing', async (role, method, path) => {
    const client = keys[role];
    const url = pathOf(path);
    const before = await written();
    const inputs: Array<[unknown, Record<string, string>]> = [
      [{}, {}],
      [{ unknown_field: 'x', amount: 'not a number' }, {}],
      [{ unknown_field: 'x' }, { 'Idempotency-Key': `role-${role}-${method}-${path}` }],
    ];
    for (const [body, headers] of inputs) {
      const res =
        method === 'GET'
          ? await client.get(`${url}?limit=not-a-number&unknown=1`, headers)
          : method === 'DELETE'
            ? await client.delete(url, headers)
            : method === 'PATCH'
              ? await client.patch(url, body, headers)
              : await client.post(url, body, headers);
      expect(res.status, `${method} ${url} ${JSON.stringify(body)} → ${res.text.slice(0, 200)}`).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
      expect(res.body.error.param).toBeUndefined();
    }
    expect(await written()).toBe(before);
  });
});
