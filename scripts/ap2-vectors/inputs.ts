/**
 * What the AP2 vectors are made of (test/fixtures/ap2/README.md): the fixed test keys, the pinned
 * time, and the terms and payments of each vector. Shared by export-ours.ts, which writes the
 * vectors, and test/unit/ap2-vectors.test.ts, which issues a fresh credential from the same terms.
 */
import fs from 'node:fs';
import type { MandateTerms } from '../../src/mandates/credential.js';
import type { CloseMandateOptions } from '../../src/client/mandate-close.js';

const FIXTURES = new URL('../../test/fixtures/ap2/', import.meta.url);
export const fixturePath = (name: string): URL => new URL(name, FIXTURES);
const readJwk = (name: string) => JSON.parse(fs.readFileSync(fixturePath(name), 'utf8')) as { kty: 'EC'; crv: 'P-256'; x: string; y: string; d: string; kid: string };

/** The fixed, test-only keys: the mandate signing key (kid `test-mandate-key-1`) and the agent's key (kid its thumbprint). */
export const MANDATE_KEY = readJwk('mandate-signing-key.json');
export const AGENT_KEY = readJwk('agent-key.json');
export const publicOf = ({ kty, crv, x, y, kid }: typeof MANDATE_KEY) => ({ kty, crv, x, y, kid });

/** Pinned time: 2026-11-28T10:13:20Z. Every vector is issued and closed at T and verified at T + 60. */
export const T = 1_795_860_800;
export const VERIFY_AT = T + 60;
/** The `gca_` issuer (DEFAULT_ISSUER): the credential's `iss` and the closed part's `aud`. */
export const ISS = 'spend-auth';
export const JTI = 'mdt_0123456789abcdef0123456789ab';
export const OPEN_CHECKOUT_HASH = 'Y2hlY2tvdXQtbWFuZGF0ZS1vZi10aGUtY2F0LXN0b3Jl';
export const TRANSACTION_ID = 'dHJhbnNhY3Rpb24tMDAwMS1hdC10aGUtY2F0LXN0b3Jl';
export const NONCE = 'nonce-0001';
export const CLAIMS = { iss: ISS, jti: JTI, iat: T, exp: T + 3600 };

export const CAT_STORE = { id: 'M-1', name: 'Cat Store', website: 'https://cats.example' };

/** (a), (c): every constraint we issue. */
export const FULL_TERMS: MandateTerms = {
  currency: 'USD',
  amountMax: 5000,
  amountMin: 100,
  payees: [CAT_STORE, { id: 'M-2', name: 'Dog Store' }],
  paymentInstruments: [
    { id: 'pi_1', type: 'card', description: 'Visa ending 4242' },
    { id: 'pi_2', type: 'wallet' },
  ],
  budget: 12_000,
  recurrence: { frequency: 'MONTHLY', max_occurrences: 3 },
  executionWindow: { not_before: '2026-11-01T00:00:00Z', not_after: '2027-01-01T00:00:00Z' },
  openCheckoutHash: OPEN_CHECKOUT_HASH,
};

/** (d): a budget of 29 cents (`max` 0.29): AP2's SDK truncates 0.29 × 100 to 28, §20 rounds to 29. */
export const BUDGET_TERMS: MandateTerms = {
  currency: 'USD',
  amountMax: 5000,
  payees: [CAT_STORE],
  budget: 29,
  recurrence: { frequency: 'ON_DEMAND' },
  openCheckoutHash: OPEN_CHECKOUT_HASH,
};

/** The payment each vector closes: $25.00 at the Cat Store, with the first instrument, in the window. */
export const PAYMENT: Omit<CloseMandateOptions, 'agentJwk'> = {
  transaction_id: TRANSACTION_ID,
  payee: CAT_STORE,
  payment_amount: { amount: 2500, currency: 'USD' },
  payment_instrument: { id: 'pi_1', type: 'card', description: 'Visa ending 4242' },
  execution_date: '2026-12-01T12:00:00Z',
  aud: ISS,
  nonce: NONCE,
  iat: T,
  exp: T + 600,
  now: () => new Date(T * 1000),
};
