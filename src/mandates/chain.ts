/**
 * The chain of a mandate presentation (DECISIONS §20, design §1.3): step 2's signatures and claims
 * (our root, then the agent's closed part bound to it) and step 4's freshness and shape, on a
 * presentation sd-jwt-parse.ts has already taken apart. Pure apart from the keys passed in; every
 * signature is checked by node:crypto in the calling thread (design §3.10).
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { vendorForm } from '../policies/vendor.js';
import { mandateInstant } from './constraints.js';
import { CLOSED_TYPS, CLOSED_VCT, CREDENTIAL_TYP, MANDATE_CLOCK_SKEW_SECONDS, OPEN_VCT, SD_ALG, type MandateKeys } from './mandate-deps.js';
import { verifyEs256 } from './mandate-signing-keys.js';
import { sha256B64url, type ParsedJwt, type ParsedPart, type ParsedPresentation } from './sd-jwt-parse.js';

export interface ChainFailure {
  error: 'mandates_not_supported' | 'invalid_credential';
  description: string;
}

type Json = Record<string, unknown>;

const invalid = (description: string): ChainFailure => ({ error: 'invalid_credential', description });
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const own = (o: Json, name: string): unknown => (Object.hasOwn(o, name) ? o[name] : undefined);

/** ES256 over the JWT as sent; the header's alg is checked by the caller, so no other algorithm reaches a key. */
function es256Verifies(jwt: ParsedJwt, key: KeyObject): boolean {
  try {
    return verifyEs256(key, jwt.signingInput, jwt.signature);
  } catch {
    return false;
  }
}

const B64URL_COORDINATE = /^[A-Za-z0-9_-]{43}$/;
/** Agents' keys, imported once (bounded; cleared when full). */
const MAX_CACHED_KEYS = 10_000;
const cnfKeys = new Map<string, KeyObject>();

/** The open mandate's `cnf.jwk` as a key: exactly {kty: EC, crv: P-256, x, y} (what §19 stores and jwk.json allows), a point on the curve. */
function cnfKey(open: Json): KeyObject | string {
  const cnf = own(open, 'cnf');
  const jwk = isObject(cnf) ? own(cnf, 'jwk') : undefined;
  if (!isObject(jwk)) return 'the open mandate has no cnf.jwk';
  const names = Object.keys(jwk).sort().join(',');
  const { kty, crv, x, y } = jwk;
  if (names !== 'crv,kty,x,y' || kty !== 'EC' || crv !== 'P-256' || !isString(x) || !isString(y) || !B64URL_COORDINATE.test(x) || !B64URL_COORDINATE.test(y)) {
    return 'the open mandate\'s cnf.jwk is not exactly a P-256 public key {kty, crv, x, y}';
  }
  const id = `${x}.${y}`;
  let key = cnfKeys.get(id);
  if (!key) {
    try {
      key = createPublicKey({ key: { kty, crv, x, y }, format: 'jwk' });
    } catch {
      return 'the open mandate\'s cnf.jwk is not a point on P-256';
    }
    if (cnfKeys.size >= MAX_CACHED_KEYS) cnfKeys.clear();
    cnfKeys.set(id, key);
  }
  return key;
}

/**
 * Credentials whose signature verified, by their open part's digest (which fixes the root JWT's
 * bytes), with the key that verified it: an open mandate is presented again with every payment.
 * Only a success is kept, and only for that very key object. Bounded, the least recent dropped first.
 */
const verifiedRoots = new Map<string, KeyObject>();
const MAX_VERIFIED_ROOTS = 10_000;

/** The root's ES256 signature under `key`, verified once per open part and key. */
function rootVerifies(open: ParsedPart, key: KeyObject): boolean {
  const verifiedBy = verifiedRoots.get(open.digest);
  if (verifiedBy === key) {
    verifiedRoots.delete(open.digest);
    verifiedRoots.set(open.digest, key);
    return true;
  }
  if (!es256Verifies(open.jwt, key)) return false;
  if (verifiedRoots.size >= MAX_VERIFIED_ROOTS) verifiedRoots.delete(verifiedRoots.keys().next().value!);
  verifiedRoots.set(open.digest, key);
  return true;
}

/**
 * Step 1's `vct`s, then step 2: our root (typ, alg, kid, signature, iss, jti), then the closed part
 * (typ, alg, signed by the open mandate's `cnf.jwk`, no `cnf` of its own, bound to the open part by
 * exactly one of `sd_hash` / `issuer_jwt_hash`, addressed to us), `_sd_alg` on both.
 */
export function checkChain(p: ParsedPresentation, keys: MandateKeys, issuer: string): ChainFailure | undefined {
  const { open, closed } = p;
  if (open.delegate.vct !== OPEN_VCT) return { error: 'mandates_not_supported', description: `the open mandate's vct is not ${OPEN_VCT}` };
  if (closed.delegate.vct !== CLOSED_VCT) return { error: 'mandates_not_supported', description: `the closed mandate's vct is not ${CLOSED_VCT}` };

  const root = open.jwt;
  if (root.header.typ !== CREDENTIAL_TYP) return invalid(`the credential's typ is not ${CREDENTIAL_TYP}`);
  if (root.header.alg !== 'ES256') return invalid('the credential is not signed with ES256');
  if (Object.hasOwn(root.header, 'crit')) return invalid("the credential's header names critical extensions (crit)");
  const kid = root.header.kid;
  const rootKey = isString(kid) ? keys.verifyKeys.get(kid) : undefined;
  if (!rootKey) return invalid('the credential is not signed by a mandate key of this service');
  if (!rootVerifies(open, rootKey)) return invalid('the credential\'s signature does not verify');
  if (root.payload.iss !== issuer) return invalid('the credential was not issued by this service');
  if (!isString(root.payload.jti)) return invalid('the credential has no jti');
  if (root.payload._sd_alg !== SD_ALG) return invalid(`the credential's _sd_alg is not ${SD_ALG}`);

  const kb = closed.jwt;
  if (!isString(kb.header.typ) || !CLOSED_TYPS.includes(kb.header.typ)) return invalid(`the closed mandate's typ is not one of ${CLOSED_TYPS.join(', ')}`);
  if (kb.header.alg !== 'ES256') return invalid('the closed mandate is not signed with ES256');
  // RFC 7515 §4.1.11: an extension named critical must be understood; we understand none.
  if (Object.hasOwn(kb.header, 'crit')) return invalid("the closed mandate's header names critical extensions (crit), none of which is understood here");
  const agentKey = cnfKey(open.delegate);
  if (typeof agentKey === 'string') return invalid(agentKey);
  if (!es256Verifies(kb, agentKey)) return invalid('the closed mandate is not signed by the key the mandate was issued to');
  // The last hop delegates no further (AP2: a terminal hop has no cnf).
  if (Object.hasOwn(kb.payload, 'cnf') || Object.hasOwn(closed.delegate, 'cnf')) return invalid('the closed mandate must not carry a cnf');
  const hasSdHash = Object.hasOwn(kb.payload, 'sd_hash');
  if (hasSdHash === Object.hasOwn(kb.payload, 'issuer_jwt_hash')) return invalid('the closed mandate needs exactly one of sd_hash and issuer_jwt_hash');
  const binding = hasSdHash ? kb.payload.sd_hash === open.digest : kb.payload.issuer_jwt_hash === sha256B64url(root.compact);
  if (!binding) return invalid(`the closed mandate's ${hasSdHash ? 'sd_hash' : 'issuer_jwt_hash'} does not match the credential presented`);
  if (kb.payload.aud !== issuer) return invalid('the closed mandate is not addressed to this service');
  if (kb.payload._sd_alg !== SD_ALG) return invalid(`the closed mandate's _sd_alg is not ${SD_ALG}`);
  return undefined;
}

const SKEW_MS = MANDATE_CLOCK_SKEW_SECONDS * 1000;
/** Seconds since the epoch within what a Date holds (±8.64e12 s): beyond it an instant cannot be compared or shown. */
const MAX_NUMERIC_DATE = 8.64e12;
const isNumericDate = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= MAX_NUMERIC_DATE;
const isInteger = (v: unknown): v is number => Number.isSafeInteger(v);
const optional = (o: Json, name: string, test: (v: unknown) => boolean) => !Object.hasOwn(o, name) || test(o[name]);
const CURRENCY = /^[A-Z]{3}$/;
const MAX_TRANSACTION_ID_LENGTH = 255;
/** The longest vendor a decision takes (policies/vendor.ts). */
const MAX_VENDOR_LENGTH = 255;

/** The vendor a closed mandate pays (DECISIONS §20 step 5): the host of `payee.website` when it has one, else `payee.name`. */
export function payeeVendor(payee: Json): string | undefined {
  const website = own(payee, 'website');
  if (isString(website)) {
    const form = vendorForm(website);
    if ((form.kind === 'host' || form.kind === 'ip') && form.key.length <= MAX_VENDOR_LENGTH) return form.key;
  }
  const name = own(payee, 'name');
  if (!isString(name)) return undefined;
  const trimmed = name.trim();
  return trimmed && trimmed.length <= MAX_VENDOR_LENGTH && vendorForm(trimmed).kind !== 'invalid' ? trimmed : undefined;
}

const objectWith = (v: unknown, required: readonly string[], optionalNames: readonly string[] = []) =>
  isObject(v) && required.every((n) => isString(own(v, n))) && optionalNames.every((n) => optional(v, n, isString));

/** payment_mandate.json (types/*.json by $ref), then what a decision needs of it. */
function closedMandateProblem(m: Json): string | undefined {
  const txn = own(m, 'transaction_id');
  // Bounded: it is stored and indexed with the presentation, and compared with checkout_jwt_hash (≤ 255).
  if (!isString(txn) || txn.length === 0 || txn.length > MAX_TRANSACTION_ID_LENGTH) return `transaction_id must be a string of 1–${MAX_TRANSACTION_ID_LENGTH} characters`;
  if (!objectWith(own(m, 'payee'), ['id', 'name'], ['website'])) return 'payee must be {id, name, website?} strings';
  if (!optional(m, 'pisp', (v) => objectWith(v, ['legal_name', 'brand_name', 'domain_name']))) return 'pisp must be {legal_name, brand_name, domain_name} strings';
  const pa = own(m, 'payment_amount');
  if (!isObject(pa) || !isString(own(pa, 'currency')) || !Object.hasOwn(pa, 'amount')) return 'payment_amount must be {amount, currency}';
  if (!isInteger(pa.amount) || pa.amount <= 0) return 'payment_amount.amount must be a positive integer of minor units';
  if (!CURRENCY.test(pa.currency as string)) return 'payment_amount.currency must be an upper-case ISO 4217 code';
  if (!objectWith(own(m, 'payment_instrument'), ['id', 'type'], ['description'])) return 'payment_instrument must be {id, type, description?} strings';
  if (!optional(m, 'execution_date', (v) => mandateInstant(v) !== undefined)) return 'execution_date must be a date or an RFC 3339 date-time';
  if (!optional(m, 'risk_data', isObject)) return 'risk_data must be an object';
  if (!optional(m, 'iat', isInteger) || !optional(m, 'exp', isInteger)) return 'iat and exp must be integers';
  if (payeeVendor(m.payee as Json) === undefined) return 'payee has neither a website with a host nor a name usable as a vendor';
  return undefined;
}

/**
 * Step 4 (all but the agent key's revocation, which needs the database): no `exp` passed by more
 * than the skew (root, open mandate, closed part, closed mandate); the closed part's own `iat`
 * within the skew either way, every other `iat` not beyond it in the future (design Q4: a mandate
 * lives up to a year); the closed `nonce` present and, when the caller gives one, equal; the
 * closed mandate per AP2's payment_mandate.json, with an amount, currency and vendor we can decide.
 */
export function checkFreshness(p: ParsedPresentation, now: Date, nonce: string | undefined): ChainFailure | undefined {
  const t = now.getTime();
  const times: [string, Json][] = [
    ['the credential', p.open.jwt.payload],
    ['the open mandate', p.open.delegate],
    ['the closed part', p.closed.jwt.payload],
    ['the closed mandate', p.closed.delegate],
  ];
  for (const [what, claims] of times) {
    for (const name of ['exp', 'iat']) {
      if (Object.hasOwn(claims, name) && !isNumericDate(claims[name])) return invalid(`${what}'s ${name} is not a NumericDate`);
    }
    const exp = own(claims, 'exp') as number | undefined;
    if (exp !== undefined && t > exp * 1000 + SKEW_MS) return invalid(`${what} expired at ${new Date(exp * 1000).toISOString()}`);
    const iat = own(claims, 'iat') as number | undefined;
    if (iat !== undefined && iat * 1000 > t + SKEW_MS) return invalid(`${what}'s iat is in the future`);
  }
  const kbIat = own(p.closed.jwt.payload, 'iat');
  if (kbIat === undefined) return invalid('the closed part has no iat');
  if ((kbIat as number) * 1000 < t - SKEW_MS) return invalid(`the closed part was made more than ${MANDATE_CLOCK_SKEW_SECONDS} s ago`);
  const kbNonce = own(p.closed.jwt.payload, 'nonce');
  if (!isString(kbNonce) || kbNonce === '') return invalid('the closed part has no nonce');
  if (nonce !== undefined && kbNonce !== nonce) return invalid('the closed part\'s nonce is not the one given');
  const problem = closedMandateProblem(p.closed.delegate);
  return problem ? invalid(`the closed mandate: ${problem}`) : undefined;
}

/** What the closed mandate asks, once steps 1–4 passed. */
export interface ClosedPayment {
  transaction_id: string;
  amount: number;
  currency: string;
  vendor: string;
  payee: Record<string, unknown>;
  closed: Record<string, unknown>;
}

/** The payment of a presentation that passed `checkFreshness` (which guarantees every member read here). */
export function closedPayment(p: ParsedPresentation): ClosedPayment {
  const closed = p.closed.delegate;
  const payee = closed.payee as Json;
  const amount = closed.payment_amount as { amount: number; currency: string };
  const vendor = payeeVendor(payee);
  if (vendor === undefined) throw new Error('closedPayment: the presentation did not pass checkFreshness');
  return { transaction_id: closed.transaction_id as string, amount: amount.amount, currency: amount.currency, vendor, payee, closed };
}
