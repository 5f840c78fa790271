/**
 * Attack: another spelling of a path, to skip a rule keyed on the path. Express routed
 * case-insensitively and forgave a trailing slash, while the signature gate and idempotency each
 * compared the path as written: an unsigned quick-start request with a `dlt_` vault token whose
 * agent must sign was approved on `/AUTHORIZE`, `/Authorize`, `/authorize/` and on the absolute
 * form `POST http://host/authorize`, and `/v1/AUTHORIZE` twice under one Idempotency-Key made two
 * decisions. DECISIONS §19: routing is case-sensitive and strict (404), the route is decided once by
 * what the router matched, and an absolute-form target with another authority is 400.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { requireSignedDirect, signingAgent, spendOf, type SigningAgent } from '../support/agent-signing.js';

let ctx: TestContext;
let acct: TestAccount;
let strict: SigningAgent;
let vaultToken: string;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  acct = await ctx.account();
  strict = await signingAgent(ctx.database.db, acct.test, { required: true });
  const vault = await acct.test.post('/vaults', { name: 'v', agent_id: strict.agentId, daily_limit: 100_000, max_single_transaction: 50_000 });
  expect(vault.status, vault.text).toBe(201);
  vaultToken = vault.body.token;
  // The vault binds its agent to a policy of its own: the flag goes on that one.
  const policyId = (await ctx.database.db.selectFrom('agents').select('policy_id').where('id', '=', strict.agentId).executeTakeFirstOrThrow()).policy_id!;
  await requireSignedDirect(ctx.database.db, policyId);
});
afterAll(() => ctx?.close());

/** One request exactly as written: the target is sent as given (an absolute form included), with the given Host. */
function raw(target: string, opts: { bearer: string; body?: unknown; host?: string; headers?: Record<string, string> }) {
  const url = new URL(ctx.baseUrl);
  const body = opts.body === undefined ? undefined : Buffer.from(JSON.stringify(opts.body));
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path: target,
        agent: false,
        setHost: false,
        headers: {
          host: opts.host ?? url.host,
          authorization: `Bearer ${opts.bearer}`,
          ...(body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {}),
          ...opts.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c)).on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode!, body: text.startsWith('{') ? JSON.parse(text) : text });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const decisions = async (agentId: string) => (await ctx.database.db.selectFrom('decisions').select('id').where('agent_id', '=', agentId).execute()).length;
const quickstartBody = () => ({ token: vaultToken, amount: 100, merchant_name: 'shop.example' });

describe('quick-start POST /authorize with a vault whose agent must sign', () => {
  test('the route itself: unsigned → 401 signature_required', async () => {
    const res = await raw('/authorize', { bearer: acct.test.key, body: quickstartBody() });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('signature_required');
  });

  test.each(['/AUTHORIZE', '/Authorize', '/authorize/', '/authorize//', '/AUTHORIZE/?x=1'])('%s is no route: 404, nothing decided', async (target) => {
    const before = await decisions(strict.agentId);
    const res = await raw(target, { bearer: acct.test.key, body: quickstartBody() });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect(await decisions(strict.agentId)).toBe(before);
  });

  test('the absolute form with our own authority is the route, and meets the gate: 401 signature_required', async () => {
    const host = new URL(ctx.baseUrl).host;
    const res = await raw(`http://${host}/authorize`, { bearer: acct.test.key, body: quickstartBody() });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('signature_required');
    const upper = await raw(`HTTP://${host.toUpperCase()}/AUTHORIZE`, { bearer: acct.test.key, body: quickstartBody() });
    expect(upper.status).toBe(404);
  });

  test('the absolute form with another authority: 400 invalid_request naming Host, nothing decided', async () => {
    const before = await decisions(strict.agentId);
    for (const target of ['http://elsewhere.example/authorize', 'https://elsewhere.example:8443/v1/authorize']) {
      const res = await raw(target, { bearer: acct.test.key, body: quickstartBody() });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'Host' });
    }
    expect(await decisions(strict.agentId)).toBe(before);
  });
});

describe('/v1/authorize under another spelling, with an Idempotency-Key', () => {
  test('/v1/AUTHORIZE and /V1/authorize twice under one key: 404 each time, no decision', async () => {
    const { agentId } = await signingAgent(ctx.database.db, acct.test);
    for (const target of ['/v1/AUTHORIZE', '/v1/AUTHORIZE', '/V1/authorize', '/v1/authorize/']) {
      const res = await raw(target, { bearer: acct.test.key, body: spendOf(agentId), headers: { 'idempotency-key': 'one-key' } });
      expect(res.status, target).toBe(404);
    }
    expect(await decisions(agentId)).toBe(0);
    // The route itself, twice under the key: one decision, replayed.
    const a = await raw('/v1/authorize', { bearer: acct.test.key, body: spendOf(agentId), headers: { 'idempotency-key': 'one-key' } });
    const b = await raw('/v1/authorize', { bearer: acct.test.key, body: spendOf(agentId), headers: { 'idempotency-key': 'one-key' } });
    expect(a.status).toBe(200);
    expect(b.body.decision_id).toBe(a.body.decision_id);
    expect(await decisions(agentId)).toBe(1);
  });

  test("an agent key that must sign is refused on every spelling the router takes, and no spelling skips it", async () => {
    for (const target of ['/v1/authorize', `http://${new URL(ctx.baseUrl).host}/v1/authorize`]) {
      const res = await raw(target, { bearer: strict.bearer, body: spendOf(strict.agentId) });
      expect(res.status, target).toBe(401);
      expect(res.body.error.code).toBe('signature_required');
    }
    // Other spellings are no route, and still meet the gate first: an agent key that must sign is refused on every path.
    for (const target of ['/v1/Authorize', '/v1/authorize/']) {
      const res = await raw(target, { bearer: strict.bearer, body: spendOf(strict.agentId) });
      expect(res.status, target).toBe(401);
      expect(res.body.error.code).toBe('signature_required');
    }
    expect(await decisions(strict.agentId)).toBe(0);
  });
});
