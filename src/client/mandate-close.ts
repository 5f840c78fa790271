/**
 * The agent's side of an AP2 mandate (DECISIONS §20): close the open mandate the service issued
 * into a payment, signed with the agent's own P-256 key (the mandate's `cnf`), in the wire format
 * AP2's SDK sends, `<open>~~<closed>~`. Built as AP2's `kb_sd_jwt.create` builds a terminal hop:
 * header `{alg: "ES256", typ: "kb+sd-jwt", kid}`, payload `{delegate_payload: [{"...": d}], iat,
 * aud, nonce, sd_hash, _sd_alg}`, the closed mandate as its one disclosure. Only `jose` and
 * node:crypto, so the client needs no SD-JWT library.
 */
import { createHash, randomBytes } from 'node:crypto';
import { CompactSign, calculateJwkThumbprint } from 'jose';
import { parseSigningKey } from './signing-key.js';

export interface ClosedPayee {
  id: string;
  name: string;
  website?: string;
}

export interface CloseMandateOptions {
  /** The agent key the mandate is bound to (its `cnf`), as a private P-256 JWK `{kty: "EC", crv: "P-256", x, y, d}`. */
  agentJwk: object;
  /** base64url hash of the checkout JWT this payment settles. */
  transaction_id: string;
  /** Must be one of the mandate's allowed payees (by `id`). */
  payee: ClosedPayee;
  /** Integer minor units, ISO 4217 currency. */
  payment_amount: { amount: number; currency: string };
  payment_instrument: { id: string; type: string; description?: string };
  /** ISO 8601 date or date-time of execution; absent = now. */
  execution_date?: string;
  pisp?: { legal_name: string; brand_name: string; domain_name: string };
  risk_data?: Record<string, unknown>;
  /** The verifier: the service's `gca_` issuer (the open credential's `iss`). */
  aud: string;
  /** The verifier's nonce (any value when it asked for none). */
  nonce: string;
  /** The closed mandate's own `iat` and `exp` (Unix seconds), when wanted. */
  iat?: number;
  exp?: number;
  /** Bind with `sd_hash` (the whole open credential, the default) or `issuer_jwt_hash` (its JWT only), as AP2 allows. */
  binding?: 'sd_hash' | 'issuer_jwt_hash';
  /** The clock for the hop's `iat` (tests). */
  now?: () => Date;
}

const CLOSED_VCT = 'mandate.payment.1';
const b64urlSha256 = (text: string): string => createHash('sha256').update(text, 'ascii').digest('base64url');

/** The closed mandate's members in AP2's `PaymentMandate` order, absent ones left out (as its `exclude_none`). */
function closedMandate(o: CloseMandateOptions): Record<string, unknown> {
  const optional = <K extends keyof CloseMandateOptions>(key: K) => (o[key] !== undefined ? { [key]: o[key] } : {});
  return {
    vct: CLOSED_VCT,
    transaction_id: o.transaction_id,
    payee: o.payee,
    ...optional('pisp'),
    payment_amount: o.payment_amount,
    payment_instrument: o.payment_instrument,
    ...optional('execution_date'),
    ...optional('risk_data'),
    ...optional('iat'),
    ...optional('exp'),
  };
}

/**
 * Closes `credential` (the mandate's `credential`, ending `~`) into the presentation to send to
 * `POST /v1/mandates/verify`. A TypeError says what is wrong with an argument, never quoting the key.
 */
export async function closeMandate(credential: string, options: CloseMandateOptions): Promise<string> {
  if (typeof credential !== 'string' || !credential.endsWith('~') || credential.includes('~~') || credential.startsWith('~')) {
    throw new TypeError('credential must be an open mandate credential as issued (jwt~disclosures~, ending "~")');
  }
  if (!options.aud || !options.nonce) throw new TypeError('aud and nonce are required');
  let key;
  try {
    key = parseSigningKey(options.agentJwk);
  } catch (err) {
    throw new TypeError(`agentJwk ${(err as Error).message}`);
  }
  if (key.publicJwk.kty !== 'EC') throw new TypeError('agentJwk must be a P-256 key (AP2 binds mandates to EC P-256 keys only)');
  const kid = await calculateJwkThumbprint(key.publicJwk, 'sha256');

  const disclosure = Buffer.from(JSON.stringify([randomBytes(16).toString('base64url'), closedMandate(options)]), 'utf8').toString('base64url');
  const binding = options.binding ?? 'sd_hash';
  const payload = {
    delegate_payload: [{ '...': b64urlSha256(disclosure) }],
    iat: Math.floor((options.now?.() ?? new Date()).getTime() / 1000),
    aud: options.aud,
    nonce: options.nonce,
    [binding]: b64urlSha256(binding === 'sd_hash' ? credential : credential.slice(0, credential.indexOf('~'))),
    _sd_alg: 'sha-256',
  };
  const jwt = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'ES256', typ: 'kb+sd-jwt', kid })
    .sign(key.privateKey);
  return `${credential.slice(0, -1)}~~${jwt}~${disclosure}~`;
}
