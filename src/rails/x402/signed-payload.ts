import type { PaymentPayload } from '@x402/core/types';
import type { Signed } from './attempts.js';

const text = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 200;
const record = (v: unknown): Record<string, unknown> | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

/**
 * What a signed x402 payload binds (nonce, deadline, recipient, value), read from the payload the
 * scheme built: an EIP-3009 `transferWithAuthorization` (`payload.authorization`) or a Permit2
 * witness transfer (`payload.permit2Authorization`), the two transfers of the official `exact`
 * scheme on EVM networks. Undefined for any other payload: it cannot be recorded, so it is not sent.
 */
export function signedTerms(payload: PaymentPayload): Signed | undefined {
  const inner = record(payload.payload);
  const eip3009 = record(inner?.authorization);
  if (eip3009) {
    const { nonce, validBefore, to, value } = eip3009;
    return text(nonce) && text(validBefore) && text(to) && text(value) ? { nonce, validBefore, payTo: to, value } : undefined;
  }
  const permit2 = record(inner?.permit2Authorization);
  if (permit2) {
    const { nonce, deadline } = permit2;
    const to = record(permit2.witness)?.to;
    const value = record(permit2.permitted)?.amount;
    return text(nonce) && text(deadline) && text(to) && text(value) ? { nonce, validBefore: deadline, payTo: to, value } : undefined;
  }
  return undefined;
}
