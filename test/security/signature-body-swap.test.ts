/**
 * Attack: a valid signature with another body (DECISIONS §19 steps 6 and 7). Another body under the
 * signed Content-Digest is refused naming `Content-Digest`; the body and its digest both swapped
 * break the signature (`signature_invalid`); a gzip body swapped for other gzip bytes that inflate
 * to the very same JSON is refused too, since the digest is over the bytes as received.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { contentDigest, send, signWebBotAuth, signingAgent, spendOf, type SigningAgent } from '../support/agent-signing.js';

let ctx: TestContext;
let agent: SigningAgent;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  agent = await signingAgent(ctx.database.db, (await ctx.account()).test);
}, 240_000);
afterAll(() => ctx?.close());

const url = () => `${ctx.baseUrl}/v1/authorize`;
const decisions = async () => (await ctx.database.db.selectFrom('decisions').select('id').where('agent_id', '=', agent.agentId).execute()).length;

test('another body under the signed digest → signature_invalid, param Content-Digest', async () => {
  const body = Buffer.from(JSON.stringify(spendOf(agent.agentId, 100)));
  const headers = await signWebBotAuth({ method: 'POST', url: url(), headers: { 'content-type': 'application/json' }, body }, agent.ed);
  const before = await decisions();
  const res = await send(ctx.baseUrl, agent.bearer, { method: 'POST', path: '/v1/authorize', headers, body: Buffer.from(JSON.stringify(spendOf(agent.agentId, 99_999))) });
  expect(res.status).toBe(401);
  expect(res.body.error).toMatchObject({ code: 'signature_invalid', param: 'Content-Digest' });
  expect(await decisions()).toBe(before);
});

test('body and Content-Digest both swapped → signature_invalid (the digest is covered)', async () => {
  const body = Buffer.from(JSON.stringify(spendOf(agent.agentId, 100)));
  const swapped = Buffer.from(JSON.stringify(spendOf(agent.agentId, 99_999)));
  const headers = await signWebBotAuth({ method: 'POST', url: url(), headers: { 'content-type': 'application/json' }, body }, agent.ed);
  const res = await send(ctx.baseUrl, agent.bearer, { method: 'POST', path: '/v1/authorize', headers: { ...headers, 'content-digest': contentDigest(swapped) }, body: swapped });
  expect(res.status).toBe(401);
  expect(res.body.error).toMatchObject({ code: 'signature_invalid', param: 'Signature-Input' });
});

test('gzip bytes swapped for others that inflate to the same JSON → refused (Content-Digest)', async () => {
  const json = Buffer.from(JSON.stringify(spendOf(agent.agentId, 100)));
  const signedBytes = gzipSync(json, { level: 9 });
  const otherBytes = gzipSync(json, { level: 1 });
  expect(otherBytes.equals(signedBytes)).toBe(false);
  const headers = await signWebBotAuth({ method: 'POST', url: url(), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: signedBytes }, agent.ed);
  const res = await send(ctx.baseUrl, agent.bearer, { method: 'POST', path: '/v1/authorize', headers, body: otherBytes });
  expect(res.status).toBe(401);
  expect(res.body.error).toMatchObject({ code: 'signature_invalid', param: 'Content-Digest' });
  // The bytes it signed pass.
  expect((await send(ctx.baseUrl, agent.bearer, { method: 'POST', path: '/v1/authorize', headers, body: signedBytes })).status).toBe(200);
});
