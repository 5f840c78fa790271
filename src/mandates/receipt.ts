/**
 * AP2's payment receipt (DECISIONS §20, design §1.4): the outcome of a mandate presentation, signed
 * with the current mandate signing key so a holder of the JWKS verifies it offline. Claims are
 * `payment_receipt.json`'s plus `aud` and `livemode`, as the `gca_` token has them (§4). Signed
 * synchronously by node:crypto: it is built inside the verify's transaction (design §3.3).
 */
import { sign } from 'node:crypto';
import { RECEIPT_TYP, type MandateKeys } from './mandate-deps.js';

export interface ReceiptInput {
  /** The `gca_` issuer. */
  issuer: string;
  /** The account id. */
  audience: string;
  livemode: boolean;
  /** base64url SHA-256 of the closed JWT. */
  reference: string;
  /** The decision id; without a decision, the request's X-Request-Id. */
  paymentId: string;
  now: Date;
  outcome: { status: 'Success' } | { status: 'Error'; error: string; error_description: string };
}

const base64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

/** Compact JWS `{alg: "ES256", typ: "payment-receipt+jwt", kid}` over the receipt's claims (r‖s signature, as JWS has it). */
export function signReceipt(keys: MandateKeys, input: ReceiptInput): string {
  const { outcome } = input;
  // payment_receipt.json (and AP2's pydantic model): an Error receipt requires both; empty ones explain nothing.
  if (outcome.status === 'Error' && (!outcome.error || !outcome.error_description)) throw new Error('an Error receipt needs an error and an error_description');
  const claims = {
    iss: input.issuer,
    aud: input.audience,
    iat: Math.floor(input.now.getTime() / 1000),
    livemode: input.livemode,
    status: outcome.status,
    reference: input.reference,
    payment_id: input.paymentId,
    // AP2's ReceiptClient sets both confirmation ids to the payment id; we have no network of our own to name.
    ...(outcome.status === 'Success'
      ? { psp_confirmation_id: input.paymentId, network_confirmation_id: input.paymentId }
      : { error: outcome.error, error_description: outcome.error_description }),
  };
  const { kid, privateKey } = keys.current;
  const signingInput = `${base64url(JSON.stringify({ alg: 'ES256', typ: RECEIPT_TYP, kid }))}.${base64url(JSON.stringify(claims))}`;
  const signature = sign('sha256', Buffer.from(signingInput), { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return `${signingInput}.${base64url(signature)}`;
}
