/**
 * Attack: a token signed with a key the service removed (say, after the key leaked) still verifies
 * offline. The TypeScript client fetched the JWKS once and fetched it again only for an unknown
 * `kid`, so a removed key stayed in its set for good. DECISIONS §4: the JWKS carries
 * `Cache-Control: max-age` (300 s) and verifiers fetch it again when that runs out; a set past its
 * max-age that cannot be fetched again verifies nothing. The key set is served by a real HTTP
 * server of the test's own (the service's keys cannot be rotated on demand); tokens are signed with
 * `jose` as the service signs them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTokenVerifier } from '../../src/client/token-verifier.js';

let server: http.Server;
let jwksUrl: string;
let published: JWK[] = [];
let up = true;
const fetches: string[] = [];
const keys: Record<string, { privateKey: CryptoKey; jwk: JWK }> = {};

beforeAll(async () => {
  for (const kid of ['kid_leaked', 'kid_next']) {
    const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    keys[kid] = { privateKey: privateKey as CryptoKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' } };
  }
  published = [keys.kid_leaked!.jwk, keys.kid_next!.jwk];
  server = http.createServer((req, res) => {
    fetches.push(req.url ?? '');
    if (!up) return void res.writeHead(503).end('down');
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' }).end(JSON.stringify({ keys: published }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/.well-known/jwks.json`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const token = (kid: string) =>
  new SignJWT({ amount: 100, currency: 'USD', vendor: 'shop.example', livemode: false })
    .setProtectedHeader({ alg: 'EdDSA', kid, typ: 'JWT' })
    .setIssuer('spend-auth')
    .setAudience('acct_1')
    .setSubject('agt_1')
    .setJti('dec_1')
    .setIssuedAt()
    .setExpirationTime('15m')
    .sign(keys[kid]!.privateKey)
    .then((jws) => `gca_${jws}`);

test('a removed key verifies until the max-age runs out, then not; a set that cannot be fetched past its max-age verifies nothing', async () => {
  let clock = 1_000_000;
  const verify = createTokenVerifier(jwksUrl, undefined, { now: () => clock });
  const leaked = await token('kid_leaked');
  await expect(verify(leaked, { account: 'acct_1', livemode: false })).resolves.toMatchObject({ jti: 'dec_1' });
  expect(fetches).toHaveLength(1);

  published = [keys.kid_next!.jwk]; // the service removed the leaked key
  clock += 299_000;
  await expect(verify(leaked, { account: 'acct_1', livemode: false })).resolves.toBeDefined();
  expect(fetches).toHaveLength(1);
  clock += 1_000;
  await expect(verify(leaked, { account: 'acct_1', livemode: false })).rejects.toMatchObject({ code: 'unknown_key' });
  expect(fetches).toHaveLength(2);
  await expect(verify(await token('kid_next'), { account: 'acct_1', livemode: false })).resolves.toBeDefined();
  expect(fetches).toHaveLength(2);

  // The set runs out while the service cannot be reached: nothing verifies, not even a key still published.
  up = false;
  clock += 300_000;
  await expect(verify(await token('kid_next'), { account: 'acct_1', livemode: false })).rejects.toMatchObject({ code: 'jwks_unavailable' });
  up = true;
  await expect(verify(await token('kid_next'), { account: 'acct_1', livemode: false })).resolves.toBeDefined();
});
