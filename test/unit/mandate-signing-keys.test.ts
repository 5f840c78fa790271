/**
 * MANDATE_SIGNING_KEY (DECISIONS §20): P-256 private JWKs become node:crypto keys that sign ES256
 * (r‖s, as a JWS wants) and the public keys the JWKS publishes; production refuses to start
 * without one, and a development key is kept under DATA_DIR.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { calculateJwkThumbprint, compactVerify, importJWK, type JWK } from 'jose';
import { afterAll, describe, expect, test } from 'vitest';
import { ConfigError } from '../../src/kernel/config.js';
import { generateMandatePrivateJwk, loadMandateKeys, mandateKeysFromJwks, p256Thumbprint, signEs256, verifyEs256 } from '../../src/mandates/mandate-signing-keys.js';

const fixture = JSON.parse(fs.readFileSync(new URL('../fixtures/ap2/mandate-signing-key.json', import.meta.url), 'utf8')) as JWK;
const p256 = (): JWK => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) as JWK;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mandate-keys-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function refusal(run: () => unknown): ConfigError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('mandateKeysFromJwks', () => {
  test('the fixed test key: its kid, published with only its public members, alg ES256 and use sig', () => {
    const keys = mandateKeysFromJwks([fixture]);
    expect(keys.current.kid).toBe('test-mandate-key-1');
    expect(keys.jwks).toEqual([{ kty: 'EC', crv: 'P-256', x: fixture.x, y: fixture.y, kid: 'test-mandate-key-1', alg: 'ES256', use: 'sig' }]);
    expect([...keys.verifyKeys.keys()]).toEqual(['test-mandate-key-1']);
    expect(keys.verifyKeys.get('test-mandate-key-1')!.type).toBe('public');
  });

  test('a key without kid is named by its RFC 7638 thumbprint (the same as jose computes)', async () => {
    const { kid: _kid, ...jwk } = fixture;
    const keys = mandateKeysFromJwks([jwk]);
    const thumbprint = await calculateJwkThumbprint({ kty: 'EC', crv: 'P-256', x: fixture.x!, y: fixture.y! }, 'sha256');
    expect(keys.current.kid).toBe(thumbprint);
    expect(p256Thumbprint({ x: fixture.x!, y: fixture.y! })).toBe(thumbprint);
  });

  test('ES256 signatures are r‖s and verify with jose against the published key', async () => {
    const keys = mandateKeysFromJwks([fixture]);
    const signingInput = `${Buffer.from('{"alg":"ES256"}').toString('base64url')}.${Buffer.from('{"a":1}').toString('base64url')}`;
    const signature = signEs256(keys.current.privateKey, signingInput);
    expect(Buffer.from(signature, 'base64url')).toHaveLength(64);
    expect(verifyEs256(keys.verifyKeys.get(keys.current.kid)!, signingInput, Buffer.from(signature, 'base64url'))).toBe(true);
    expect(verifyEs256(keys.verifyKeys.get(keys.current.kid)!, `${signingInput}x`, Buffer.from(signature, 'base64url'))).toBe(false);
    const { payload } = await compactVerify(`${signingInput}.${signature}`, await importJWK(keys.jwks[0]!, 'ES256'));
    expect(new TextDecoder().decode(payload)).toBe('{"a":1}');
  });

  test('a JWK Set: the first key signs, every key verifies and is published', () => {
    const second = p256();
    const keys = mandateKeysFromJwks([fixture, second]);
    expect(keys.current.kid).toBe('test-mandate-key-1');
    expect(keys.jwks.map((k) => k.kid)).toEqual(['test-mandate-key-1', p256Thumbprint({ x: second.x!, y: second.y! })]);
    expect(keys.verifyKeys.size).toBe(2);
  });

  test('refusals name MANDATE_SIGNING_KEY and never quote the key', () => {
    const other = p256();
    const cases: unknown[][] = [
      [],
      [{ ...fixture, d: undefined }],
      [{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A' }],
      [{ ...p256(), crv: 'P-384' }],
      [{ ...fixture, x: other.x, y: other.y }],
      [{ ...fixture, d: 'not-a-scalar' }],
      [fixture, { ...p256(), kid: 'test-mandate-key-1' }],
    ];
    for (const jwks of cases) {
      const err = refusal(() => mandateKeysFromJwks(jwks as JWK[]));
      expect(err.message).toMatch(/^MANDATE_SIGNING_KEY: /);
      expect(err.message).not.toContain(fixture.d);
    }
  });
});

describe('loadMandateKeys', () => {
  test('MANDATE_SIGNING_KEY as one JWK or as a JWK Set', async () => {
    const one = await loadMandateKeys({ mandateSigningKey: JSON.stringify(fixture), dataDir: tmp, nodeEnv: 'production' });
    expect(one.current.kid).toBe('test-mandate-key-1');
    const set = await loadMandateKeys({ mandateSigningKey: JSON.stringify({ keys: [p256(), fixture] }), dataDir: tmp, nodeEnv: 'production' });
    expect(set.jwks).toHaveLength(2);
    expect(set.jwks[1]!.kid).toBe('test-mandate-key-1');
  });

  test('production refuses to start without it, worded as TOKEN_SIGNING_KEY', async () => {
    await expect(loadMandateKeys({ mandateSigningKey: undefined, dataDir: tmp, nodeEnv: 'production' })).rejects.toThrow(
      new ConfigError('MANDATE_SIGNING_KEY: required when NODE_ENV=production (a development key is never used in production)'),
    );
    await expect(loadMandateKeys({ mandateSigningKey: '{not json', dataDir: tmp, nodeEnv: 'development' })).rejects.toThrow(
      new ConfigError('MANDATE_SIGNING_KEY: not valid JSON (expected a P-256 private JWK)'),
    );
    await expect(loadMandateKeys({ mandateSigningKey: '7', dataDir: tmp, nodeEnv: 'development' })).rejects.toBeInstanceOf(ConfigError);
  });

  test('outside production a key is generated once under DATA_DIR (0600) and kept', async () => {
    const dir = path.join(tmp, 'data');
    const first = await loadMandateKeys({ mandateSigningKey: undefined, dataDir: dir, nodeEnv: 'development' });
    const second = await loadMandateKeys({ mandateSigningKey: undefined, dataDir: dir, nodeEnv: 'test' });
    expect(second.jwks).toEqual(first.jwks);
    const file = path.join(dir, 'mandate-signing-key.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as JWK;
    expect(stored).toMatchObject({ kty: 'EC', crv: 'P-256', kid: first.current.kid });
  });
});

test('generateMandatePrivateJwk: a P-256 private JWK named by its thumbprint', async () => {
  const jwk = await generateMandatePrivateJwk();
  expect(Object.keys(jwk).sort()).toEqual(['crv', 'd', 'kid', 'kty', 'x', 'y']);
  expect(jwk.kid).toBe(await calculateJwkThumbprint({ kty: 'EC', crv: 'P-256', x: jwk.x!, y: jwk.y! }, 'sha256'));
  expect(mandateKeysFromJwks([jwk]).current.kid).toBe(jwk.kid);
});
