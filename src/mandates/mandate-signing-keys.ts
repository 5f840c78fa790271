/**
 * MANDATE_SIGNING_KEY (DECISIONS §20): the P-256 key that signs the mandates we issue and the
 * receipts we answer with (ES256, as AP2's SDK verifies), published in the JWKS beside the `gca_`
 * token keys. A JWK Set rotates: the first key signs, all verify. Outside production a key is
 * generated once under DATA_DIR; production refuses to start without one (as TOKEN_SIGNING_KEY).
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import { ConfigError } from '../kernel/config.js';
import { devKeyFile } from '../kernel/dev-key-file.js';
import type { MandateKeys } from './mandate-deps.js';

const DEV_KEY_FILE = 'mandate-signing-key.json';

/** RFC 7638 SHA-256 thumbprint of a P-256 key: the members in lexicographic order, no spaces. */
export function p256Thumbprint(jwk: { x: string; y: string }): string {
  const canonical = JSON.stringify({ crv: 'P-256', kty: 'EC', x: jwk.x, y: jwk.y });
  return createHash('sha256').update(canonical).digest('base64url');
}

/** The published form of a key: only its public members, with what a verifier needs to pick and use it. */
function publicJwk(jwk: { x: string; y: string }, kid: string): JWK {
  return { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, kid, alg: 'ES256', use: 'sig' };
}

/**
 * Reads one private JWK. node:crypto takes `x`/`y` as given without deriving them from `d`, so a
 * key whose point is not its `d`'s would publish a key that verifies nothing it signs: one signature
 * made and checked here proves the pair.
 */
function readPrivateJwk(jwk: JWK): { privateKey: KeyObject; publicKey: KeyObject; x: string; y: string } {
  if (typeof jwk !== 'object' || jwk === null || jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.d || !jwk.x || !jwk.y) {
    throw new ConfigError('MANDATE_SIGNING_KEY: must be a P-256 private JWK (kty EC, crv P-256, with d, x and y)');
  }
  let privateKey: KeyObject;
  let publicKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: { kty: 'EC', crv: 'P-256', d: jwk.d, x: jwk.x, y: jwk.y }, format: 'jwk' });
    publicKey = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y }, format: 'jwk' });
  } catch {
    throw new ConfigError('MANDATE_SIGNING_KEY: not a valid P-256 key (d, x and y must be base64url-encoded scalars and points of the curve)');
  }
  const probe = 'MANDATE_SIGNING_KEY';
  if (!verifyEs256(publicKey, probe, Buffer.from(signEs256(privateKey, probe), 'base64url'))) {
    throw new ConfigError('MANDATE_SIGNING_KEY: x and y are not the public key of its d');
  }
  return { privateKey, publicKey, x: jwk.x, y: jwk.y };
}

/** Mandate keys from private P-256 JWKs (the first signs). */
export function mandateKeysFromJwks(privateJwks: JWK[]): MandateKeys {
  if (!Array.isArray(privateJwks) || privateJwks.length === 0) throw new ConfigError('MANDATE_SIGNING_KEY: no key given');
  const verifyKeys = new Map<string, KeyObject>();
  const jwks: JWK[] = [];
  let current: MandateKeys['current'] | undefined;
  for (const jwk of privateJwks) {
    const key = readPrivateJwk(jwk);
    const kid = typeof jwk.kid === 'string' && jwk.kid !== '' ? jwk.kid : p256Thumbprint(key);
    // A kid names one key: two keys under one kid would make a verifier's choice arbitrary.
    if (verifyKeys.has(kid)) throw new ConfigError(`MANDATE_SIGNING_KEY: kid "${kid}" is given to more than one key`);
    current ??= { kid, privateKey: key.privateKey };
    verifyKeys.set(kid, key.publicKey);
    jwks.push(publicJwk(key, kid));
  }
  return { current: current!, verifyKeys, jwks };
}

/** A new private P-256 JWK with its thumbprint as `kid`. */
export async function generateMandatePrivateJwk(): Promise<JWK> {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { kty, crv, x, y, d } = privateKey.export({ format: 'jwk' });
  return { kty, crv, x, y, d, kid: p256Thumbprint({ x: x!, y: y! }) };
}

/**
 * MANDATE_SIGNING_KEY (a private JWK or JWK Set) when given; otherwise, outside production, a key
 * generated once and kept under DATA_DIR so issued mandates stay verifiable across restarts.
 */
export async function loadMandateKeys(opts: { mandateSigningKey: string | undefined; dataDir: string; nodeEnv: string }): Promise<MandateKeys> {
  if (opts.mandateSigningKey) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(opts.mandateSigningKey);
    } catch {
      throw new ConfigError('MANDATE_SIGNING_KEY: not valid JSON (expected a P-256 private JWK)');
    }
    if (typeof parsed !== 'object' || parsed === null) throw new ConfigError('MANDATE_SIGNING_KEY: must be a P-256 private JWK or a JWK Set');
    const list = (parsed as { keys?: JWK[] }).keys ?? [parsed as JWK];
    return mandateKeysFromJwks(list);
  }
  if (opts.nodeEnv === 'production') {
    throw new ConfigError('MANDATE_SIGNING_KEY: required when NODE_ENV=production (a development key is never used in production)');
  }
  const jwk = JSON.parse(await devKeyFile(opts.dataDir, DEV_KEY_FILE, async () => JSON.stringify(await generateMandatePrivateJwk()))) as JWK;
  return mandateKeysFromJwks([jwk]);
}

/** ES256 over `signingInput` (`header.payload`), as a JWS wants it: r‖s (64 bytes), base64url. Synchronous: no thread-pool hop. */
export function signEs256(privateKey: KeyObject, signingInput: string): string {
  return sign('sha256', Buffer.from(signingInput, 'utf8'), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
}

/** Checks an ES256 JWS signature (r‖s) over `signingInput` with a P-256 public key. */
export function verifyEs256(publicKey: KeyObject, signingInput: string, signature: Uint8Array): boolean {
  if (signature.length !== 64) return false;
  return verify('sha256', Buffer.from(signingInput, 'utf8'), { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature);
}
