/**
 * Attack: a signature that leaves the Idempotency-Key out. The agent signs its purchase and its
 * retry (each afresh, with a new nonce); a proxy on the way strips the uncovered header from the
 * retry, which then verifies and is decided a second time: two approvals for one purchase. DECISIONS
 * §19 step 5: when the request has an Idempotency-Key, the signature must cover `idempotency-key`.
 * Signed with Cloudflare's `web-bot-auth` 0.1.3 and `http-message-signatures` 1.0.6.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { newAgentKey, registerKeyDirect, requiredComponents, send, sendSigned, signHttpMessageSignatures, signWebBotAuth, signingAgent, spendOf, type SigningAgent } from '../support/agent-signing.js';

let ctx: TestContext;
let acct: TestAccount;
let agent: SigningAgent;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  acct = await ctx.account();
  agent = await signingAgent(ctx.database.db, acct.test);
});
afterAll(() => ctx?.close());

const decisions = async (agentId: string) => (await ctx.database.db.selectFrom('decisions').select('id').where('agent_id', '=', agentId).execute()).length;
const withoutKey = (components: string[]) => components.filter((c) => c !== 'idempotency-key');

test('a signature that does not cover the Idempotency-Key it is sent with: 401 signature_invalid, nothing decided', async () => {
  const before = await decisions(agent.agentId);
  const res = await sendSigned(ctx.baseUrl, agent.bearer, { method: 'POST', path: '/v1/authorize', body: spendOf(agent.agentId), headers: { 'idempotency-key': 'uncovered-1' } }, (u) =>
    signWebBotAuth(u, agent.ed, { components: withoutKey(requiredComponents(u)) }),
  );
  expect(res.status, res.text).toBe(401);
  expect(res.body.error).toMatchObject({ code: 'signature_invalid', param: 'Signature-Input' });
  expect(res.body.error.message).toMatch(/idempotency-key/);
  expect(await decisions(agent.agentId)).toBe(before);
});

test('the proxy that strips the covered key breaks the signature: the retry is refused, never a second decision', async () => {
  const first = await sendSigned(ctx.baseUrl, agent.bearer, { method: 'POST', path: '/v1/authorize', body: spendOf(agent.agentId), headers: { 'idempotency-key': 'stripped-1' } }, (u) => signWebBotAuth(u, agent.ed));
  expect(first.status, first.text).toBe(200);
  const after = await decisions(agent.agentId);
  // The agent's retry, signed afresh over the same key; the proxy forwards it without the header.
  const body = Buffer.from(JSON.stringify(spendOf(agent.agentId)));
  const signed = await signWebBotAuth({ method: 'POST', url: `${ctx.baseUrl}/v1/authorize`, headers: { 'content-type': 'application/json', 'idempotency-key': 'stripped-1' }, body }, agent.ed);
  const { 'idempotency-key': _stripped, ...forwarded } = signed;
  const stripped = await send(ctx.baseUrl, agent.bearer, { method: 'POST', path: '/v1/authorize', headers: forwarded, body });
  expect(stripped.status, stripped.text).toBe(401);
  expect(stripped.body.error.code).toBe('signature_invalid');
  expect(await decisions(agent.agentId)).toBe(after);
  // The honest retry, signed afresh and delivered whole, replays the one decision.
  const retry = await sendSigned(ctx.baseUrl, agent.bearer, { method: 'POST', path: '/v1/authorize', body: spendOf(agent.agentId), headers: { 'idempotency-key': 'stripped-1' } }, (u) => signWebBotAuth(u, agent.ed));
  expect(retry.status).toBe(200);
  expect(retry.body.decision_id).toBe(first.body.decision_id);
  expect(await decisions(agent.agentId)).toBe(after);
});

test('a P-256 key signing with http-message-signatures covers it too, and an honest retry replays the one decision', async () => {
  const p256 = await newAgentKey('ecdsa-p256-sha256');
  await registerKeyDirect(ctx.database.db, agent.agentId, p256);
  const body = spendOf(agent.agentId, 250);
  const a = await sendSigned(ctx.baseUrl, agent.bearer, { method: 'POST', path: '/v1/authorize', body, headers: { 'idempotency-key': 'p256-1' } }, (u) => signHttpMessageSignatures(u, p256));
  expect(a.status, a.text).toBe(200);
  const b = await sendSigned(ctx.baseUrl, agent.bearer, { method: 'POST', path: '/v1/authorize', body, headers: { 'idempotency-key': 'p256-1' } }, (u) => signHttpMessageSignatures(u, p256));
  expect(b.body.decision_id).toBe(a.body.decision_id);
  const uncovered = await sendSigned(ctx.baseUrl, agent.bearer, { method: 'POST', path: '/v1/authorize', body, headers: { 'idempotency-key': 'p256-2' } }, (u) =>
    signHttpMessageSignatures(u, p256, { components: withoutKey(requiredComponents(u)) }),
  );
  expect(uncovered.body.error.code).toBe('signature_invalid');
});
