/**
 * Attack: algorithm confusion (DECISIONS §19 steps 4 and 7). An HMAC over the signature base keyed
 * by the public key's bytes, claimed as `hmac-sha256` or with no `alg` at all; an Ed25519 signature
 * claimed as P-256; a P-256 key's signature claimed as Ed25519: all `signature_invalid`. Only the
 * registered key's own algorithm ever verifies.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { newAgentKey, registerKeyDirect, sendSigned, signRaw, signingAgent, spendOf, type SigningAgent, type TestAgentKey, type Unsigned } from '../support/agent-signing.js';

let ctx: TestContext;
let agent: SigningAgent;
let p256: TestAgentKey;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  const acct = await ctx.account();
  agent = await signingAgent(ctx.database.db, acct.test);
  p256 = await newAgentKey('ecdsa-p256-sha256');
  await registerKeyDirect(ctx.database.db, agent.agentId, p256);
}, 240_000);
afterAll(() => ctx?.close());

const authorize = (sign: (u: Unsigned) => Record<string, string>) => sendSigned(ctx.baseUrl, agent.bearer, { method: 'POST', path: '/v1/authorize', body: spendOf(agent.agentId) }, sign);

test.each([
  ['HMAC keyed by the public key, alg="hmac-sha256"', (u: Unsigned) => signRaw(u, agent.ed, { signAs: 'hmac-sha256', parameters: { alg: 'hmac-sha256' } })],
  ['the same HMAC with no alg', (u: Unsigned) => signRaw(u, agent.ed, { signAs: 'hmac-sha256', algorithm: 'ed25519' })],
  ['an Ed25519 signature claimed as ecdsa-p256-sha256', (u: Unsigned) => signRaw(u, agent.ed, { algorithm: 'ecdsa-p256-sha256', parameters: { alg: 'ecdsa-p256-sha256' } })],
  ["a P-256 key's keyid with an HMAC claimed as ed25519", (u: Unsigned) => signRaw(u, p256, { signAs: 'hmac-sha256', algorithm: 'ed25519', parameters: { alg: 'ed25519' } })],
])('%s → signature_invalid', async (_name, sign) => {
  const res = await authorize(sign);
  expect(res.status, res.text).toBe(401);
  expect(res.body.error).toMatchObject({ code: 'signature_invalid', param: 'Signature-Input' });
});

test('each key with its own algorithm passes', async () => {
  expect((await authorize((u) => signRaw(u, agent.ed))).status).toBe(200);
  expect((await authorize((u) => signRaw(u, p256, { parameters: { alg: 'ecdsa-p256-sha256' } }))).status).toBe(200);
});
