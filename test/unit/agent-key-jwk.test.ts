/**
 * The public keys agents register (DECISIONS §19): Ed25519 and P-256 only, kept as just their
 * public members, identified by their RFC 7638 thumbprint; a private key, another kind of key, a
 * point that does not import or a kid that is not the thumbprint is refused, and RFC 9421's
 * published test keys are refused in live mode.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { JwkError, parseAgentJwk } from '../../src/agent-keys/jwk.js';

/** RFC 8037 A.2/A.3: the Ed25519 example key and its thumbprint. */
const RFC8037 = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' };
/** RFC 9421 B.1.4 (Ed25519) and B.1.3 (P-256), as public JWKs. */
const RFC9421_ED25519 = { kty: 'OKP', crv: 'Ed25519', x: 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs' };
const RFC9421_P256 = { kty: 'EC', crv: 'P-256', x: 'qIVYZVLCrPZHGHjP17CTW0_-D9Lfw0EkjqF7xB4FivA', y: 'Mc4nN9LTDOBhfoUeg8Ye9WedFRhnZXZJA12Qp0zZ6F0' };

const publicJwk = (type: 'ed25519' | 'x25519' | 'ec' | 'rsa', namedCurve?: string) => {
  const { publicKey } = type === 'ec' ? generateKeyPairSync('ec', { namedCurve: namedCurve! }) : type === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync(type as 'ed25519');
  return publicKey.export({ format: 'jwk' }) as Record<string, string>;
};
const privateJwk = () => generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) as Record<string, string>;

async function refusal(input: unknown, livemode = false): Promise<JwkError> {
  const err = await parseAgentJwk(input, { livemode }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(JwkError);
  return err as JwkError;
}

describe('thumbprints', () => {
  test('RFC 8037 A.3: the Ed25519 example key', async () => {
    expect(await parseAgentJwk(RFC8037, { livemode: true })).toEqual({ jwk: RFC8037, alg: 'ed25519', thumbprint: 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k' });
  });

  test("RFC 9421's test keys, accepted in test mode", async () => {
    expect(await parseAgentJwk(RFC9421_ED25519, { livemode: false })).toMatchObject({ alg: 'ed25519', thumbprint: 'poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U' });
    expect(await parseAgentJwk(RFC9421_P256, { livemode: false })).toMatchObject({ alg: 'ecdsa-p256-sha256', thumbprint: 'ydQXMtvbsOsZyFir-Y7A8t7fKEM1gbKPvyFkdpu4fvI' });
  });

  test("RFC 9421's test keys are refused in live mode, named jwk", async () => {
    for (const key of [RFC9421_ED25519, RFC9421_P256]) {
      const err = await refusal(key, true);
      expect(err.param).toBe('jwk');
      expect(err.message).toMatch(/test key/);
    }
  });

  test('a fresh P-256 key: alg ecdsa-p256-sha256, x and y kept', async () => {
    const jwk = publicJwk('ec', 'P-256');
    const parsed = await parseAgentJwk(jwk, { livemode: true });
    expect(parsed.jwk).toEqual({ kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y });
    expect(parsed.alg).toBe('ecdsa-p256-sha256');
    expect(parsed.thumbprint).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('kept as just the public members', () => {
  test('alg, use, key_ops, ext and a kid equal to the thumbprint are dropped', async () => {
    const input = { ...RFC8037, alg: 'EdDSA', use: 'sig', key_ops: ['verify'], ext: true, kid: 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k', x5c: ['MIIB'] };
    expect((await parseAgentJwk(input, { livemode: false })).jwk).toEqual(RFC8037);
  });

  test('an EC key keeps x and y only', async () => {
    expect((await parseAgentJwk({ ...RFC9421_P256, alg: 'ES256', kid: 'ydQXMtvbsOsZyFir-Y7A8t7fKEM1gbKPvyFkdpu4fvI' }, { livemode: false })).jwk).toEqual(RFC9421_P256);
  });
});

describe('refused, naming jwk', () => {
  const cases: Array<[string, () => unknown]> = [
    ['a private key (d)', () => privateJwk()],
    ['a d member of any value', () => ({ ...RFC8037, d: null })],
    ['RSA', () => publicJwk('rsa')],
    ['P-384', () => publicJwk('ec', 'P-384')],
    ['X25519', () => publicJwk('x25519')],
    ['kty OKP with crv P-256', () => ({ ...RFC8037, crv: 'P-256' })],
    ['an x one byte short', () => ({ ...RFC8037, x: RFC8037.x.slice(0, 42) })],
    ['an x one byte long', () => ({ ...RFC8037, x: `${RFC8037.x}AA` })],
    ['an x with padding', () => ({ ...RFC8037, x: `${RFC8037.x}=` })],
    ['an x in base64, not base64url', () => ({ ...RFC9421_P256, x: RFC9421_P256.x.replace('_', '/').replace('-', '+') })],
    ['an x whose unused bits are set (a second spelling of the same key)', () => ({ ...RFC8037, x: `${RFC8037.x.slice(0, 42)}p` })],
    ['an x that is not a string', () => ({ ...RFC8037, x: 12 })],
    ['a P-256 key without y', () => ({ kty: 'EC', crv: 'P-256', x: RFC9421_P256.x })],
    // y with one bit changed (…6F0 → …6E0): the point is no longer on the curve.
    ['a P-256 point off the curve', () => ({ ...RFC9421_P256, y: 'Mc4nN9LTDOBhfoUeg8Ye9WedFRhnZXZJA12Qp0zZ6E0' })],
    ['an array', () => [RFC8037]],
    ['a string', () => JSON.stringify(RFC8037)],
    ['null', () => null],
  ];
  test.each(cases)('%s', async (_name, input) => {
    expect((await refusal(input())).param).toBe('jwk');
  });

  test('the point off the curve is refused by the import, not by its spelling', async () => {
    expect((await refusal({ ...RFC9421_P256, y: 'Mc4nN9LTDOBhfoUeg8Ye9WedFRhnZXZJA12Qp0zZ6E0' })).message).toMatch(/does not import/);
  });
});

describe('kid', () => {
  test('another kid → jwk.kid, naming the thumbprint', async () => {
    const err = await refusal({ ...RFC8037, kid: 'my-key-1' });
    expect(err.param).toBe('jwk.kid');
    expect(err.message).toContain('kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k');
  });

  test('a kid that is not a string, or null → jwk.kid', async () => {
    expect((await refusal({ ...RFC8037, kid: 5 })).param).toBe('jwk.kid');
    expect((await refusal({ ...RFC8037, kid: null })).param).toBe('jwk.kid');
  });

  test('a private key is refused as such even with a wrong kid', async () => {
    expect((await refusal({ ...privateJwk(), kid: 'x' })).param).toBe('jwk');
  });
});
