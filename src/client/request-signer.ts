import { createHash, randomBytes, sign } from 'node:crypto';
import { appendSignature, component, createSignatureSync, type FieldOccurrence, type SignatureComponent, type SignerSync } from 'http-message-sig';
import { calculateJwkThumbprint } from 'jose';
import type { AgentKeyAlg } from '../kernel/caller.js';
import { readSignerOptions, type PublicSigningJwk, type RequestSignerOptions, type SigningKey } from './signing-key.js';

/**
 * Signs an agent's requests to the service as DECISIONS §19 verifies them: RFC 9421 HTTP Message
 * Signatures with the `web-bot-auth` tag, made with a private key that never leaves the agent, so a
 * leaked bearer key alone no longer spends when the agent's policy requires signed requests.
 */

export const WEB_BOT_AUTH_TAG = 'web-bot-auth';
export const SIGNATURE_LABEL = 'sig1';
const NONCE_BYTES = 32;
export { DEFAULT_SIGNATURE_LIFETIME_SECONDS, MAX_SIGNATURE_LIFETIME_SECONDS, type RequestSignerOptions } from './signing-key.js';

/** A request as it will be sent: `body` the exact bytes, or none. */
export interface SignableRequest {
  method: string;
  url: string | URL;
  headers?: HeadersInit;
  body?: Uint8Array | string | null;
}

export interface RequestSigner {
  readonly alg: AgentKeyAlg;
  /** The RFC 7638 thumbprint of the public key: the signature's `keyid`, the agent key's `thumbprint`. */
  readonly keyid: string;
  /** What to register with `POST /v1/agents/:id/keys` (`{jwk: publicJwk}`). */
  readonly publicJwk: PublicSigningJwk;
  readonly signatureAgent: string | null;
  /**
   * The request's headers with its signature added: `Signature` and `Signature-Input` (label
   * `sig1`), `Content-Digest` when it has a body, `Signature-Agent` when configured. A fresh nonce
   * each call: sign every attempt, retries included.
   */
  sign(request: SignableRequest): Headers;
}

/** RFC 9530 `Content-Digest` of the bytes sent. */
export const contentDigest = (body: Uint8Array): string => `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;

function nodeSigner({ alg, privateKey }: SigningKey): SignerSync {
  // RFC 9421 §3.3.4: ECDSA signatures are r‖s (IEEE P1363), not DER.
  return alg === 'ed25519'
    ? { algorithm: alg, sign: (data) => sign(null, data, privateKey) }
    : { algorithm: alg, sign: (data) => sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' }) };
}

const bytesOf = (body: SignableRequest['body']): Uint8Array => (body == null ? new Uint8Array(0) : typeof body === 'string' ? new TextEncoder().encode(body) : body);

/**
 * Reads and checks the key at once (a TypeError names what is wrong, never quoting the key); the
 * promise is only for the thumbprint, which jose computes asynchronously.
 */
export function createRequestSigner(options: RequestSignerOptions): Promise<RequestSigner> {
  let read: ReturnType<typeof readSignerOptions>;
  try {
    read = readSignerOptions(options);
  } catch (err) {
    throw new TypeError(`createRequestSigner: ${(err as Error).message}`);
  }
  const { key, signatureAgent, lifetimeSeconds: lifetime } = read;
  const coverAuthorization = options.coverAuthorization ?? true;
  const now = options.now ?? (() => new Date());
  const signer = nodeSigner(key);
  const agentField = signatureAgent === null ? null : `${SIGNATURE_LABEL}="${signatureAgent}"`;

  return calculateJwkThumbprint(key.publicJwk, 'sha256').then((keyid) => ({
    alg: key.alg,
    keyid,
    publicJwk: key.publicJwk,
    signatureAgent,
    sign(request: SignableRequest): Headers {
      const url = new URL(request.url);
      // A fragment is never sent, so never signed.
      url.hash = '';
      const targetUri = url.href;
      const headers = new Headers(request.headers);
      const body = bytesOf(request.body);
      const components: SignatureComponent[] = ['@method', '@authority', '@path'];
      // Even a bare `?`: the service asks for @query whenever the target has one.
      if (targetUri.includes('?')) components.push('@query');
      if (body.length > 0) {
        headers.set('content-digest', contentDigest(body));
        components.push('content-digest');
      }
      if (agentField !== null) {
        headers.set('signature-agent', agentField);
        components.push(component('signature-agent', { key: SIGNATURE_LABEL }));
      }
      // The service refuses a signature that leaves the key out (DECISIONS §19 step 5).
      if (headers.has('idempotency-key')) components.push('idempotency-key');
      if (coverAuthorization && headers.has('authorization')) components.push('authorization');
      // Only the covered fields: the base needs no others.
      const fields: FieldOccurrence[] = ['content-digest', 'signature-agent', 'idempotency-key', 'authorization']
        .filter((name) => components.some((c) => (typeof c === 'string' ? c : c.name) === name))
        .map((name) => ({ name, value: headers.get(name)! }));
      const created = Math.floor(now().getTime() / 1000);
      const signed = createSignatureSync(
        { kind: 'request', method: request.method, targetUri, fields },
        {
          label: SIGNATURE_LABEL,
          components,
          parameters: { created, expires: created + lifetime, keyid, nonce: randomBytes(NONCE_BYTES).toString('base64url'), tag: WEB_BOT_AUTH_TAG, alg: key.alg },
          signer,
        },
      );
      return appendSignature(headers, signed);
    },
  }));
}
