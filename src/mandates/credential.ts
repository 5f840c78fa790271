/**
 * The open mandate we issue (DECISIONS §20): its constraints, built from what the admin asked and
 * the agent's policy, and the SD-JWT credential that discloses it (`@sd-jwt/core`).
 */
import type { MandateKeys, RecurrenceFrequency } from './mandate-deps.js';

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
export function buildOpenMandate(_terms: MandateTerms, _cnf: OpenMandate['cnf']['jwk'], _iat: number, _exp: number): OpenMandate {
  throw new Error('buildOpenMandate: not built yet');
}

/** The credential: `jwt~disclosure~…~`, header `{alg: "ES256", typ: "mandate+sd-jwt", kid}`, signed by the current mandate key. */
export async function issueCredential(_keys: MandateKeys, _claims: { iss: string; jti: string; iat: number; exp: number }, _open: OpenMandate): Promise<string> {
  throw new Error('issueCredential: not built yet');
}
