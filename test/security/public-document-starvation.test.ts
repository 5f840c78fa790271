/**
 * Attack: starve the public JWKS (and the other public documents) for everyone behind one address.
 * A client sends a hundred requests with bad keys from the address a rail also uses (one load
 * balancer's address, say): the per-address bucket for keyless requests is spent, but the JWKS,
 * the OpenAPI document, the reference page and the probes sit outside it and keep answering 200,
 * from memory, cacheable (Cache-Control, ETag, 304 on If-None-Match).
 *
 * Requests leave from a random loopback address (127.x.y.z) so no other test file shares the
 * bucket, and the instance's rate-limit clock is pinned mid-minute, so no window ends halfway.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createLogger } from '../../src/kernel/logger.js';
import { startHttpServer, type RunningServer } from '../../src/http/server.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { TEST_IDEMPOTENCY_KEY } from '../support/server-keys.js';

let ctx: TestContext;
let server: RunningServer;
let base: string;

beforeAll(async () => {
  ctx = await createTestContext();
  const pinned = Math.floor(Date.now() / 60_000) * 60_000 + 20_000;
  server = await startHttpServer(ctx.database, { port: 0 }, { signer: ctx.signer, gateway: ctx.gateway, engine: ctx.engine, idempotencyKey: TEST_IDEMPOTENCY_KEY, rateLimit: { now: () => pinned } }, createLogger('silent'), '127.0.0.1');
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(async () => {
  await server?.close(100);
  await ctx?.close();
});

interface Res {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

function send(path: string, from: string, headers: Record<string, string> = {}): Promise<Res> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { localAddress: from, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

const randomLoopback = () => `127.${1 + Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;

const PUBLIC = ['/v1/.well-known/jwks.json', '/v1/openapi.json', '/docs', '/healthz', '/readyz'];

describe('a flood of bad keys from one address', () => {
  test('a hundred bad-key requests spend the keyless bucket; the JWKS and every public document still answer 200, uncounted', async () => {
    const from = randomLoopback();
    for (let i = 0; i < 100; i++) {
      const res = await send('/v1/agents', from, { authorization: `Bearer gc_live_${'x'.repeat(40)}` });
      expect(res.status).toBe(401);
    }
    expect((await send('/v1/agents', from)).status).toBe(429);

    for (const path of PUBLIC) {
      const res = await send(path, from);
      expect(res.status, path).toBe(200);
      expect(res.headers['x-ratelimit-limit'], path).toBeUndefined();
    }
    const jwks = JSON.parse((await send('/v1/.well-known/jwks.json', from)).text);
    expect(jwks.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA' });
  });

  test('fetching the public documents many times never spends the bucket either', async () => {
    const from = randomLoopback();
    for (let i = 0; i < 120; i++) expect((await send(PUBLIC[i % PUBLIC.length]!, from)).status).toBe(200);
    const keyless = await send('/v1/agents', from);
    expect(keyless.status).toBe(401);
    expect(keyless.headers['x-ratelimit-remaining']).toBe('99');
  });
});

describe('public documents are cacheable', () => {
  test.each([
    ['/v1/.well-known/jwks.json', 300],
    ['/v1/openapi.json', 300],
    ['/docs', 300],
    ['/healthz', 5],
  ])('%s: Cache-Control public with max-age=%i, a strong ETag, and 304 for If-None-Match', async (path, maxAge) => {
    const from = randomLoopback();
    const first = await send(path, from);
    expect(first.headers['cache-control']).toBe(`public, max-age=${maxAge}`);
    expect(first.headers.etag).toMatch(/^"[A-Za-z0-9_-]{20,}"$/);
    const again = await send(path, from, { 'if-none-match': first.headers.etag! });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.etag).toBe(first.headers.etag);
    const changed = await send(path, from, { 'if-none-match': '"something-else"' });
    expect(changed.status).toBe(200);
    expect(changed.text).toBe(first.text);
  });

  test('/readyz may be kept a few seconds while ready', async () => {
    const res = await send('/readyz', randomLoopback());
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=5');
  });
});
