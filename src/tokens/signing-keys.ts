import { createPrivateKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK, type CryptoKey } from 'jose';
import { ConfigError } from '../kernel/config.js';
import { devKeyFile } from '../kernel/dev-key-file.js';

export interface SigningKeys {
  /** Signs new tokens: `signingKey` is the same key as a node:crypto key, which signs synchronously (no thread-pool hop). */
  current: { kid: string; key: CryptoKey; signingKey: KeyObject };
  /** Every key a verifier should accept (the current one first), as a public JWKS. */
  jwks: { keys: JWK[] };
  verifyKeys: Map<string, CryptoKey>;
}

const DEV_KEY_FILE = 'token-signing-key.json';

function publicJwk(jwk: JWK, kid: string): JWK {
  const { kty, crv, x } = jwk;
  return { kty, crv, x, kid, alg: 'EdDSA', use: 'sig' };
}

/**
 * Builds signing keys from private Ed25519 JWKs. Several keys (a JWK Set) support rotation: the
 * first signs, all are published so tokens signed by the previous key still verify.
 */
export async function keysFromJwks(privateJwks: JWK[]): Promise<SigningKeys> {
  if (privateJwks.length === 0) throw new ConfigError('TOKEN_SIGNING_KEY: no key given');
  const verifyKeys = new Map<string, CryptoKey>();
  const published: JWK[] = [];
  let current: SigningKeys['current'] | undefined;
  for (const jwk of privateJwks) {
    if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || !jwk.d || !jwk.x) {
      throw new ConfigError('TOKEN_SIGNING_KEY: must be an Ed25519 private JWK (kty OKP, crv Ed25519, with d and x)');
    }
    const kid = jwk.kid ?? (await calculateJwkThumbprint(publicJwk(jwk, ''), 'sha256'));
    const priv = (await importJWK({ ...jwk, alg: 'EdDSA' }, 'EdDSA')) as CryptoKey;
    const pub = (await importJWK({ ...publicJwk(jwk, kid) }, 'EdDSA')) as CryptoKey;
    current ??= { kid, key: priv, signingKey: createPrivateKey({ key: { ...jwk, kid }, format: 'jwk' } as Parameters<typeof createPrivateKey>[0]) };
    verifyKeys.set(kid, pub);
    published.push(publicJwk(jwk, kid));
  }
  return { current: current!, jwks: { keys: published }, verifyKeys };
}

export async function generatePrivateJwk(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: await calculateJwkThumbprint({ kty: jwk.kty, crv: jwk.crv, x: jwk.x } as JWK, 'sha256') };
}

/**
 * TOKEN_SIGNING_KEY (a private JWK or JWK Set) when given; otherwise, outside production, a key
 * generated once and kept under DATA_DIR so tokens survive restarts.
 */
export async function loadSigningKeys(opts: { tokenSigningKey: string | undefined; dataDir: string; nodeEnv: string }): Promise<SigningKeys> {
  if (opts.tokenSigningKey) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(opts.tokenSigningKey);
    } catch {
      throw new ConfigError('TOKEN_SIGNING_KEY: not valid JSON (expected an Ed25519 private JWK)');
    }
    const list = (parsed as { keys?: JWK[] }).keys ?? [parsed as JWK];
    return keysFromJwks(list);
  }
  if (opts.nodeEnv === 'production') {
    throw new ConfigError('TOKEN_SIGNING_KEY: required when NODE_ENV=production (a development key is never used in production)');
  }
  const jwk = JSON.parse(await devKeyFile(opts.dataDir, DEV_KEY_FILE, async () => JSON.stringify(await generatePrivateJwk()))) as JWK;
  return keysFromJwks([jwk]);
}
