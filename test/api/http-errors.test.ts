import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ENGINE_HEALTH_TIMEOUT_MS } from '../../src/temporal/gateway.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;

beforeAll(async () => {
  ctx = await createTestContext();
  acct = await ctx.account();
});
afterAll(() => ctx?.close());

const expectEnvelope = (body: any, code: string, param?: string) => {
  expect(body).toMatchObject({ error: { code, message: expect.any(String) } });
  if (param) expect(body.error.param).toBe(param);
  expect(JSON.stringify(body)).not.toMatch(/\bat .+\.(ts|js):\d+|SELECT|INSERT|stack/i);
};

describe('authentication', () => {
  test.each([
    ['no Authorization header', {}],
    ['a non-Bearer scheme', { authorization: 'Basic abc' }],
    ['a malformed key', { authorization: 'Bearer not-a-key' }],
    ['an unknown well-formed key', { authorization: `Bearer gc_test_${'a'.repeat(40)}` }],
  ])('%s answers 401 unauthorized', async (_name, headers) => {
    const res = await ctx.raw('/v1/agents', { headers });
    expect(res.status).toBe(401);
    expectEnvelope(res.body, 'unauthorized');
  });

  test('a revoked key answers 401 on its next use', async () => {
    const created = await acct.test.post('/v1/api-keys', { name: 'short-lived', role: 'admin' });
    expect(created.status).toBe(201);
    const k = ctx.client(created.body.key);
    expect((await k.get('/v1/agents')).status).toBe(200);
    expect((await acct.test.delete(`/v1/api-keys/${created.body.id}`)).status).toBe(200);
    const after = await k.get('/v1/agents');
    expect(after.status).toBe(401);
    expectEnvelope(after.body, 'unauthorized');
  });
});

describe('error envelope', () => {
  test('an unknown route answers 404 not_found', async () => {
    const res = await acct.test.get('/v1/nothing-here');
    expect(res.status).toBe(404);
    expectEnvelope(res.body, 'not_found');
  });

  test('an unknown route outside /v1 answers 404 without auth', async () => {
    const res = await ctx.raw('/nothing');
    expect(res.status).toBe(404);
    expectEnvelope(res.body, 'not_found');
  });

  test('malformed JSON answers 400 invalid_request with param body', async () => {
    const res = await ctx.raw('/v1/policies', {
      method: 'POST',
      headers: { authorization: `Bearer ${acct.test.key}`, 'content-type': 'application/json' },
      body: '{"name": ',
    });
    expect(res.status).toBe(400);
    expectEnvelope(res.body, 'invalid_request', 'body');
  });

  test('a body over 64 KiB answers 413 invalid_request with param body', async () => {
    const res = await acct.test.post('/v1/policies', policyBody({ name: 'x'.repeat(70 * 1024) }));
    expect(res.status).toBe(413);
    expectEnvelope(res.body, 'invalid_request', 'body');
  });

  test('a body that is not JSON answers 400 invalid_request', async () => {
    const res = await ctx.raw('/v1/policies', {
      method: 'POST',
      headers: { authorization: `Bearer ${acct.test.key}`, 'content-type': 'text/plain' },
      body: 'name=x',
    });
    expect(res.status).toBe(400);
    expectEnvelope(res.body, 'invalid_request', 'body');
  });

  test.each([
    ['a missing field', { budget_monthly: 1, budget_single_max: 1 }, 'name'],
    ['a wrongly typed field', { ...policyBody(), budget_monthly: 'lots' }, 'budget_monthly'],
    ['a negative amount', { ...policyBody(), budget_single_max: -1 }, 'budget_single_max'],
    ['a fractional amount', { ...policyBody(), budget_single_max: 1.5 }, 'budget_single_max'],
    ['an unknown field', { ...policyBody(), colour: 'blue' }, 'colour'],
    ['a JSON array body', [1, 2], 'body'],
  ])('%s answers 400 with the field named in param', async (_name, body, param) => {
    const res = await acct.test.post('/v1/policies', body);
    expect(res.status).toBe(400);
    expectEnvelope(res.body, 'invalid_request', param);
  });

  test('every response carries X-Request-Id, and a well-formed incoming one is echoed', async () => {
    const ok = await acct.test.get('/v1/agents');
    const unauth = await ctx.raw('/v1/agents');
    const missing = await ctx.raw('/nowhere');
    for (const r of [ok, unauth, missing]) expect(r.headers.get('x-request-id')).toMatch(/^req_/);
    const echoed = await acct.test.get('/v1/agents', { 'x-request-id': 'trace-123' });
    expect(echoed.headers.get('x-request-id')).toBe('trace-123');
  });

  test('health endpoints answer without a key', async () => {
    expect((await ctx.raw('/healthz')).body).toEqual({ status: 'ok' });
    expect((await ctx.raw('/readyz')).status).toBe(200);
  });
});

describe('GET /readyz while the workflow engine is down', () => {
  test('answers each time without waiting for a probe, with the last known engine state, refreshed in the background; `degraded` once the engine is known down', async () => {
    const ctx = await createTestContext();
    try {
      const states: string[] = [];
      const deadline = Date.now() + 15_000;
      // The engine's port refuses connections; a probe of it takes up to seconds, readyz never waits for one.
      while (!states.includes('down') && Date.now() < deadline) {
        const started = performance.now();
        const res = await ctx.raw('/readyz');
        // A readyz that waited for a probe would take the probe's 2 s deadline; half of that leaves a
        // loaded machine room. engine-status.test.ts proves the no-wait without a clock.
        expect(performance.now() - started).toBeLessThan(ENGINE_HEALTH_TIMEOUT_MS / 2);
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ database: 'up' });
        expect(['unknown', 'down']).toContain(res.body.workflow_engine);
        // Degraded, not unavailable: the API keeps serving (HTTP 200) while the engine is down.
        expect(res.body.status).toBe(res.body.workflow_engine === 'down' ? 'degraded' : 'ready');
        states.push(res.body.workflow_engine);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(states).toContain('down');
    } finally {
      await ctx.close();
    }
  });
});
