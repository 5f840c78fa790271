/**
 * The open mandate we issue (DECISIONS §20): its constraints, built from what the admin asked and
 * the agent's policy, and the SD-JWT credential that discloses it (`@sd-jwt/core`).
 */
import { randomBytes } from 'node:crypto';
import { SDJwtInstance } from '@sd-jwt/core';
import { minorDigits, minorUnitsText } from '../kernel/money.js';
import { CREDENTIAL_TYP, OPEN_VCT, SD_ALG, SD_SALT_BYTES, type MandateKeys, type RecurrenceFrequency } from './mandate-deps.js';
import { signEs256 } from './mandate-signing-keys.js';
import { sha256 } from './sd-jwt-parse.js';

export interface Payee {
  id: string;
  name: string;
  website?: string | undefined;
}

export interface PaymentInstrument {
  id: string;
  type: string;
  description?: string | undefined;
}

/** What a mandate allows, settled: amounts in minor units of `currency` (the policy's). */
export interface MandateTerms {
  currency: string;
  amountMax: number;
  amountMin?: number | undefined;
  payees: Payee[];
  paymentInstruments?: PaymentInstrument[] | undefined;
  /** Minor units; written into the constraint in major units, as AP2's SDK reads it. */
  budget?: number | undefined;
  recurrence?: { frequency: RecurrenceFrequency; max_occurrences?: number | undefined } | undefined;
  executionWindow?: { not_before?: string | undefined; not_after?: string | undefined } | undefined;
  openCheckoutHash: string;
}

/** A constraint as AP2 writes it: its `type` and its members. */
export type Constraint = { type: string } & Record<string, unknown>;

/** The disclosed open mandate, resolved. */
export interface OpenMandate {
  vct: string;
  constraints: Constraint[];
  cnf: { jwk: { kty: 'EC'; crv: 'P-256'; x: string; y: string } };
  iat: number;
  exp: number;
}

/** The open mandate for `terms`, bound to the agent's P-256 key, constraints in §20's order. */
export function buildOpenMandate(terms: MandateTerms, cnf: OpenMandate['cnf']['jwk'], iat: number, exp: number): OpenMandate {
  const { currency } = terms;
  const constraints: Constraint[] = [
    { type: 'payment.amount_range', currency, max: terms.amountMax, ...(terms.amountMin !== undefined ? { min: terms.amountMin } : {}) },
    { type: 'payment.allowed_payees', allowed: terms.payees.map(payee) },
  ];
  if (terms.paymentInstruments !== undefined) constraints.push({ type: 'payment.allowed_payment_instruments', allowed: terms.paymentInstruments.map(instrument) });
  // AP2's SDK reads `max` as major units (`int(max * 100)`): the decimal text of the minor amount, read as a number, is the nearest double to it.
  if (terms.budget !== undefined) constraints.push({ type: 'payment.budget', max: Number(minorUnitsText(terms.budget, minorDigits(currency))), currency });
  if (terms.recurrence !== undefined) {
    const { frequency, max_occurrences } = terms.recurrence;
    constraints.push({ type: 'payment.agent_recurrence', frequency, ...(max_occurrences !== undefined ? { max_occurrences } : {}) });
  }
  if (terms.executionWindow !== undefined) {
    const { not_before, not_after } = terms.executionWindow;
    constraints.push({ type: 'payment.execution_date', ...(not_before !== undefined ? { not_before } : {}), ...(not_after !== undefined ? { not_after } : {}) });
  }
  constraints.push({ type: 'payment.reference', conditional_transaction_id: terms.openCheckoutHash });
  // Only the members AP2's `jwk.json` allows (`additionalProperties: false`), whatever the caller's object holds.
  return { vct: OPEN_VCT, constraints, cnf: { jwk: { kty: 'EC', crv: 'P-256', x: cnf.x, y: cnf.y } }, iat, exp };
}

const payee = (p: Payee): Payee => ({ id: p.id, name: p.name, ...(p.website !== undefined ? { website: p.website } : {}) });
const instrument = (i: PaymentInstrument): PaymentInstrument => ({ id: i.id, type: i.type, ...(i.description !== undefined ? { description: i.description } : {}) });

/** `@sd-jwt/core`'s disclosure frame type (from `issue`'s signature: `@sd-jwt/types` is not ours to import). */
type Frame = Parameters<SDJwtInstance<Record<string, unknown>>['issue']>[1];

/**
 * What is disclosed separately (§20's frame): the open mandate as one element of
 * `delegate_payload`, and inside it each entry of every `allowed` list.
 */
function disclosureFrame(open: OpenMandate): Frame {
  const constraints: Record<number, unknown> = {};
  open.constraints.forEach((c, i) => {
    if (Array.isArray(c.allowed)) constraints[i] = { allowed: { _sd: c.allowed.map((_, j) => j) } };
  });
  return { delegate_payload: { _sd: [0], 0: { constraints } } } as unknown as Frame;
}

/** The credential: `jwt~disclosure~…~`, header `{alg: "ES256", typ: "mandate+sd-jwt", kid}`, signed by the current mandate key. */
export async function issueCredential(keys: MandateKeys, claims: { iss: string; jti: string; iat: number; exp: number }, open: OpenMandate): Promise<string> {
  const { kid, privateKey } = keys.current;
  const sdjwt = new SDJwtInstance({
    // node:crypto, synchronous, r‖s: the same signer as receipts, no WebCrypto key to import per issue.
    signer: (signingInput: string) => signEs256(privateKey, signingInput),
    signAlg: 'ES256',
    hasher: (data: string | ArrayBuffer, alg: string) => {
      if (alg !== SD_ALG) throw new Error(`unexpected hash algorithm ${alg}`);
      return sha256(typeof data === 'string' ? data : Buffer.from(data));
    },
    hashAlg: SD_ALG,
    // 128-bit salts (crypto-nodejs's generateSalt(16) gives 16 hex characters: 64 bits).
    saltGenerator: () => randomBytes(SD_SALT_BYTES).toString('base64url'),
  });
  const payload: Record<string, unknown> = { iss: claims.iss, jti: claims.jti, iat: claims.iat, exp: claims.exp, delegate_payload: [open] };
  return sdjwt.issue(payload, disclosureFrame(open), { header: { typ: CREDENTIAL_TYP, kid } });
}
