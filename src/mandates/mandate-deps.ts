/**
 * AP2 mandates (DECISIONS §20): the names and limits of the feature, and what its services need.
 * The service issues open Payment Mandates (`mandate.payment.open.1`) bound to an agent's P-256 key
 * and verifies the closed ones (`mandate.payment.1`) the agent makes from them, counting each
 * mandate's uses and budget on its own ledger.
 */
import type { KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import type { AuthorizationDeps } from '../authorization/authorization.deps.js';
import type { ResponseCipher } from '../idempotency/response-cipher.js';

/** The open mandate's `vct`: the only one we issue and take. */
export const OPEN_VCT = 'mandate.payment.open.1';
/** The closed mandate's `vct`. */
export const CLOSED_VCT = 'mandate.payment.1';
/** Our root credential's header `typ`. */
export const CREDENTIAL_TYP = 'mandate+sd-jwt';
/** The closed part's header `typ`s AP2 names. */
export const CLOSED_TYPS: readonly string[] = ['kb+sd-jwt', 'kb-sd-jwt'];
/** The receipt's header `typ`. */
export const RECEIPT_TYP = 'payment-receipt+jwt';
/** The only hash algorithm taken for disclosures and `sd_hash`. */
export const SD_ALG = 'sha-256';
/** Clock skew allowed on every `exp` and `iat`. */
export const MANDATE_CLOCK_SKEW_SECONDS = 300;
export const MANDATE_EXPIRES_IN_MIN_SECONDS = 60;
export const MANDATE_EXPIRES_IN_MAX_SECONDS = 31_622_400;
export const MANDATE_EXPIRES_IN_DEFAULT_SECONDS = 3_600;
export const MAX_PAYEES = 20;
export const MAX_INSTRUMENTS = 20;
export const MAX_OCCURRENCES_LIMIT = 1_000;
export const BIWEEKLY_SECONDS = 14 * 86_400;
/** Salt of each disclosure we issue: 128 bits. */
export const SD_SALT_BYTES = 16;
/** `<open>~~<closed>~`: more parts are a delegation chain AP2 v0.2 does not define for payments. */
export const PRESENTATION_MAX_PARTS = 2;
/** Bounds on a presentation's shape, checked before any hashing or signature work. */
export const MAX_DISCLOSURES = 64;
export const MAX_DISCLOSURE_DEPTH = 8;

export const RECURRENCE_FREQUENCIES = ['ON_DEMAND', 'DAILY', 'WEEKLY', 'BIWEEKLY', 'MONTHLY', 'QUARTERLY', 'ANNUALLY'] as const;
export type RecurrenceFrequency = (typeof RECURRENCE_FREQUENCIES)[number];

/** The mandate signing keys (MANDATE_SIGNING_KEY): the first signs, all verify; node:crypto keys sign and verify synchronously. */
export interface MandateKeys {
  current: { kid: string; privateKey: KeyObject };
  verifyKeys: Map<string, KeyObject>;
  /** The public keys as published in the JWKS: `{kty: "EC", crv: "P-256", x, y, kid, alg: "ES256", use: "sig"}`. */
  jwks: JWK[];
}

/** What the mandate services need: the decision path's deps (the `gca_` signer, the database), the mandate keys, and the sealer of stored answers. */
export interface MandateDeps {
  authorization: AuthorizationDeps;
  mandateKeys: MandateKeys;
  /** Seals a presentation's first answer (it may hold a `gca_` token), as idempotent responses are. */
  cipher: ResponseCipher;
  now?: (() => Date) | undefined;
}
