import { createPublicKey } from 'node:crypto';
import { calculateJwkThumbprint } from 'jose';
import type { AgentKeyAlg } from '../kernel/caller.js';
import { RFC9421_TEST_KEY_THUMBPRINTS } from './agent-key-deps.js';

/** An agent's public key, as stored and shown: exactly these members (DECISIONS §19). */
export type AgentPublicJwk = { kty: 'OKP'; crv: 'Ed25519'; x: string } | { kty: 'EC'; crv: 'P-256'; x: string; y: string };

export interface AgentJwk {
  jwk: AgentPublicJwk;
  alg: AgentKeyAlg;
  /** RFC 7638 SHA-256 thumbprint, base64url (RFC 8037 A.3 for Ed25519): the signature's `keyid`. */
  thumbprint: string;
}

/** Why a JWK is refused, and the parameter to name: `jwk`, or `jwk.kid` for a kid that is not the thumbprint. */
export class JwkError extends Error {
  override name = 'JwkError';
  constructor(
    message: string,
    readonly param: 'jwk' | 'jwk.kid',
  ) {
    super(message);
  }
}

/** A 32-byte coordinate in canonical base64url: 43 characters, unpadded, unused bits zero (one key, one thumbprint). */
function coordinate(value: unknown, name: string): string {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(value) || Buffer.from(value, 'base64url').toString('base64url') !== value) {
    throw new JwkError(`the member ${name} must be 32 bytes in unpadded base64url`, 'jwk');
  }
  return value;
}

/** The public members of a supported key, whatever else the object holds; throws JwkError. */
function publicMembers(input: Record<string, unknown>): { jwk: AgentPublicJwk; alg: AgentKeyAlg } {
  // A private key pasted by mistake is refused, not quietly stripped: it has been exposed.
  if ('d' in input) throw new JwkError('it holds a private key (member d): register the public key only, and treat this private key as exposed', 'jwk');
  if (input.kty === 'OKP' && input.crv === 'Ed25519') return { jwk: { kty: 'OKP', crv: 'Ed25519', x: coordinate(input.x, 'x') }, alg: 'ed25519' };
  if (input.kty === 'EC' && input.crv === 'P-256') {
    return { jwk: { kty: 'EC', crv: 'P-256', x: coordinate(input.x, 'x'), y: coordinate(input.y, 'y') }, alg: 'ecdsa-p256-sha256' };
  }
  throw new JwkError('only {kty: "OKP", crv: "Ed25519"} and {kty: "EC", crv: "P-256"} keys are accepted', 'jwk');
}

/**
 * Validates a JWK an agent registers or a directory lists: a public Ed25519 or P-256 key whose
 * point imports (an EC point off the curve does not), kept as just its public members (`alg`,
 * `use`, `key_ops`, `ext` and the like are dropped), with its thumbprint. A `kid`, when present,
 * must be that thumbprint. In live mode RFC 9421's published test keys are refused: their private
 * halves are in the RFC.
 */
export async function parseAgentJwk(input: unknown, opts: { livemode: boolean }): Promise<AgentJwk> {
  if (!input || typeof input !== 'object' || Array.isArray(input)) throw new JwkError('it must be a JSON object', 'jwk');
  const record = input as Record<string, unknown>;
  const { jwk, alg } = publicMembers(record);
  try {
    createPublicKey({ key: jwk, format: 'jwk' });
  } catch {
    throw new JwkError('the key does not import: its point is not on the curve', 'jwk');
  }
  const thumbprint = await calculateJwkThumbprint(jwk, 'sha256');
  if ('kid' in record && record.kid !== thumbprint) throw new JwkError(`kid must be the key's RFC 7638 SHA-256 thumbprint (${thumbprint}) or left out`, 'jwk.kid');
  if (opts.livemode && RFC9421_TEST_KEY_THUMBPRINTS.includes(thumbprint)) {
    throw new JwkError("it is one of RFC 9421's published test keys, whose private key anyone can read: refused in live mode", 'jwk');
  }
  return { jwk, alg, thumbprint };
}
