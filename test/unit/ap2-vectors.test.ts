/**
 * The AP2 vectors (test/fixtures/ap2/README.md): chains made or checked by AP2's own Python SDK,
 * committed with what it answered. Here, with the codec alone: every chain parses, its root is
 * signed by the mandate key, its closed part by the open mandate's `cnf` key and bound to the open
 * part by `sd_hash`; our `reference` is AP2's. A credential we issue today has the structure of the
 * one AP2 accepted; the budget rounding divergence, the Ed25519 refusal and the receipts AP2
 * verified are recorded as AP2 answered them.
 */
import fs from 'node:fs';
import { createPublicKey } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { closeMandate } from '../../src/client/mandate-close.js';
import { buildOpenMandate, issueCredential } from '../../src/mandates/credential.js';
import { CLOSED_TYPS, CLOSED_VCT, CREDENTIAL_TYP, OPEN_VCT, RECEIPT_TYP } from '../../src/mandates/mandate-deps.js';
import { mandateKeysFromJwks, verifyEs256 } from '../../src/mandates/mandate-signing-keys.js';
import { parsePresentation, sha256B64url, type ParsedPresentation } from '../../src/mandates/sd-jwt-parse.js';
import { signReceipt } from '../../src/mandates/receipt.js';
import { minorDigits } from '../../src/kernel/money.js';
import { AGENT_KEY, CLAIMS, FULL_TERMS, ISS, MANDATE_KEY, PAYMENT, T, fixturePath } from '../../scripts/ap2-vectors/inputs.js';

const read = <V>(name: string): V => JSON.parse(fs.readFileSync(fixturePath(name), 'utf8')) as V;
const decode = (segment: string): unknown => JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));

interface ChainInput {
  chain: string;
  mandate_public_jwk: { kty: string; crv: string; x: string; y: string; kid: string };
  aud: string;
  nonce: string;
  now: number;
  open_checkout_hash: string;
  transaction_id: string;
}
type ChainOutput = { input: ChainInput; payloads?: unknown[]; violations?: string[]; reference?: string; error?: string };
type Ap2Closed = ChainInput & { payloads: unknown[]; violations: string[]; reference: string };

const mandatePublicKey = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: MANDATE_KEY.x, y: MANDATE_KEY.y }, format: 'jwk' });

/** What our verifier's steps 1, 2 and 4 check that needs no database: structure, both signatures, the binding, aud, nonce, times. */
function checkChain(v: ChainInput): ParsedPresentation {
  const result = parsePresentation(v.chain);
  if (!result.ok) throw new Error(`${result.error}: ${result.description}`);
  const { open, closed } = result.value;
  expect(v.mandate_public_jwk).toMatchObject({ kty: 'EC', crv: 'P-256', x: MANDATE_KEY.x, y: MANDATE_KEY.y, kid: MANDATE_KEY.kid });

  expect(open.jwt.header).toMatchObject({ alg: 'ES256', typ: CREDENTIAL_TYP, kid: MANDATE_KEY.kid });
  expect(verifyEs256(mandatePublicKey, open.jwt.signingInput, open.jwt.signature)).toBe(true);
  expect(open.jwt.payload.iss).toBe(ISS);
  expect(open.delegate.vct).toBe(OPEN_VCT);
  const jwk = (open.delegate.cnf as { jwk: Record<string, string> }).jwk;
  expect(Object.keys(jwk).sort()).toEqual(['crv', 'kty', 'x', 'y']);

  expect(CLOSED_TYPS).toContain(closed.jwt.header.typ);
  expect(closed.jwt.header.alg).toBe('ES256');
  const cnfKey = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: jwk.x!, y: jwk.y! }, format: 'jwk' });
  expect(verifyEs256(cnfKey, closed.jwt.signingInput, closed.jwt.signature)).toBe(true);
  expect(closed.jwt.payload.sd_hash).toBe(sha256B64url(open.asSent));
  expect(closed.jwt.payload).not.toHaveProperty('issuer_jwt_hash');
  expect(closed.delegate).not.toHaveProperty('cnf');
  expect(closed.delegate.vct).toBe(CLOSED_VCT);
  expect(closed.jwt.payload.aud).toBe(open.jwt.payload.iss);
  expect(closed.jwt.payload.nonce).toBe(v.nonce);

  for (const exp of [open.jwt.payload.exp, open.delegate.exp, closed.delegate.exp]) expect(v.now).toBeLessThanOrEqual((exp as number) + 300);
  expect(Math.abs(v.now - (closed.jwt.payload.iat as number))).toBeLessThanOrEqual(300);
  expect(closed.delegate.transaction_id).toBe(v.transaction_id);
  return result.value;
}

/** A credential or presentation with salts, digests, hashes and signatures masked: its structure. */
function skeleton(part: string): unknown {
  const segments = part.split('~');
  segments.pop();
  const [jwt, ...disclosures] = segments as [string, ...string[]];
  const mask = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(mask);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, k === '...' || k === 'sd_hash' || k === 'issuer_jwt_hash' ? '<digest>' : k === '_sd' ? (v as unknown[]).map(() => '<digest>') : mask(v)]),
    );
  };
  const [h, p] = jwt.split('.') as [string, string];
  return {
    header: decode(h),
    payload: mask(decode(p)),
    payloadKeys: Object.keys(decode(p) as object),
    disclosures: disclosures.map((d) => {
      const [, ...rest] = decode(d) as unknown[];
      return ['<salt>', ...rest.map(mask)];
    }),
  };
}
const openOf = (chain: string) => `${chain.slice(0, chain.indexOf('~~'))}~`;
const closedOf = (chain: string) => chain.slice(chain.indexOf('~~') + 2);

describe('(a) AP2 closes a credential we issued', () => {
  const ours = read<{ credential: string; open_mandate: unknown }>('our-credential.json');
  const v = read<Ap2Closed>('ap2-closes-ours.json');

  test('AP2 found no violation, and our checks pass on its chain', () => {
    expect(v.violations).toEqual([]);
    const parsed = checkChain(v);
    expect(parsed.open.asSent).toBe(ours.credential);
    expect(parsed.open.delegate).toEqual(ours.open_mandate);
  });

  test('our reference is the one AP2 computed, and we resolve what AP2 resolved', () => {
    const parsed = checkChain(v);
    expect(parsed.reference).toBe(v.reference);
    expect(v.payloads).toEqual([parsed.open.delegate, parsed.closed.delegate]);
    // AP2's SDK writes JSON with `", "` separators: the closed disclosure is hashed as sent.
    expect(Buffer.from(parsed.closed.disclosures[0]!, 'base64url').toString()).toContain('", ');
  });
});

describe('(b) a root issued by AP2 in §20\'s shape', () => {
  const v = read<Ap2Closed>('ap2-root-in-our-shape.json');

  test('AP2 found no violation; it passes our structural, signature and binding checks', () => {
    expect(v.violations).toEqual([]);
    const parsed = checkChain(v);
    expect(parsed.reference).toBe(v.reference);
    expect(parsed.open.jwt.payload).toMatchObject({ iss: ISS, jti: CLAIMS.jti, iat: T, exp: T + 3600, _sd_alg: 'sha-256' });
    expect((parsed.open.delegate.constraints as Array<{ type: string }>).map((c) => c.type)).toEqual([
      'payment.amount_range',
      'payment.allowed_payees',
      'payment.allowed_payment_instruments',
      'payment.budget',
      'payment.agent_recurrence',
      'payment.execution_date',
      'payment.reference',
    ]);
    expect(v.payloads).toEqual([parsed.open.delegate, parsed.closed.delegate]);
  });
});

describe('(c) AP2\'s reference verifier accepts a chain we issued and closed', () => {
  const v = read<ChainOutput>('we-issue.json');

  test('committed: MandateClient.verify took it and PaymentMandateChain.verify found no violation', () => {
    expect(v.error).toBeUndefined();
    expect(v.violations).toEqual([]);
    const parsed = checkChain(v.input);
    expect(parsed.reference).toBe(v.reference);
    expect(v.payloads).toEqual([parsed.open.delegate, parsed.closed.delegate]);
  });

  test('a credential issued and closed now has the structure of the one AP2 accepted', async () => {
    const keys = mandateKeysFromJwks([MANDATE_KEY]);
    const open = buildOpenMandate(FULL_TERMS, { kty: 'EC', crv: 'P-256', x: AGENT_KEY.x, y: AGENT_KEY.y }, T, T + 3600);
    const credential = await issueCredential(keys, CLAIMS, open);
    const fresh = await closeMandate(credential, { ...PAYMENT, agentJwk: AGENT_KEY });
    expect(fresh).not.toBe(v.input.chain); // new salts and signatures
    expect(skeleton(openOf(fresh))).toEqual(skeleton(openOf(v.input.chain)));
    expect(skeleton(closedOf(fresh))).toEqual(skeleton(closedOf(v.input.chain)));
    checkChain({ ...v.input, chain: fresh });
  });
});

describe('(d) the budget rounding divergence', () => {
  const v = read<ChainOutput>('budget-divergence.json');

  test('AP2 truncates max × 100 (0.29 → 28) and refuses 29 cents; §20 rounds (→ 29) and takes it', () => {
    expect(v.violations).toEqual(['Cumulative spend 29 exceeds budget limit 28 (past spend: 0)']);
    const parsed = checkChain(v.input);
    const budget = (parsed.open.delegate.constraints as Array<Record<string, unknown>>).find((c) => c.type === 'payment.budget')!;
    expect(budget).toEqual({ type: 'payment.budget', max: 0.29, currency: 'USD' });
    const amount = (parsed.closed.delegate.payment_amount as { amount: number }).amount;
    expect(amount).toBe(29);
    const max = budget.max as number;
    expect(Math.trunc(max * 100)).toBe(28); // AP2's SDK: int(max * 100)
    expect(Math.round(max * 10 ** minorDigits('USD'))).toBe(29); // §20
    expect(0 + amount).toBeLessThanOrEqual(Math.round(max * 10 ** minorDigits('USD')));
  });
});

describe('(e) an Ed25519 cnf', () => {
  test('AP2\'s JsonWebKey model refuses it (kty must be EC, crv P-256): we issue P-256 only', () => {
    const v = read<ChainOutput>('ed25519-cnf.json');
    expect(v.payloads).toBeUndefined();
    expect(v.error).toMatch(/^ValidationError: 2 validation errors for JsonWebKey\nkty\n {2}Input should be 'EC'/);
    expect(v.error).toContain("crv\n  Input should be 'P-256'");
    const parsed = parsePresentation(v.input.chain);
    if (!parsed.ok) throw new Error(parsed.description);
    expect((parsed.value.open.delegate.cnf as { jwk: { kty: string } }).jwk.kty).toBe('OKP');
  });
});

describe('(f) receipts in §20\'s shape', () => {
  const v = read<{ input: { chain: string; reference: string; receipts: Record<string, string> }; reference: string; results: Record<string, unknown> }>('receipts.json');

  test('AP2\'s verify_receipt verified each, against the reference it computed from the chain', () => {
    expect(Object.keys(v.results).sort()).toEqual(['error', 'error_before_decision', 'success']);
    for (const result of Object.values(v.results)) expect(result).toEqual({ verified: true });
    expect(v.reference).toBe(v.input.reference);
    expect(v.reference).toBe(sha256B64url(closedOf(v.input.chain).split('~', 1)[0]!));
  });

  test('each is ES256 under the mandate key, with §20\'s header and claims', () => {
    for (const [name, jws] of Object.entries(v.input.receipts)) {
      const [h, p, s] = jws.split('.') as [string, string, string];
      expect(verifyEs256(mandatePublicKey, `${h}.${p}`, Buffer.from(s, 'base64url'))).toBe(true);
      expect(decode(h)).toEqual({ alg: 'ES256', typ: RECEIPT_TYP, kid: MANDATE_KEY.kid });
      const claims = decode(p) as Record<string, unknown>;
      expect(claims).toMatchObject({ iss: ISS, reference: v.reference, livemode: false });
      expect(typeof claims.iat).toBe('number');
      expect(typeof claims.aud).toBe('string');
      if (name === 'success') {
        expect(claims.status).toBe('Success');
        expect(claims.psp_confirmation_id).toBe(claims.payment_id);
        expect(claims.network_confirmation_id).toBe(claims.payment_id);
        expect(claims).not.toHaveProperty('error');
      } else {
        expect(claims.status).toBe('Error');
        expect(claims.error).toEqual(expect.any(String));
        expect(claims.error_description).toEqual(expect.any(String));
        expect(claims).not.toHaveProperty('psp_confirmation_id');
      }
    }
  });

  test("they are what the service's receipt signer makes: the same header and claims from the same inputs", () => {
    const keys = mandateKeysFromJwks([MANDATE_KEY]);
    for (const jws of Object.values(v.input.receipts)) {
      const [h, p] = jws.split('.') as [string, string];
      const c = decode(p) as { iss: string; aud: string; iat: number; livemode: boolean; reference: string; payment_id: string; status: 'Success' | 'Error'; error?: string; error_description?: string };
      const outcome = c.status === 'Success' ? { status: 'Success' as const } : { status: 'Error' as const, error: c.error!, error_description: c.error_description! };
      const ours = signReceipt(keys, { issuer: c.iss, audience: c.aud, livemode: c.livemode, reference: c.reference, paymentId: c.payment_id, now: new Date(c.iat * 1000), outcome });
      const [oh, op] = ours.split('.') as [string, string];
      expect(oh).toBe(h);
      expect(op).toBe(p);
    }
  });
});
