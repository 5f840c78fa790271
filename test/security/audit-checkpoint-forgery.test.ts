/**
 * Attack: a client passes `GET /v1/audit-logs/verify?checkpoint=` a checkpoint that is not this
 * service's for its own account and mode (another account's or mode's, edited claims, a foreign or
 * missing signature, a `gca_` token) hoping for `checkpoint_check: "matched"`; or offers a checkpoint
 * to the token endpoint as a `gca_` token. Every such checkpoint is a 400 naming `checkpoint`.
 */
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { agentWithPolicy, createTestContext, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let a: TestAccount;
let b: TestAccount;
let checkpoint: string;

beforeAll(async () => {
  ctx = await createTestContext();
  [a, b] = [await ctx.account('growth'), await ctx.account('growth')];
  checkpoint = (await a.test.get('/v1/audit-logs/verify')).body.checkpoint;
});
afterAll(() => ctx?.close());

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const parts = (jws: string) => jws.split('.') as [string, string, string];
const claimsOf = (jws: string) => JSON.parse(Buffer.from(parts(jws)[1], 'base64url').toString()) as Record<string, unknown>;

async function refused(client: TestAccount['test'], value: string) {
  const res = await client.get(`/v1/audit-logs/verify?checkpoint=${encodeURIComponent(value)}`);
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'checkpoint' });
  expect(res.text).not.toMatch(/at .*\.ts|stack/i);
  return res.body.error.message as string;
}

/** Signed with a key of our own making, under the service's kid or another. */
async function foreignSigned(kid: string, claims = claimsOf(checkpoint)) {
  const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const { aud, iat, ...rest } = claims;
  return new SignJWT(rest).setProtectedHeader({ alg: 'EdDSA', kid, typ: 'audit-checkpoint+jwt' }).setAudience(aud as string).setIssuedAt(iat as number).sign(privateKey);
}

describe('a checkpoint that is not this account and mode\'s', () => {
  test("another account's checkpoint is refused, naming the account or mode", async () => {
    expect(await refused(b.test, checkpoint)).toMatch(/another account or mode/);
  });

  test("the other mode's checkpoint is refused", async () => {
    expect(await refused(a.live!, checkpoint)).toMatch(/another account or mode/);
  });
});

describe('a forged or altered checkpoint', () => {
  test('claims edited after signing (a later sequence, another hash, another account) do not verify', async () => {
    const [h, , s] = parts(checkpoint);
    for (const change of [{ sequence: 99 }, { head_hash: 'f'.repeat(64) }, { aud: b.id }]) {
      expect(await refused(a.test, `${h}.${b64({ ...claimsOf(checkpoint), ...change })}.${s}`)).toMatch(/signature does not verify/);
    }
  });

  test("a signature flipped, or made by another key under the service's kid, does not verify", async () => {
    const [h, p, s] = parts(checkpoint);
    const flipped = `${s[0] === 'A' ? 'B' : 'A'}${s.slice(1)}`;
    expect(await refused(a.test, `${h}.${p}.${flipped}`)).toMatch(/signature does not verify/);
    expect(await refused(a.test, await foreignSigned(ctx.signer.keys.current.kid))).toMatch(/signature does not verify/);
  });

  test('a key that is not in the JWKS, or no kid at all, is refused', async () => {
    const { publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    expect(await refused(a.test, await foreignSigned(`${(await exportJWK(publicKey)).x}`))).toMatch(/not in this service's JWKS/);
    const [, p, s] = parts(checkpoint);
    expect(await refused(a.test, `${b64({ alg: 'EdDSA', typ: 'audit-checkpoint+jwt' })}.${p}.${s}`)).toMatch(/not in this service's JWKS/);
  });

  test('alg none, another typ and a gca_ token are refused before any key is looked at', async () => {
    const [, p] = parts(checkpoint);
    expect(await refused(a.test, `${b64({ alg: 'none', typ: 'audit-checkpoint+jwt' })}.${p}.`)).toMatch(/not an audit checkpoint/);
    expect(await refused(a.test, `${b64({ alg: 'EdDSA', kid: ctx.signer.keys.current.kid, typ: 'JWT' })}.${p}.${parts(checkpoint)[2]}`)).toMatch(/not an audit checkpoint/);
    const { agentId } = await agentWithPolicy(a.test);
    const approved = await a.test.post('/v1/authorize', { agent_id: agentId, amount: 100, currency: 'USD', vendor: 'shop.example' });
    const token = approved.body.authorization_token as string;
    expect(await refused(a.test, token.slice('gca_'.length))).toMatch(/not an audit checkpoint/);
    expect(await refused(a.test, token)).toMatch(/not a compact JWS|not an audit checkpoint/);
  });

  test('garbage, and a value longer than any checkpoint, are refused', async () => {
    for (const value of ['x', 'a.b.c', '...', `${'a'.repeat(3000)}`]) await refused(a.test, value);
    const res = await a.test.get('/v1/audit-logs/verify?checkpoint=');
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('checkpoint');
  });

  test('a second checkpoint parameter, or an unknown parameter, is refused', async () => {
    const twice = await a.test.get(`/v1/audit-logs/verify?checkpoint=${checkpoint}&checkpoint=${checkpoint}`);
    expect(twice.status).toBe(400);
    expect(twice.body.error.param).toBe('checkpoint');
    const unknown = await a.test.get('/v1/audit-logs/verify?since=1');
    expect(unknown.status).toBe(400);
  });
});

describe('a checkpoint used as something else', () => {
  test('offered to the token endpoint as a gca_ token it is not valid', async () => {
    const res = await a.test.post('/v1/authorization-tokens/verify', { token: `gca_${checkpoint}` });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: false, claims: null });
  });

  test('an agent key may not verify the audit log, with or without a checkpoint', async () => {
    const { agentId } = await agentWithPolicy(a.test);
    const key = await a.test.post('/v1/api-keys', { name: 'agent', mode: 'test', role: 'agent', agent_id: agentId });
    const agent = ctx.client(key.body.key);
    expect((await agent.get(`/v1/audit-logs/verify?checkpoint=${checkpoint}`)).status).toBe(403);
  });
});
