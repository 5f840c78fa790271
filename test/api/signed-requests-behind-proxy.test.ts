/**
 * Signed requests as a proxy delivers them (DECISIONS §19 step 5): with PUBLIC_BASE_URL the
 * signature covers its scheme and authority, whatever Host the request reaches us with; field
 * lines reordered, renamed to lower case or split in two still verify; an unrelated non-ASCII
 * header does not fail a good signature.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { startHttpServer, type RunningServer } from '../../src/http/server.js';
import { createLogger } from '../../src/kernel/logger.js';
import { TEST_IDEMPOTENCY_KEY } from '../support/server-keys.js';
import { send, signWebBotAuth, signingAgent, spendOf, type SigningAgent } from '../support/agent-signing.js';
import http from 'node:http';

let ctx: TestContext;
let agent: SigningAgent;
let proxied: RunningServer;
let proxiedUrl: string;
const PUBLIC = 'https://api.example.test';

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  agent = await signingAgent(ctx.database.db, (await ctx.account()).test);
  proxied = await startHttpServer(
    ctx.database,
    { port: 0 },
    { signer: ctx.signer, gateway: ctx.gateway, engine: ctx.engine, idempotencyKey: TEST_IDEMPOTENCY_KEY, publicBaseUrl: `${PUBLIC}/base/`, rateLimit: { limits: { testMode: 100_000 } } },
    createLogger('silent'),
    '127.0.0.1',
  );
  proxiedUrl = `http://127.0.0.1:${proxied.port}`;
}, 240_000);
afterAll(async () => {
  await proxied?.close(100);
  await ctx?.close();
});

const body = () => Buffer.from(JSON.stringify(spendOf(agent.agentId)));
const signFor = (origin: string, b: Buffer) => signWebBotAuth({ method: 'POST', url: `${origin}/v1/authorize`, headers: { 'content-type': 'application/json' }, body: b }, agent.ed);

test('PUBLIC_BASE_URL set: a request signed for its authority passes though it arrives as 127.0.0.1; one signed for the Host it arrived with does not', async () => {
  const b = body();
  expect((await send(proxiedUrl, agent.bearer, { method: 'POST', path: '/v1/authorize', headers: await signFor(PUBLIC, b), body: b })).status).toBe(200);
  const local = await send(proxiedUrl, agent.bearer, { method: 'POST', path: '/v1/authorize', headers: await signFor(proxiedUrl, b), body: b });
  expect(local.status).toBe(401);
  expect(local.body.error.code).toBe('signature_invalid');
});

test('PUBLIC_BASE_URL not set: the signature for the public authority fails, the one for Host passes', async () => {
  const b = body();
  expect((await send(ctx.baseUrl, agent.bearer, { method: 'POST', path: '/v1/authorize', headers: await signFor(PUBLIC, b), body: b })).body.error.code).toBe('signature_invalid');
  expect((await send(ctx.baseUrl, agent.bearer, { method: 'POST', path: '/v1/authorize', headers: await signFor(ctx.baseUrl, b), body: b })).status).toBe(200);
});

/** Sends raw header lines (names as given, repeats allowed). */
function sendLines(lines: [string, string][], b: Buffer) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const r = http.request(`${ctx.baseUrl}/v1/authorize`, { method: 'POST', agent: false, headers: [...lines.flat(), 'Authorization', `Bearer ${agent.bearer}`, 'Content-Length', String(b.length)] as unknown as http.OutgoingHttpHeaders }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve({ status: res.statusCode!, text }));
    });
    r.on('error', reject);
    r.end(b);
  });
}

test('fields reordered and renamed, Signature-Input split over two lines, an unrelated Latin-1 header: 200', async () => {
  const b = body();
  const h = await signFor(ctx.baseUrl, b);
  // A second, untagged signature, so Signature-Input and Signature can each be sent as two lines.
  const input = h['signature-input']!;
  const extraInput = 'other=("@method");created=1;keyid="x"';
  const extraSig = 'other=:AAAA:';
  const res = await sendLines(
    [
      ['X-Note', 'caf\u00e9'],
      ['Host', new URL(ctx.baseUrl).host],
      ['SIGNATURE-INPUT', input],
      ['signature', h.signature!],
      ['Content-Digest', h['content-digest']!],
      ['signature-input', extraInput],
      ['Signature', extraSig],
      ['content-type', 'application/json'],
    ],
    b,
  );
  expect(res.status, res.text).toBe(200);
});
