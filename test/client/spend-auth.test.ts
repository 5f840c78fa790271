/**
 * `SpendAuth` of `spend-auth/client` against the real service on 127.0.0.1: approved, denied, held
 * and then approved by a reviewer key while `authorize(…, {wait})` waits, capture and void, and
 * the typed error of a refused call. The workflow engine is the FAKE inline gateway
 * (test/support/fake-gateway.ts): no Temporal server runs here; the approval goes through the API.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SpendAuth, SpendAuthError, type Decision, type Fetch } from '../../src/client/index.js';
import { agentWithPolicy, createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { FakeInlineGateway } from '../support/fake-gateway.js';

let ctx: TestContext;
let acct: TestAccount;
let agentId: string;
let agentKey: string;

beforeAll(async () => {
  ctx = await createTestContext({ gateway: (deps) => new FakeInlineGateway(deps), testModeRateLimit: 10_000 });
  acct = await ctx.account();
  ({ agentId } = await agentWithPolicy(acct.test, { require_approval_above: 1_000, vendor_denylist: ['casino.example'] }));
  agentKey = (await acct.test.post('/v1/api-keys', { name: 'agent', role: 'agent', agent_id: agentId })).body.key;
});
afterAll(() => ctx?.close());

/** The real fetch, with each request's method and path noted (an observer, not a fake). */
function observed(): { fetch: Fetch; seen: string[] } {
  const seen: string[] = [];
  return { seen, fetch: (req) => (seen.push(`${req.method} ${new URL(req.url).pathname}${new URL(req.url).search}`), fetch(req)) };
}

const client = (key: string, f?: Fetch) => new SpendAuth({ baseUrl: `${ctx.baseUrl}/v1`, apiKey: key, ...(f ? { fetch: f } : {}) });

describe('authorize', () => {
  test('approved: the decision object of the API, with its gca_ token', async () => {
    const d: Decision = await client(agentKey).authorize({ agent_id: agentId, amount: 500, currency: 'USD', vendor: 'openai.com', category: 'saas' });
    expect(d).toMatchObject({ object: 'decision', decision: 'approved', status: 'approved', amount: 500, vendor: 'openai.com' });
    expect(d.authorization_token).toMatch(/^gca_/);
    expect((await acct.test.get(`/v1/decisions/${d.decision_id}`)).body.decision).toBe('approved');
  });

  test('denied is a returned decision, not an error', async () => {
    const d = await client(agentKey).authorize({ agent_id: agentId, amount: 500, currency: 'USD', vendor: 'casino.example' });
    expect(d).toMatchObject({ decision: 'denied', reason_code: 'policy_denied' });
    expect(d.authorization_token).toBeUndefined();
  });

  test('held without wait is answered at once, held', async () => {
    const { fetch: f, seen } = observed();
    const d = await client(agentKey, f).authorize({ agent_id: agentId, amount: 5_000, currency: 'USD', vendor: 'aws.amazon.com' });
    expect(d).toMatchObject({ decision: 'held', status: 'pending', reason_code: 'approval_required' });
    expect(seen).toEqual(['POST /v1/authorize']);
  });

  test('held, then approved by a reviewer key while authorize waits: the approved decision with its token', async () => {
    const reviewer = (await acct.test.post('/v1/api-keys', { name: 'reviewer', role: 'reviewer' })).body.key as string;
    const { fetch: f, seen } = observed();
    const waiting = client(agentKey, f).authorize({ agent_id: agentId, amount: 4_000, currency: 'USD', vendor: 'hotel.example' }, { wait: 25 });
    // The reviewer finds the pending request as a person would, in the approvals list.
    let id: string | undefined;
    for (let i = 0; i < 100 && !id; i++) {
      const pending = await ctx.client(reviewer).get(`/v1/approvals?status=pending&agent_id=${agentId}`);
      id = (pending.body.data as { decision_id: string; amount: number }[]).find((d) => d.amount === 4_000)?.decision_id;
      if (!id) await new Promise((r) => setTimeout(r, 50));
    }
    expect(id).toBeDefined();
    // Give the client time to be inside its long-poll, so the approval is what wakes it.
    for (let i = 0; i < 100 && !seen.some((s) => s.startsWith(`GET /v1/decisions/${id}?wait=`)); i++) await new Promise((r) => setTimeout(r, 20));
    const approved = await ctx.client(reviewer).post(`/v1/approvals/${id}/approve`, { note: 'fine' });
    expect(approved.status).toBe(200);
    const d = await waiting;
    expect(d).toMatchObject({ decision_id: id, decision: 'approved', status: 'approved' });
    expect(d.authorization_token).toMatch(/^gca_/);
    expect(seen[0]).toBe('POST /v1/authorize');
    // The whole seconds left of the 25 when the poll is sent (24 once a millisecond has passed): never past the deadline.
    expect([`GET /v1/decisions/${id}?wait=25`, `GET /v1/decisions/${id}?wait=24`]).toContain(seen[1]);
  });

  test('a wait that runs out returns the decision still held', async () => {
    const started = Date.now();
    const d = await client(agentKey).authorize({ agent_id: agentId, amount: 3_000, currency: 'USD', vendor: 'flights.example' }, { wait: 1 });
    expect(d).toMatchObject({ decision: 'held', status: 'pending' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    const again = await client(agentKey).getDecision(d.decision_id);
    expect(again.decision).toBe('held');
  });

  test('getDecision(id, {wait}) follows a held decision to its denial', async () => {
    const held = await client(agentKey).authorize({ agent_id: agentId, amount: 3_500, currency: 'USD', vendor: 'gifts.example' });
    const waiting = client(agentKey).getDecision(held.decision_id, { wait: 20 });
    await new Promise((r) => setTimeout(r, 200));
    expect((await acct.test.post(`/v1/approvals/${held.decision_id}/deny`, { note: 'no' })).status).toBe(200);
    expect(await waiting).toMatchObject({ decision: 'denied', status: 'denied' });
  });
});

describe('capture and void', () => {
  test('capture (admin key) records what the rail charged; void releases another approval; both with an Idempotency-Key', async () => {
    const keys: (string | null)[] = [];
    const admin = client(acct.test.key, (req) => (keys.push(req.headers.get('idempotency-key')), fetch(req)));
    const a = await client(agentKey).authorize({ agent_id: agentId, amount: 800, currency: 'USD', vendor: 'openai.com' });
    const captured = await admin.capture(a.decision_id, { amount: 750, metadata: { charge: 'ch_1' } });
    expect(captured.capture).toMatchObject({ status: 'captured', captured_amount: 750 });
    const b = await client(agentKey).authorize({ agent_id: agentId, amount: 900, currency: 'USD', vendor: 'openai.com' });
    const voided = await admin.void(b.decision_id);
    expect(voided.capture).toMatchObject({ status: 'voided' });
    expect(keys).toHaveLength(2);
    expect(keys.every((k) => typeof k === 'string' && k.length > 0)).toBe(true);
    expect(keys[0]).not.toBe(keys[1]);
    // A second capture is a 409 conflict, thrown.
    await expect(admin.capture(a.decision_id)).rejects.toMatchObject({ name: 'SpendAuthError', status: 409, code: 'conflict' });
  });
});

describe('errors', () => {
  test('a 400 throws SpendAuthError with status, code, param, the request id, the message; it is not retried', async () => {
    const { fetch: f, seen } = observed();
    const err = await client(agentKey, f)
      .authorize({ agent_id: agentId, amount: 12.5, currency: 'USD', vendor: 'openai.com' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SpendAuthError);
    expect(err).toBeInstanceOf(Error);
    const e = err as SpendAuthError;
    expect({ status: e.status, code: e.code, param: e.param, name: e.name }).toEqual({ status: 400, code: 'invalid_request', param: 'amount', name: 'SpendAuthError' });
    expect(e.requestId).toMatch(/^req_/);
    expect(e.message.length).toBeGreaterThan(0);
    expect(seen).toEqual(['POST /v1/authorize']);
  });

  test('the request id is the one the service logged for the call (X-Request-Id)', async () => {
    let header: string | null = null;
    const e = (await client(agentKey, async (req) => {
      const res = await fetch(req);
      header = res.headers.get('x-request-id');
      return res;
    })
      .getDecision('dec_does_not_exist')
      .catch((x: unknown) => x)) as SpendAuthError;
    expect({ status: e.status, code: e.code }).toEqual({ status: 404, code: 'not_found' });
    expect(e.requestId).toBe(header);
  });

  test('an unknown key: 401 unauthorized, not retried', async () => {
    const { fetch: f, seen } = observed();
    const e = (await client(`gc_test_${'x'.repeat(40)}`, f)
      .authorize({ agent_id: agentId, amount: 1, currency: 'USD', vendor: 'a.example' })
      .catch((x: unknown) => x)) as SpendAuthError;
    expect({ status: e.status, code: e.code, param: e.param }).toEqual({ status: 401, code: 'unauthorized', param: null });
    expect(seen).toHaveLength(1);
  });

  test('a bad wait is refused before anything is sent', async () => {
    const { fetch: f, seen } = observed();
    await expect(client(agentKey, f).getDecision('dec_x', { wait: -1 })).rejects.toMatchObject({ code: 'invalid_request', param: 'wait', status: null });
    expect(seen).toEqual([]);
  });
});
