/**
 * An open mandate is presented again with every payment closed under it, so its parse and its
 * signature's verification are kept (design §3.10): what is kept must never answer differently
 * from parsing and verifying again. The parsed open part is shared, so it is frozen; a signature is
 * taken as verified only for the very key that verified it; the closed part is always read anew.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { JWK } from 'jose';
import { describe, expect, test } from 'vitest';
import { closeMandate } from '../../src/client/mandate-close.js';
import { checkChain } from '../../src/mandates/chain.js';
import { buildOpenMandate, issueCredential } from '../../src/mandates/credential.js';
import { generateMandatePrivateJwk, mandateKeysFromJwks } from '../../src/mandates/mandate-signing-keys.js';
import { parsePresentation, type ParsedPresentation } from '../../src/mandates/sd-jwt-parse.js';

const ISS = 'https://spend-auth.test';
const T = Math.floor(Date.now() / 1000);
const PAYEE = { id: 'cat-store', name: 'Cat Store', website: 'https://cats.example' };

const mandateJwk = await generateMandatePrivateJwk();
const keys = mandateKeysFromJwks([mandateJwk]);
const agentJwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) as JWK;
const cnf = { kty: 'EC' as const, crv: 'P-256' as const, x: agentJwk.x!, y: agentJwk.y! };
const open = buildOpenMandate({ currency: 'USD', amountMax: 5_000, payees: [PAYEE], openCheckoutHash: 'h'.repeat(43) }, cnf, T, T + 3_600);
const credential = await issueCredential(keys, { iss: ISS, jti: 'mdt_cache', iat: T, exp: T + 3_600 }, open);

const close = (transaction_id: string, amount = 1_000, agent: JWK = agentJwk) =>
  closeMandate(credential, { agentJwk: agent, transaction_id, payee: PAYEE, payment_amount: { amount, currency: 'USD' }, payment_instrument: { id: 'card-1', type: 'card' }, aud: ISS, nonce: 'n' });

function parsed(presentation: string): ParsedPresentation {
  const r = parsePresentation(presentation);
  if (!r.ok) throw new Error(r.description);
  return r.value;
}

describe('the open part, parsed once', () => {
  test('presented again under another closed mandate: the same open part, each closed part its own', async () => {
    const first = parsed(await close('txn-1', 1_000));
    const second = parsed(await close('txn-2', 2_000));
    expect(second.open).toBe(first.open);
    expect(second.open.delegate).toEqual(open);
    expect(first.closed.delegate).toMatchObject({ transaction_id: 'txn-1', payment_amount: { amount: 1_000 } });
    expect(second.closed.delegate).toMatchObject({ transaction_id: 'txn-2', payment_amount: { amount: 2_000 } });
    expect(second.reference).not.toBe(first.reference);
  });

  test('is frozen all the way down: nothing a request does to it reaches the next one', async () => {
    const p = parsed(await close('txn-3'));
    expect(() => {
      (p.open.delegate.constraints as { max?: number }[])[0]!.max = 1e9;
    }).toThrow(TypeError);
    expect(() => {
      p.open.jwt.payload.iss = 'https://other.example';
    }).toThrow(TypeError);
    expect(parsed(await close('txn-4')).open.delegate).toEqual(open);
  });
});

describe('the credential signature, verified once per key', () => {
  test('verified under our key, then presented to a service whose key has the same kid but is another: refused', async () => {
    expect(checkChain(parsed(await close('txn-5')), keys, ISS)).toBeUndefined();
    const impostor = mandateKeysFromJwks([{ ...(await generateMandatePrivateJwk()), kid: keys.current.kid }]);
    expect(checkChain(parsed(await close('txn-6')), impostor, ISS)).toEqual({ error: 'invalid_credential', description: "the credential's signature does not verify" });
    // And still good where it is good.
    expect(checkChain(parsed(await close('txn-7')), keys, ISS)).toBeUndefined();
  });

  test('a closed part under a credential verified before is still checked: signed by another key, refused', async () => {
    expect(checkChain(parsed(await close('txn-8')), keys, ISS)).toBeUndefined();
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) as JWK;
    expect(checkChain(parsed(await close('txn-9', 1_000, other)), keys, ISS)).toEqual({
      error: 'invalid_credential',
      description: 'the closed mandate is not signed by the key the mandate was issued to',
    });
  });
});
