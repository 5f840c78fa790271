/**
 * The open mandates we issue (DECISIONS §20): constraints in §20's order for every combination of
 * what was asked, `budget.max` in major units, `min` only when given, `cnf` exactly {kty, crv, x, y};
 * the credential's header, payload and disclosures (one per `allowed` entry, the open mandate last),
 * signed ES256 by the current mandate key, read back by our parser.
 */
import fs from 'node:fs';
import type { JWK } from 'jose';
import { describe, expect, test } from 'vitest';
import { buildOpenMandate, issueCredential, type MandateTerms } from '../../src/mandates/credential.js';
import { OPEN_VCT } from '../../src/mandates/mandate-deps.js';
import { mandateKeysFromJwks, verifyEs256 } from '../../src/mandates/mandate-signing-keys.js';
import { sha256B64url } from '../../src/mandates/sd-jwt-parse.js';

const readJwk = (file: string) => JSON.parse(fs.readFileSync(new URL(`../fixtures/ap2/${file}`, import.meta.url), 'utf8')) as JWK & { x: string; y: string };
const keys = mandateKeysFromJwks([readJwk('mandate-signing-key.json')]);
const agent = readJwk('agent-key.json');
const cnf = { kty: 'EC' as const, crv: 'P-256' as const, x: agent.x, y: agent.y };
const T = 1_795_790_000;
const HASH = 'c'.repeat(43);

const base: MandateTerms = {
  currency: 'USD',
  amountMax: 5000,
  payees: [
    { id: 'M-1', name: 'Cat Store', website: 'https://cats.example' },
    { id: 'M-2', name: 'Dog Store' },
  ],
  openCheckoutHash: HASH,
};
const OPTIONAL = {
  paymentInstruments: { paymentInstruments: [{ id: 'pi_1', type: 'card' }, { id: 'pi_2', type: 'wallet', description: 'Wallet' }] },
  budget: { budget: 12_000 },
  recurrence: { recurrence: { frequency: 'MONTHLY' as const, max_occurrences: 3 } },
  executionWindow: { executionWindow: { not_before: '2026-12-01T00:00:00Z', not_after: '2026-12-31T23:59:59Z' } },
};
const TYPE_OF = {
  paymentInstruments: 'payment.allowed_payment_instruments',
  budget: 'payment.budget',
  recurrence: 'payment.agent_recurrence',
  executionWindow: 'payment.execution_date',
} as const;
const ORDER = Object.keys(OPTIONAL) as Array<keyof typeof OPTIONAL>;

const decode = (segment: string): unknown => JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));

describe('buildOpenMandate', () => {
  test('constraints in §20 order for every combination of the optional ones', () => {
    for (let mask = 0; mask < 1 << ORDER.length; mask++) {
      const given = ORDER.filter((_, i) => mask & (1 << i));
      const terms = Object.assign({}, base, ...given.map((k) => OPTIONAL[k])) as MandateTerms;
      const open = buildOpenMandate(terms, cnf, T, T + 3600);
      expect(open.constraints.map((c) => c.type), given.join('+') || 'none').toEqual([
        'payment.amount_range',
        'payment.allowed_payees',
        ...given.map((k) => TYPE_OF[k]),
        'payment.reference',
      ]);
    }
  });

  test('every constraint as AP2 writes it, and the open mandate around them', () => {
    const open = buildOpenMandate({ ...base, amountMin: 100, ...OPTIONAL.paymentInstruments, ...OPTIONAL.budget, ...OPTIONAL.recurrence, ...OPTIONAL.executionWindow }, cnf, T, T + 3600);
    expect(open).toEqual({
      vct: OPEN_VCT,
      constraints: [
        { type: 'payment.amount_range', currency: 'USD', max: 5000, min: 100 },
        { type: 'payment.allowed_payees', allowed: base.payees },
        { type: 'payment.allowed_payment_instruments', allowed: OPTIONAL.paymentInstruments.paymentInstruments },
        { type: 'payment.budget', max: 120, currency: 'USD' },
        { type: 'payment.agent_recurrence', frequency: 'MONTHLY', max_occurrences: 3 },
        { type: 'payment.execution_date', not_before: '2026-12-01T00:00:00Z', not_after: '2026-12-31T23:59:59Z' },
        { type: 'payment.reference', conditional_transaction_id: HASH },
      ],
      cnf: { jwk: cnf },
      iat: T,
      exp: T + 3600,
    });
    // Member order too, as AP2's models dump them.
    expect(Object.keys(open.constraints[0]!)).toEqual(['type', 'currency', 'max', 'min']);
    expect(Object.keys(open.constraints[3]!)).toEqual(['type', 'max', 'currency']);
  });

  test('min is absent when not given, and kept when 0', () => {
    expect(buildOpenMandate(base, cnf, T, T + 60).constraints[0]).toEqual({ type: 'payment.amount_range', currency: 'USD', max: 5000 });
    expect(buildOpenMandate({ ...base, amountMin: 0 }, cnf, T, T + 60).constraints[0]).toEqual({ type: 'payment.amount_range', currency: 'USD', max: 5000, min: 0 });
  });

  test('budget.max is the minor amount in major units of the currency', () => {
    const budgetMax = (currency: string, budget: number) => buildOpenMandate({ ...base, currency, budget }, cnf, T, T + 60).constraints.find((c) => c.type === 'payment.budget')!.max;
    expect(budgetMax('USD', 12_345)).toBe(123.45);
    expect(budgetMax('USD', 29)).toBe(0.29);
    expect(budgetMax('USD', 1)).toBe(0.01);
    expect(budgetMax('JPY', 5000)).toBe(5000);
    expect(budgetMax('KWD', 1500)).toBe(1.5);
  });

  test('optional members of recurrence, window, payees and instruments are left out when not given', () => {
    const open = buildOpenMandate(
      { ...base, recurrence: { frequency: 'ON_DEMAND' }, budget: 100, executionWindow: { not_after: '2026-12-31T00:00:00Z' }, paymentInstruments: [{ id: 'pi', type: 'card', description: undefined }] },
      cnf,
      T,
      T + 60,
    );
    const byType = Object.fromEntries(open.constraints.map((c) => [c.type, c]));
    expect(byType['payment.agent_recurrence']).toEqual({ type: 'payment.agent_recurrence', frequency: 'ON_DEMAND' });
    expect(byType['payment.execution_date']).toEqual({ type: 'payment.execution_date', not_after: '2026-12-31T00:00:00Z' });
    expect(Object.keys((byType['payment.allowed_payees']!.allowed as object[])[1]!)).toEqual(['id', 'name']);
    expect(Object.keys((byType['payment.allowed_payment_instruments']!.allowed as object[])[0]!)).toEqual(['id', 'type']);
  });

  test('cnf holds exactly kty, crv, x and y, whatever the key object carries', () => {
    const open = buildOpenMandate(base, { ...agent } as never, T, T + 60);
    expect(open.cnf).toEqual({ jwk: { kty: 'EC', crv: 'P-256', x: agent.x, y: agent.y } });
    expect(Object.keys(open.cnf.jwk)).toEqual(['kty', 'crv', 'x', 'y']);
  });
});

describe('issueCredential', () => {
  const terms: MandateTerms = { ...base, ...OPTIONAL.paymentInstruments, ...OPTIONAL.budget, ...OPTIONAL.recurrence };
  const open = buildOpenMandate(terms, cnf, T, T + 3600);
  const claims = { iss: 'gca_issuer', jti: 'mdt_test', iat: T, exp: T + 3600 };

  test('header, payload, one disclosure per allowed entry and the open mandate last, ending ~', async () => {
    const credential = await issueCredential(keys, claims, open);
    expect(credential.endsWith('~')).toBe(true);
    const [jwt, ...rest] = credential.split('~');
    const disclosures = rest.slice(0, -1);
    const [h, p] = jwt!.split('.');
    expect(decode(h!)).toEqual({ alg: 'ES256', typ: 'mandate+sd-jwt', kid: 'test-mandate-key-1' });
    const payload = decode(p!) as Record<string, unknown>;
    expect(Object.keys(payload).sort()).toEqual(['_sd_alg', 'delegate_payload', 'exp', 'iat', 'iss', 'jti']);
    expect(payload).toMatchObject({ ...claims, _sd_alg: 'sha-256' });
    expect(disclosures).toHaveLength(2 + 2 + 1);
    const decoded = disclosures.map((d) => decode(d) as unknown[]);
    for (const d of decoded) {
      expect(d).toHaveLength(2);
      expect(Buffer.from(d[0] as string, 'base64url')).toHaveLength(16); // 128-bit salts
    }
    expect(decoded.slice(0, 4).map((d) => d[1])).toEqual([...terms.payees, ...terms.paymentInstruments!]);
    const last = decoded[4]![1] as Record<string, unknown>;
    expect(payload.delegate_payload).toEqual([{ '...': sha256B64url(disclosures[4]!) }]);
    const constraints = last.constraints as Array<Record<string, unknown>>;
    expect(constraints[1]!.allowed).toEqual(disclosures.slice(0, 2).map((d) => ({ '...': sha256B64url(d) })));
    expect(constraints[2]!.allowed).toEqual(disclosures.slice(2, 4).map((d) => ({ '...': sha256B64url(d) })));
    expect(new Set(decoded.map((d) => d[0])).size).toBe(5);
  });

  test('signed ES256 by the current mandate key', async () => {
    const credential = await issueCredential(keys, claims, open);
    const jwt = credential.split('~')[0]!;
    const signingInput = jwt.slice(0, jwt.lastIndexOf('.'));
    const signature = Buffer.from(jwt.slice(jwt.lastIndexOf('.') + 1), 'base64url');
    expect(verifyEs256(keys.verifyKeys.get('test-mandate-key-1')!, signingInput, signature)).toBe(true);
  });

  test('fresh salts each time: two issues of the same mandate share no disclosure', async () => {
    const [a, b] = await Promise.all([issueCredential(keys, claims, open), issueCredential(keys, claims, open)]);
    const set = new Set(a.split('~').slice(1, -1));
    expect(b.split('~').slice(1, -1).some((d) => set.has(d))).toBe(false);
  });
});
