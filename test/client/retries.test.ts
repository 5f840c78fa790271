/**
 * What `SpendAuth` retries, and how, against the real service behind a real proxy on 127.0.0.1
 * that fails the attempts a test names (test/support/faulty-proxy.ts): a connection dropped after
 * the service decided and a gateway's 503 get the same decision on the retry (one Idempotency-Key
 * per call), a reset or a stalled connection is retried, `Retry-After` is waited out (the
 * service's own 429 included), and nothing else is retried.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RateLimitError, SpendAuth, SpendAuthError, type Fetch } from '../../src/client/index.js';
import { startHttpServer, type RunningServer } from '../../src/http/server.js';
import { createLogger } from '../../src/kernel/logger.js';
import { agentWithPolicy, createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { startFaultyProxy, type FaultyProxy } from '../support/faulty-proxy.js';
import { TEST_IDEMPOTENCY_KEY } from '../support/server-keys.js';

let ctx: TestContext;
let proxy: FaultyProxy;
let acct: TestAccount;
let agentId: string;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 10_000 });
  proxy = await startFaultyProxy(ctx.baseUrl);
  acct = await ctx.account();
  ({ agentId } = await agentWithPolicy(acct.test));
});
afterAll(async () => {
  await proxy?.close();
  await ctx?.close();
});

const through = (base: string, opts: { maxRetries?: number; timeoutMs?: number; fetch?: Fetch } = {}) => new SpendAuth({ baseUrl: `${base}/v1`, apiKey: acct.test.key, ...opts });
const request = (vendor: string, amount = 300) => ({ agent_id: agentId, amount, currency: 'USD', vendor });

/** The decisions the service recorded for a vendor: a retried call must never decide twice. */
const decisionsFor = (vendor: string) => ctx.database.db.selectFrom('decisions').select('id').where('agent_id', '=', agentId).where('vendor', '=', vendor).execute();

function attemptsSince(from: number) {
  return proxy.requests.slice(from);
}

describe('retried with the same Idempotency-Key: the same decision, decided once', () => {
  test('a connection dropped after the service decided', async () => {
    const from = proxy.requests.length;
    proxy.plan('drop-after');
    const d = await through(proxy.url).authorize(request('dropped.example'));
    expect(d.decision).toBe('approved');
    const attempts = attemptsSince(from);
    expect(attempts.map((a) => a.fault)).toEqual(['drop-after', 'pass']);
    expect(attempts[0]!.headers['idempotency-key']).toBeTruthy();
    expect(attempts[1]!.headers['idempotency-key']).toBe(attempts[0]!.headers['idempotency-key']);
    expect(attempts[1]!.body).toBe(attempts[0]!.body);
    expect(await decisionsFor('dropped.example')).toEqual([{ id: d.decision_id }]);
  });

  test("a gateway's 503 (JSON, Retry-After 0) after the service decided", async () => {
    const from = proxy.requests.length;
    proxy.plan({ status: 503, retryAfter: '0', forward: true });
    const d = await through(proxy.url).authorize(request('gateway.example'));
    expect(attemptsSince(from).map((a) => a.fault)).toEqual([{ status: 503, retryAfter: '0', forward: true }, 'pass']);
    expect(await decisionsFor('gateway.example')).toEqual([{ id: d.decision_id }]);
  });

  test("a load balancer's HTML 503 with Retry-After 1 is waited out before the retry", async () => {
    const from = proxy.requests.length;
    proxy.plan({ status: 503, retryAfter: '1', forward: false, html: true });
    const d = await through(proxy.url).authorize(request('html503.example'));
    expect(d.decision).toBe('approved');
    const [first, second] = attemptsSince(from);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1_000);
  });
});

describe('network errors', () => {
  test('connections reset before the service saw them are retried; the third attempt decides', async () => {
    const from = proxy.requests.length;
    proxy.plan('reset-before', 'reset-before');
    const d = await through(proxy.url).authorize(request('reset.example'));
    expect(d.decision).toBe('approved');
    expect(attemptsSince(from).map((a) => a.fault)).toEqual(['reset-before', 'reset-before', 'pass']);
  });

  test('an attempt that does not answer within timeoutMs is retried', async () => {
    const from = proxy.requests.length;
    proxy.plan('stall');
    const d = await through(proxy.url, { timeoutMs: 500 }).authorize(request('stalled.example'));
    expect(d.decision).toBe('approved');
    expect(attemptsSince(from).map((a) => a.fault)).toEqual(['stall', 'pass']);
  });

  test('a service that cannot be reached: SpendAuthError network_error, status null, after maxRetries + 1 attempts', async () => {
    const from = proxy.requests.length;
    proxy.plan('reset-before', 'reset-before', 'reset-before');
    const e = (await through(proxy.url, { maxRetries: 2 })
      .authorize(request('unreachable.example'))
      .catch((x: unknown) => x)) as SpendAuthError;
    expect(e).toBeInstanceOf(SpendAuthError);
    expect({ status: e.status, code: e.code, param: e.param, requestId: e.requestId }).toEqual({ status: null, code: 'network_error', param: null, requestId: null });
    expect(attemptsSince(from)).toHaveLength(3);
    expect(await decisionsFor('unreachable.example')).toEqual([]);
  });

  test('a refused connection (nothing listening) is a network_error too', async () => {
    const e = (await new SpendAuth({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: acct.test.key, maxRetries: 1 })
      .authorize(request('refused.example'))
      .catch((x: unknown) => x)) as SpendAuthError;
    expect({ status: e.status, code: e.code }).toEqual({ status: null, code: 'network_error' });
    expect(e.message).toMatch(/ECONNREFUSED|could not reach/i);
  });
});

describe('not retried', () => {
  test('a 500 is final (status and the envelope of the answer), as is a 409', async () => {
    const from = proxy.requests.length;
    proxy.plan({ status: 500, forward: false });
    const e = (await through(proxy.url).authorize(request('five-hundred.example')).catch((x: unknown) => x)) as SpendAuthError;
    expect({ status: e.status, code: e.code }).toEqual({ status: 500, code: 'internal_error' });
    expect(attemptsSince(from)).toHaveLength(1);

    const spend = through(ctx.baseUrl);
    await spend.authorize(request('conflict.example'), { idempotencyKey: 'purchase-77' });
    const conflict = (await spend.authorize(request('conflict.example', 301), { idempotencyKey: 'purchase-77' }).catch((x: unknown) => x)) as SpendAuthError;
    expect({ status: conflict.status, code: conflict.code, param: conflict.param }).toEqual({ status: 409, code: 'conflict', param: 'Idempotency-Key' });
  });

  test('a Retry-After over 60 s is not waited out: RateLimitError at once, with retryAfter', async () => {
    const from = proxy.requests.length;
    proxy.plan({ status: 429, retryAfter: '120', forward: false });
    const e = (await through(proxy.url).authorize(request('slow-down.example')).catch((x: unknown) => x)) as RateLimitError;
    expect(e).toBeInstanceOf(RateLimitError);
    expect(e).toBeInstanceOf(SpendAuthError);
    expect({ status: e.status, code: e.code, retryAfter: e.retryAfter }).toEqual({ status: 429, code: 'rate_limited', retryAfter: 120 });
    expect(attemptsSince(from)).toHaveLength(1);
  });
});

describe('refused before sending', () => {
  test('an empty (or non-string) idempotencyKey: invalid_request, param idempotencyKey, status null, nothing sent', async () => {
    const from = proxy.requests.length;
    const spend = through(proxy.url);
    const refusals = [
      spend.authorize(request('empty-key.example'), { idempotencyKey: '' }),
      spend.authorize(request('empty-key.example'), { idempotencyKey: 42 as unknown as string }),
      spend.capture('dec_x', {}, { idempotencyKey: '' }),
      spend.void('dec_x', { idempotencyKey: '' }),
    ];
    for (const p of refusals) {
      const e = (await p.catch((x: unknown) => x)) as SpendAuthError;
      expect(e).toBeInstanceOf(SpendAuthError);
      expect({ status: e.status, code: e.code, param: e.param }).toEqual({ status: null, code: 'invalid_request', param: 'idempotencyKey' });
    }
    expect(attemptsSince(from)).toEqual([]);
  });
});

describe('an error answer without the error envelope', () => {
  test('a 429: RateLimitError rate_limited (retryAfter with its fractions); any other status: unexpected_response', async () => {
    const cases: { body: string; status: number; html?: boolean; retryAfter?: string; code: string }[] = [
      { status: 429, body: '{"message":"slow down"}', retryAfter: '0.5', code: 'rate_limited' },
      { status: 429, body: '<html>too many</html>', html: true, code: 'rate_limited' },
      { status: 404, body: '{}', code: 'unexpected_response' },
      { status: 400, body: '{"error":"bad"}', code: 'unexpected_response' },
      { status: 502, body: '', code: 'unexpected_response' },
      { status: 503, body: '<html>down</html>', html: true, code: 'unexpected_response' },
    ];
    for (const c of cases) {
      proxy.plan({ status: c.status, body: c.body, forward: false, ...(c.html ? { html: true } : {}), ...(c.retryAfter ? { retryAfter: c.retryAfter } : {}) });
      const e = (await through(proxy.url, { maxRetries: 0 }).authorize(request('no-envelope.example')).catch((x: unknown) => x)) as SpendAuthError;
      expect({ status: e.status, code: e.code }, c.body).toEqual({ status: c.status, code: c.code });
      expect(e instanceof RateLimitError, c.body).toBe(c.status === 429);
      if (c.retryAfter) expect((e as RateLimitError).retryAfter).toBe(0.5);
    }
  });
});

describe("the service's own 429", () => {
  let limited: RunningServer | undefined;
  afterAll(() => limited?.close(100));

  test('over the test-mode limit: the Retry-After the service sends is waited out, then the call succeeds', async () => {
    // Another API process on the same database, its test-mode limit 2 a minute and its clock set
    // so that the current window ends about 2.5 s from now (an hour ahead: no window shared with
    // the requests the fixtures sent). Retry-After is the whole seconds left in the window.
    const offset = Math.ceil((Date.now() + 3_600_000) / 60_000) * 60_000 - 2_500 - Date.now();
    limited = await startHttpServer(
      ctx.database,
      { port: 0 },
      { signer: ctx.signer, gateway: ctx.gateway, engine: ctx.engine, idempotencyKey: TEST_IDEMPOTENCY_KEY, rateLimit: { now: () => Date.now() + offset, limits: { testMode: 2 } } },
      createLogger('silent'),
      '127.0.0.1',
    );
    const base = `http://127.0.0.1:${limited.port}`;
    const attempts: { at: number; status: number; retryAfter: string | null }[] = [];
    const spend = through(base, {
      fetch: async (req) => {
        const res = await fetch(req);
        attempts.push({ at: Date.now(), status: res.status, retryAfter: res.headers.get('retry-after') });
        return res;
      },
    });
    for (let i = 0; i < 2; i++) expect((await fetch(`${base}/v1/agents`, { headers: { authorization: `Bearer ${acct.test.key}` } })).status).toBe(200);

    const d = await spend.authorize(request('rate-limited.example'));
    expect(d.decision).toBe('approved');
    expect(attempts[0]!.status).toBe(429);
    expect(attempts.at(-1)!.status).toBe(200);
    for (let i = 0; i + 1 < attempts.length; i++) {
      // Each retry came no sooner than the Retry-After of the answer before it.
      expect(attempts[i]!.retryAfter).toMatch(/^\d+$/);
      expect(attempts[i + 1]!.at - attempts[i]!.at).toBeGreaterThanOrEqual(Number(attempts[i]!.retryAfter) * 1000 - 20);
    }
    expect(await decisionsFor('rate-limited.example')).toEqual([{ id: d.decision_id }]);
  });
});
