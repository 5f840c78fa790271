import { createECDH, createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { AgentKeyAlg } from '../kernel/caller.js';

/**
 * An agent's signing key, read from a private JWK (DECISIONS §19): Ed25519 (`kty` OKP) signs as
 * `ed25519`, P-256 (`kty` EC) as `ecdsa-p256-sha256`. Only node:crypto here, so a caller can check a
 * key where the signer's own packages are not loaded (the x402 rail loads them on first use).
 */

/** Short by default: a smaller replay window, and the service keeps each nonce only this long (+30 s). */
export const DEFAULT_SIGNATURE_LIFETIME_SECONDS = 60;
/** The longest the service accepts (`expires` − `created`). */
export const MAX_SIGNATURE_LIFETIME_SECONDS = 300;

export interface RequestSignerOptions {
  /** The agent key's private JWK: Ed25519 (`{kty: "OKP", crv: "Ed25519", x, d}`) or P-256 (`{kty: "EC", crv: "P-256", x, y, d}`). */
  privateJwk: object;
  /**
   * The https origin whose key directory lists this key, for a key registered with `directory_url`:
   * sent as `Signature-Agent: sig1="<origin>"` and covered by the signature.
   */
  signatureAgent?: string;
  /** `expires` − `created`, 1–300 s; default 60. */
  lifetimeSeconds?: number;
  /**
   * Also cover the `Authorization` field when the request has one (default true): the signature is
   * then good only with the bearer key it was made for.
   */
  coverAuthorization?: boolean;
  /** The clock (tests). */
  now?: () => Date;
}

/** The public members a key is registered with (`POST /v1/agents/:id/keys`) and its thumbprint is taken over. */
export type PublicSigningJwk = { kty: 'OKP'; crv: 'Ed25519'; x: string } | { kty: 'EC'; crv: 'P-256'; x: string; y: string };

export interface SigningKey {
  alg: AgentKeyAlg;
  privateKey: KeyObject;
  publicJwk: PublicSigningJwk;
}

/**
 * The P-256 public point of `d`, computed: node:crypto keeps the `x` and `y` a JWK gives beside `d`
 * without checking them, so the key it imports would sign with `d` under someone else's thumbprint.
 */
function p256PublicOf(d: string): JsonWebKey {
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(Buffer.from(d, 'base64url'));
  const point = ecdh.getPublicKey(); // 0x04 ‖ x ‖ y
  return { x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33, 65).toString('base64url') };
}

/**
 * Reads a private JWK; a TypeError says what is wrong, never quoting the key. The public members
 * are derived from `d`, and a given `x`/`y` that differs is refused: the thumbprint (the keyid the
 * service looks the key up by) must be that of the key that signs.
 */
export function parseSigningKey(jwk: unknown): SigningKey {
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) throw new TypeError('must be a private JWK (a JSON object)');
  const { kty, crv, d, x, y } = jwk as Record<string, unknown>;
  const alg: AgentKeyAlg | undefined = kty === 'OKP' && crv === 'Ed25519' ? 'ed25519' : kty === 'EC' && crv === 'P-256' ? 'ecdsa-p256-sha256' : undefined;
  if (!alg) throw new TypeError('must be an Ed25519 (kty "OKP", crv "Ed25519") or P-256 (kty "EC", crv "P-256") key');
  if (typeof d !== 'string' || d === '') throw new TypeError('must be a private key: its member d is missing');
  let privateKey: KeyObject;
  let derived: JsonWebKey;
  try {
    privateKey = createPrivateKey({ key: { kty, crv, d, x, y } as JsonWebKey, format: 'jwk' });
    derived = alg === 'ed25519' ? createPublicKey(privateKey).export({ format: 'jwk' }) : p256PublicOf(d);
  } catch {
    throw new TypeError('is not a valid key of its kind (x, y and d must be base64url-encoded points and scalars of that curve)');
  }
  if (derived.x !== x || (alg === 'ecdsa-p256-sha256' && derived.y !== y)) throw new TypeError("does not hold the public key of its d (x or y differs)");
  const publicJwk: PublicSigningJwk = alg === 'ed25519' ? { kty: 'OKP', crv: 'Ed25519', x: derived.x! } : { kty: 'EC', crv: 'P-256', x: derived.x!, y: derived.y! };
  return { alg, privateKey, publicJwk };
}

/**
 * A `Signature-Agent` origin: https, no credentials, path, query or fragment (a trailing `/` is
 * fine). Returns `URL.origin` (an IDN host in its ASCII form), as the service compares it.
 */
export function parseSignatureAgent(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError('must be an https origin, e.g. https://agent.example.com');
  }
  if (url.protocol !== 'https:') throw new TypeError('must be an https origin, e.g. https://agent.example.com');
  if (url.username || url.password || url.pathname !== '/' || /[?#]/.test(value)) throw new TypeError('must be an origin only: no credentials, path, query or fragment');
  return url.origin;
}

/** Checks a signer's options at once; a TypeError names the option at fault, never quoting the key. */
export function readSignerOptions(options: RequestSignerOptions): { key: SigningKey; signatureAgent: string | null; lifetimeSeconds: number } {
  const named = <T>(option: string, read: () => T): T => {
    try {
      return read();
    } catch (err) {
      throw new TypeError(`${option} ${(err as Error).message}`);
    }
  };
  const key = named('privateJwk', () => parseSigningKey(options.privateJwk));
  const signatureAgent = options.signatureAgent === undefined ? null : named('signatureAgent', () => parseSignatureAgent(options.signatureAgent!));
  const lifetimeSeconds = options.lifetimeSeconds ?? DEFAULT_SIGNATURE_LIFETIME_SECONDS;
  if (!Number.isInteger(lifetimeSeconds) || lifetimeSeconds < 1 || lifetimeSeconds > MAX_SIGNATURE_LIFETIME_SECONDS) {
    throw new TypeError(`lifetimeSeconds must be a whole number from 1 to ${MAX_SIGNATURE_LIFETIME_SECONDS}`);
  }
  return { key, signatureAgent, lifetimeSeconds };
}
