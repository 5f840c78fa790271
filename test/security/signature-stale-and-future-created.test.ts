/**
 * Attack: a signature made long ago, or dated ahead to outlive its window (DECISIONS §19 steps 4
 * and 8), against an injected clock: created 400 s ago with a 300 s lifetime is
 * `signature_expired`; created 31 s ahead is `signature_invalid`; 30 s ahead is the allowed skew.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { sendSigned, signWebBotAuth, signingAgent, spendOf, type SigningAgent } from '../support/agent-signing.js';

let ctx: TestContext;
let agent: SigningAgent;
const NOW = Math.floor(Date.now() / 1000);

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000, now: () => new Date(NOW * 1000) });
  agent = await signingAgent(ctx.database.db, (await ctx.account()).test);
}, 240_000);
afterAll(() => ctx?.close());

const signedAt = (created: number, expires: number) =>
  sendSigned(ctx.baseUrl, agent.bearer, { method: 'POST', path: '/v1/authorize', body: spendOf(agent.agentId) }, (u) => signWebBotAuth(u, agent.ed, { created, expires }));

test('created 400 s ago, expires 300 s later: signature_expired', async () => {
  const res = await signedAt(NOW - 400, NOW - 100);
  expect(res.status).toBe(401);
  expect(res.body.error).toMatchObject({ code: 'signature_expired', param: 'Signature-Input' });
});

test('created 31 s ahead: signature_invalid; 30 s ahead: 200', async () => {
  const ahead = await signedAt(NOW + 31, NOW + 91);
  expect(ahead.status).toBe(401);
  expect(ahead.body.error).toMatchObject({ code: 'signature_invalid', param: 'Signature-Input' });
  expect((await signedAt(NOW + 30, NOW + 90)).status).toBe(200);
});

test('dated ahead to stretch the window beyond 300 s: signature_invalid', async () => {
  const res = await signedAt(NOW, NOW + 3_600);
  expect(res.body.error).toMatchObject({ code: 'signature_invalid' });
});
