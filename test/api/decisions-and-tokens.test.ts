import { resolveHeldDecision } from '../../src/approvals/resolution.service.js';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { signAuthorizationToken } from '../../src/tokens/authorization-token.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;
let agentId: string;

beforeAll(async () => {
  ctx = await createTestContext();
  acct = await ctx.account('growth');
  const policy = await acct.test.post('/v1/policies', policyBody({ require_approval_above: 5_000 }));
  agentId = (await acct.test.post('/v1/agents', { name: 'buyer', policy_id: policy.body.id })).body.id;
});
afterAll(() => ctx?.close());

const spend = (amount = 1_000, over: Record<string, unknown> = {}) =>
  acct.test.post('/v1/authorize', { agent_id: agentId, amount, currency: 'USD', vendor: 'openai.com', category: 'saas', ...over });

describe('GET /v1/decisions/:id', () => {
  test('returns the same decision object authorize returned', async () => {
    const made = await spend();
    const got = await acct.test.get(`/v1/decisions/${made.body.decision_id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(made.body);
    expect(got.body.decision_id).toMatch(/^dec_/);
    expect(got.body).toMatchObject({ status: 'approved', livemode: false, resolved_at: made.body.timestamp });
  });

  test('an agent key reads only its own decisions; other accounts and modes get 404', async () => {
    const made = await spend();
    const own = ctx.client((await acct.test.post('/v1/api-keys', { name: 'own', role: 'agent', agent_id: agentId })).body.key);
    expect((await own.get(`/v1/decisions/${made.body.decision_id}`)).status).toBe(200);
    const policy = (await acct.test.post('/v1/policies', policyBody())).body.id;
    const otherAgent = (await acct.test.post('/v1/agents', { name: 'other', policy_id: policy })).body.id;
    const otherKey = ctx.client((await acct.test.post('/v1/api-keys', { name: 'other', role: 'agent', agent_id: otherAgent })).body.key);
    expect((await otherKey.get(`/v1/decisions/${made.body.decision_id}`)).status).toBe(404);
    expect((await acct.live!.get(`/v1/decisions/${made.body.decision_id}`)).status).toBe(404);
    const stranger = await ctx.account();
    const res = await stranger.test.get(`/v1/decisions/${made.body.decision_id}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  test('?wait above 30 seconds answers 400 with param wait', async () => {
    const made = await spend();
    const res = await acct.test.get(`/v1/decisions/${made.body.decision_id}?wait=31`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'wait' });
  });

  test.each(['', '%205', '1e1', '0x5', '2.5', '-1'])('?wait=%s is not a whole number of seconds: 400 with param wait', async (value) => {
    const made = await spend();
    const res = await acct.test.get(`/v1/decisions/${made.body.decision_id}?wait=${value}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'wait' });
  });

  test('?wait returns a pending decision still pending when nothing happens', async () => {
    const held = await spend(6_000);
    expect(held.body.status).toBe('pending');
    const res = await acct.test.get(`/v1/decisions/${held.body.decision_id}?wait=1`);
    expect(res.body).toMatchObject({ decision: 'held', status: 'pending' });
  });

  test('?wait wakes when the pending decision is resolved meanwhile, long before its deadline', async () => {
    const held = await spend(6_000);
    const started = Date.now();
    const polled = acct.test.get(`/v1/decisions/${held.body.decision_id}?wait=20`);
    await new Promise((r) => setTimeout(r, 300));
    // Resolved as the workflow's expiry does (its commit notifies the waiters).
    await resolveHeldDecision({ db: ctx.database.db, signer: ctx.signer }, { decisionId: held.body.decision_id, outcome: 'expired', resolvedBy: 'system', actor: { type: 'system', id: null } });
    const res = await polled;
    expect(res.body).toMatchObject({ decision: 'denied', status: 'expired', reason_code: 'approval_expired' });
    // Woken by the resolution, not answered at the 20 s deadline.
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('gca_ authorization tokens', () => {
  test('the JWKS is public and holds only public keys: the Ed25519 token key, then the P-256 mandate key (ES256)', async () => {
    const res = await ctx.raw('/v1/.well-known/jwks.json');
    expect(res.status).toBe(200);
    expect(res.body.keys).toEqual([
      { kty: 'OKP', crv: 'Ed25519', x: expect.any(String), alg: 'EdDSA', use: 'sig', kid: ctx.signer.keys.current.kid },
      { kty: 'EC', crv: 'P-256', x: expect.stringMatching(/^[\w-]{43}$/), y: expect.stringMatching(/^[\w-]{43}$/), alg: 'ES256', use: 'sig', kid: ctx.mandateKeys.current.kid },
    ]);
    for (const key of res.body.keys) expect(key.d).toBeUndefined();
    expect(res.body.keys[1].kid).not.toBe(res.body.keys[0].kid);
  });

  test('a rail verifies a token offline against the JWKS with jose, and the claims describe the decision', async () => {
    const made = await spend(1_234);
    const jwks = createRemoteJWKSet(new URL(`${ctx.baseUrl}/v1/.well-known/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(made.body.authorization_token.slice('gca_'.length), jwks, { issuer: 'spend-auth-test' });
    // The set mixes kinds: jose picks the token's key by its kid, never by position.
    expect(protectedHeader.alg).toBe('EdDSA');
    expect(protectedHeader.kid).toBe(ctx.signer.keys.current.kid);
    expect(payload).toMatchObject({
      sub: agentId,
      jti: made.body.decision_id,
      amount: 1_234,
      currency: 'USD',
      vendor: 'openai.com',
      category: 'saas',
      policy: made.body.policy_applied,
      livemode: false,
    });
    expect(payload.exp! - payload.iat!).toBe(15 * 60);
  });

  test('a tampered token is rejected offline and by the verify endpoint', async () => {
    const made = await spend(1_000);
    const [h, p, s] = made.body.authorization_token.slice(4).split('.');
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forged = `gca_${h}.${Buffer.from(JSON.stringify({ ...claims, amount: 999_999 })).toString('base64url')}.${s}`;
    const jwks = createRemoteJWKSet(new URL(`${ctx.baseUrl}/v1/.well-known/jwks.json`));
    await expect(jwtVerify(forged.slice(4), jwks)).rejects.toThrow();
    const res = await acct.test.post('/v1/authorization-tokens/verify', { token: forged });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ valid: false, claims: null, error: 'bad_signature' });
  });

  test('the verify endpoint refuses a token from the second it expires, and one of another issuer signed with our key', async () => {
    const made = await spend(1_000);
    const claims = { aud: acct.id, sub: agentId, jti: made.body.decision_id, amount: 1_000, currency: 'USD', vendor: 'openai.com', category: 'saas', policy: null, livemode: false };
    const verify = async (token: string) => (await acct.test.post('/v1/authorization-tokens/verify', { token })).body;
    const signedAgo = async (seconds: number) => (await signAuthorizationToken(ctx.signer, claims, new Date(Date.now() - seconds * 1000))).token;
    // A minute of slack either side of the 15-minute lifetime, for the test's own clock.
    expect(await verify(await signedAgo(15 * 60 - 60))).toMatchObject({ valid: true, error: null });
    expect(await verify(await signedAgo(15 * 60 + 1))).toEqual({ valid: false, claims: null, error: 'expired' });
    const foreign = await signAuthorizationToken({ issuer: 'impostor', keys: ctx.signer.keys }, claims, new Date());
    expect(await verify(foreign.token)).toEqual({ valid: false, claims: null, error: 'wrong_issuer' });
  });

  test('the verify endpoint accepts a genuine token and names why others fail', async () => {
    const made = await spend(1_000);
    const ok = await acct.test.post('/v1/authorization-tokens/verify', { token: made.body.authorization_token });
    expect(ok.body).toMatchObject({ valid: true, error: null, claims: { jti: made.body.decision_id, amount: 1_000 } });

    const expired = await signAuthorizationToken(
      ctx.signer,
      { aud: acct.id, sub: agentId, jti: made.body.decision_id, amount: 1, currency: 'USD', vendor: 'x', category: null, policy: null, livemode: false },
      new Date(Date.now() - 3600_000),
    );
    expect((await acct.test.post('/v1/authorization-tokens/verify', { token: expired.token })).body.error).toBe('expired');
    expect((await acct.test.post('/v1/authorization-tokens/verify', { token: 'gca_nope' })).body.error).toBe('malformed');
    const stranger = await ctx.account();
    expect((await stranger.test.post('/v1/authorization-tokens/verify', { token: made.body.authorization_token })).body).toMatchObject({ valid: false });
    const missing = await acct.test.post('/v1/authorization-tokens/verify', {});
    expect(missing.status).toBe(400);
    expect(missing.body.error.param).toBe('token');
  });
});
