/**
 * AP2 payment receipts (DECISIONS §20, design §1.4): a compact JWS `{alg: ES256, typ:
 * payment-receipt+jwt, kid}` by the current mandate key, verifiable with the published JWK by any
 * JOSE library, with exactly `payment_receipt.json`'s claims for its status plus `aud` and `livemode`.
 */
import { generateKeyPairSync, verify } from 'node:crypto';
import { compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import { describe, expect, test } from 'vitest';
import type { MandateKeys } from '../../src/mandates/mandate-deps.js';
import { signReceipt, type ReceiptInput } from '../../src/mandates/receipt.js';

/** Mandate keys built by hand (the loader is tested with the codec): the first signs, both verify. */
function mandateKeys(): MandateKeys & { publicJwk: JWK } {
  const [current, older] = [generateKeyPairSync('ec', { namedCurve: 'P-256' }), generateKeyPairSync('ec', { namedCurve: 'P-256' })];
  const publicJwk = { ...(current.publicKey.export({ format: 'jwk' }) as JWK), kid: 'key-current', alg: 'ES256', use: 'sig' };
  return {
    current: { kid: 'key-current', privateKey: current.privateKey },
    verifyKeys: new Map([
      ['key-current', current.publicKey],
      ['key-older', older.publicKey],
    ]),
    jwks: [publicJwk, { ...(older.publicKey.export({ format: 'jwk' }) as JWK), kid: 'key-older', alg: 'ES256', use: 'sig' }],
    publicJwk,
  };
}

const keys = mandateKeys();
const REFERENCE = 'Xq3pOB0mJYdJv2a8b9kJxk8ZsVdW3YjTQXWcJ1rEg2w';
const input = (outcome: ReceiptInput['outcome'], over: Partial<ReceiptInput> = {}): ReceiptInput => ({
  issuer: 'https://spend-auth.example',
  audience: 'acct_123',
  livemode: false,
  reference: REFERENCE,
  paymentId: 'dec_abc',
  now: new Date('2026-11-27T12:00:00.999Z'),
  outcome,
  ...over,
});

const claimsOf = (jws: string) => JSON.parse(Buffer.from(jws.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;

describe('the JWS', () => {
  const receipt = signReceipt(keys, input({ status: 'Success' }));

  test('header: exactly {alg: ES256, typ: payment-receipt+jwt, kid} of the current key', () => {
    expect(receipt.split('.')).toHaveLength(3);
    expect(decodeProtectedHeader(receipt)).toStrictEqual({ alg: 'ES256', typ: 'payment-receipt+jwt', kid: 'key-current' });
  });

  test('verifies with the published JWK through a JOSE library (a 64-byte r‖s signature, not DER)', async () => {
    const { payload, protectedHeader } = await compactVerify(receipt, await importJWK(keys.publicJwk, 'ES256'), { algorithms: ['ES256'] });
    expect(protectedHeader.kid).toBe('key-current');
    expect(JSON.parse(new TextDecoder().decode(payload))).toEqual(claimsOf(receipt));
    expect(Buffer.from(receipt.split('.')[2]!, 'base64url')).toHaveLength(64);
  });

  test('signed by the current key, not another key that only verifies', () => {
    const [h, p, s] = receipt.split('.') as [string, string, string];
    const check = (kid: string) => verify('sha256', Buffer.from(`${h}.${p}`), { key: keys.verifyKeys.get(kid)!, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'));
    expect(check('key-current')).toBe(true);
    expect(check('key-older')).toBe(false);
  });

  test('a changed claim no longer verifies', async () => {
    const [h, , s] = receipt.split('.') as [string, string, string];
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claimsOf(receipt), status: 'Error' })).toString('base64url')}.${s}`;
    await expect(compactVerify(forged, await importJWK(keys.publicJwk, 'ES256'))).rejects.toThrow();
  });
});

describe('claims (payment_receipt.json, plus aud and livemode as in §4)', () => {
  test('Success: the confirmation ids are the payment id, and there is no error', () => {
    expect(claimsOf(signReceipt(keys, input({ status: 'Success' })))).toStrictEqual({
      iss: 'https://spend-auth.example',
      aud: 'acct_123',
      iat: 1_795_780_800,
      livemode: false,
      status: 'Success',
      reference: REFERENCE,
      payment_id: 'dec_abc',
      psp_confirmation_id: 'dec_abc',
      network_confirmation_id: 'dec_abc',
    });
  });

  test('Error: error and error_description, and no confirmation ids', () => {
    const receipt = signReceipt(
      keys,
      input({ status: 'Error', error: 'invalid_mandate', error_description: 'payment.budget: over its budget' }, { paymentId: 'req_42', livemode: true }),
    );
    expect(claimsOf(receipt)).toStrictEqual({
      iss: 'https://spend-auth.example',
      aud: 'acct_123',
      iat: 1_795_780_800,
      livemode: true,
      status: 'Error',
      reference: REFERENCE,
      payment_id: 'req_42',
      error: 'invalid_mandate',
      error_description: 'payment.budget: over its budget',
    });
  });

  test('iat is whole seconds, rounded down', () => {
    expect(claimsOf(signReceipt(keys, input({ status: 'Success' }, { now: new Date('2026-11-27T12:00:01.000Z') }))).iat).toBe(1_795_780_801);
  });

  test.each([
    ['an empty error', { status: 'Error', error: '', error_description: 'why' }],
    ['an empty error_description', { status: 'Error', error: 'invalid_mandate', error_description: '' }],
  ] as const)('an Error receipt with %s is not signed', (_what, outcome) => {
    expect(() => signReceipt(keys, input(outcome))).toThrow(/error_description/);
  });
});
