import { describe, expect, test } from 'vitest';
import { generatePrivateJwk, keysFromJwks } from '../../src/tokens/signing-keys.js';
import { signAuthorizationToken, verifyAuthorizationToken, TOKEN_TTL_SECONDS, type TokenSigner } from '../../src/tokens/authorization-token.js';

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
});
