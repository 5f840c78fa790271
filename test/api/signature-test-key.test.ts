/**
 * DECISIONS §19 in test mode: RFC 9421's Ed25519 test key (B.1.4), the key of the Web Bot Auth
 * draft's vectors, registers through `POST /v1/agents/:id/keys` and signs a whole authorize made
 * with web-bot-auth 0.1.3 and §19's components. (Live mode refuses it: test/api/agent-keys.test.ts.)
 */
import fs from 'node:fs';
import { createPrivateKey } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { agentWithPolicy, createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { agentKeyFrom, sendSigned, signWebBotAuth, spendOf } from '../support/agent-signing.js';

let ctx: TestContext;
let acct: TestAccount;
beforeAll(async () => {
  ctx = await createTestContext();
  acct = await ctx.account();
});
afterAll(() => ctx?.close());

const TEST_KEY_THUMBPRINT = 'poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U';

/** RFC 9421 B.1.4's private key, as the draft's vectors carry it (test/fixtures/web-bot-auth). */
function rfc9421Ed25519(): { kty: string; crv: string; x: string; d: string } {
  const vectors = JSON.parse(fs.readFileSync('test/fixtures/web-bot-auth/web_bot_auth_architecture_v2.json', 'utf8')) as { key: Record<string, string> }[];
  const { kty, crv, x, d } = vectors.find((v) => v.key.kty === 'OKP')!.key;
  return { kty: kty!, crv: crv!, x: x!, d: d! };
}

test("RFC 9421's Ed25519 test key registers in test mode and signs an authorize → 200, signature.keyid its thumbprint", async () => {
  const jwk = rfc9421Ed25519();
  const key = await agentKeyFrom('ed25519', createPrivateKey({ key: jwk, format: 'jwk' }));
  expect(key.thumbprint).toBe(TEST_KEY_THUMBPRINT);

  const { agentId } = await agentWithPolicy(acct.test, { budget_monthly: 100_000_000, budget_single_max: 1_000_000, require_signed_requests: true });
  const registered = await acct.test.post(`/v1/agents/${agentId}/keys`, { jwk: key.publicJwk, name: 'rfc9421 b.1.4' });
  expect(registered.status, registered.text).toBe(201);
  expect(registered.body).toMatchObject({ alg: 'ed25519', thumbprint: TEST_KEY_THUMBPRINT, livemode: false });
  const bearer = (await acct.test.post('/v1/api-keys', { name: 'agent', role: 'agent', agent_id: agentId })).body.key as string;

  const res = await sendSigned(ctx.baseUrl, bearer, { method: 'POST', path: '/v1/authorize', body: spendOf(agentId) }, (u) => signWebBotAuth(u, key));
  expect(res.status, res.text).toBe(200);
  expect(res.body.decision).toBe('approved');
  expect(res.body.signature).toMatchObject({ agent_key_id: registered.body.id, keyid: TEST_KEY_THUMBPRINT, alg: 'ed25519', signature_agent: null });
});
