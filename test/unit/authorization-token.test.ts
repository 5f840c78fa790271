import fs from 'node:fs';
import { CompactSign, decodeProtectedHeader } from 'jose';
import { describe, expect, test } from 'vitest';
import { generatePrivateJwk, keysFromJwks } from '../../src/tokens/signing-keys.js';
import { DEFAULT_ISSUER, signAuthorizationToken, verifyAuthorizationToken, TOKEN_TTL_SECONDS, type TokenSigner } from '../../src/tokens/authorization-token.js';

const claims = { aud: 'acct_1', sub: 'agt_1', jti: 'dec_1', amount: 1_000, currency: 'USD', vendor: 'shop.example', category: null, policy: null, livemode: false };
const signer = async (issuer = 'spend-auth'): Promise<TokenSigner> => ({ issuer, keys: await keysFromJwks([await generatePrivateJwk()]) });
const at = (ms: number) => new Date(ms);
const issued = Date.UTC(2026, 0, 31, 23, 50, 0);

describe('verifyAuthorizationToken', () => {
  test('valid until the last second of its 15 minutes, expired from exp on', async () => {
    const s = await signer();
    const { token, expiresAt } = await signAuthorizationToken(s, claims, at(issued));
    expect(expiresAt.getTime()).toBe(issued + TOKEN_TTL_SECONDS * 1000);
    expect(await verifyAuthorizationToken(s, token, at(issued))).toMatchObject({ valid: true, error: null, claims: { ...claims, iss: 'spend-auth' } });
    expect((await verifyAuthorizationToken(s, token, at(expiresAt.getTime() - 1000))).valid).toBe(true);
    expect(await verifyAuthorizationToken(s, token, expiresAt)).toEqual({ valid: false, claims: null, error: 'expired' });
    expect(await verifyAuthorizationToken(s, token, at(expiresAt.getTime() + 60_000))).toEqual({ valid: false, claims: null, error: 'expired' });
  });

  test('a token signed with our key under another issuer is refused as wrong_issuer', async () => {
    const ours = await signer();
    const { token } = await signAuthorizationToken({ issuer: 'someone-else', keys: ours.keys }, claims, at(issued));
    expect(await verifyAuthorizationToken(ours, token, at(issued))).toEqual({ valid: false, claims: null, error: 'wrong_issuer' });
  });

  test('a key we do not publish is unknown_key; a token without the gca_ prefix is malformed', async () => {
    const ours = await signer();
    const { token } = await signAuthorizationToken(await signer(), claims, at(issued));
    expect((await verifyAuthorizationToken(ours, token, at(issued))).error).toBe('unknown_key');
    expect((await verifyAuthorizationToken(ours, token.slice(4), at(issued))).error).toBe('malformed');
  });

  /** A token signed with our current key over any payload and header. */
  const signedRaw = async (s: TokenSigner, payload: string, header: Record<string, unknown> = {}) =>
    `gca_${await new CompactSign(new TextEncoder().encode(payload)).setProtectedHeader({ alg: 'EdDSA', kid: s.keys.current.kid, ...header }).sign(s.keys.current.key)}`;

  test('a genuine signature over a payload that is not JSON is malformed, not a bad signature', async () => {
    const s = await signer();
    expect((await verifyAuthorizationToken(s, await signedRaw(s, 'not json'), at(issued))).error).toBe('malformed');
  });

  test('a signed token without a numeric exp never verifies', async () => {
    const s = await signer();
    const payload = { ...claims, iss: s.issuer, iat: issued / 1000 };
    expect((await verifyAuthorizationToken(s, await signedRaw(s, JSON.stringify(payload)), at(issued))).error).toBe('expired');
    expect((await verifyAuthorizationToken(s, await signedRaw(s, JSON.stringify({ ...payload, exp: String(issued / 1000 + 900) })), at(issued))).error).toBe('expired');
  });

  test('only the gca_ prefix is accepted, not any four characters', async () => {
    const s = await signer();
    const { token } = await signAuthorizationToken(s, claims, at(issued));
    expect((await verifyAuthorizationToken(s, `gcb_${token.slice(4)}`, at(issued))).error).toBe('malformed');
  });

  test('a header naming another algorithm is malformed', async () => {
    const s = await signer();
    const { token } = await signAuthorizationToken(s, claims, at(issued));
    const [, payload, signature] = token.slice(4).split('.');
    const header = Buffer.from(JSON.stringify({ alg: 'HS256', kid: s.keys.current.kid })).toString('base64url');
    expect((await verifyAuthorizationToken(s, `gca_${header}.${payload}.${signature}`, at(issued))).error).toBe('malformed');
  });
});

describe('signAuthorizationToken', () => {
  test('a JWT header naming the signing key', async () => {
    const s = await signer();
    const { token } = await signAuthorizationToken(s, claims, at(issued));
    expect(decodeProtectedHeader(token.slice(4))).toEqual({ alg: 'EdDSA', kid: s.keys.current.kid, typ: 'JWT' });
  });

  test('the issuer without PUBLIC_BASE_URL is spend-auth, as docs/api.md tells rails', () => {
    expect(DEFAULT_ISSUER).toBe('spend-auth');
    expect(fs.readFileSync('docs/api.md', 'utf8')).toContain('| `iss` | `PUBLIC_BASE_URL`, or `spend-auth` when unset |');
  });
});
