import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { Verifier } from 'http-message-sig';
import type { AgentKeyAlg } from '../kernel/caller.js';

/** Raw signature lengths (RFC 9421 §3.3.4 and §3.3.6): Ed25519 64 bytes; ECDSA P-256 r‖s, 32 bytes each. */
const SIGNATURE_LENGTH = 64;

/**
 * A verifier of one registered key, for http-message-sig's `verifySignature`: node:crypto's
 * synchronous verify (cheaper than WebCrypto's). http-message-sig ships no P-256 verifier, and
 * RFC 9421 signs ECDSA as r‖s, hence `ieee-p1363` rather than DER.
 */
export function verifierOf(alg: AgentKeyAlg, jwk: Record<string, string>): Verifier {
  const key: KeyObject = createPublicKey({ key: jwk, format: 'jwk' });
  if (alg === 'ed25519') {
    return { algorithm: alg, verify: (data, signature) => signature.length === SIGNATURE_LENGTH && verify(null, data, key, signature) };
  }
  return {
    algorithm: alg,
    verify: (data, signature) => signature.length === SIGNATURE_LENGTH && verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature),
  };
}
