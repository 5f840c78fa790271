import { API_REQUEST_TIMEOUT_MS, type Fetch } from './api-call.js';
import { type ApiClient, createApiClient, type RequestBody, type ResponseBody, serviceRoot } from './api-client.js';
import { DEFAULT_MAX_RETRIES } from './retry.js';
import { SpendAuthError } from './spend-auth-error.js';
import { createTokenVerifier, type TokenClaims, type TokenVerifier, type VerifyTokenOptions } from './token-verifier.js';
import { createTransport, type Transport } from './transport.js';

/** The body of `POST /v1/authorize` (SPEC 2.1). */
export type AuthorizeRequest = RequestBody<'/v1/authorize', 'post'>;
/** The decision object of the API (SPEC 2.2 and DECISIONS §3), as the OpenAPI document describes it. */
export type Decision = ResponseBody<'/v1/authorize', 'post'>;
/** The body of `POST /v1/decisions/:id/capture` (DECISIONS §15): `amount` (default all of it) and `metadata`. */
export type CaptureParams = NonNullable<RequestBody<'/v1/decisions/{id}/capture', 'post'>>;
/** The key a SpendAuth calls with: its role, mode and, for an agent key, its agent. */
export type ApiKeySelf = ResponseBody<'/v1/api-keys/self', 'get'>;

/** The longest single long-poll the service serves (`GET /v1/decisions/:id?wait=N`, N ≤ 30). */
export const MAX_POLL_SECONDS = 30;

export interface SpendAuthOptions {
  /** The service's base address, `/v1` included (`SPEND_AUTH_BASE_URL`), e.g. `http://localhost:3000/v1`. */
  baseUrl: string;
  apiKey: string;
  /** Retries of a call after a 429, a 503 or a network failure; default 3. */
  maxRetries?: number;
  /** Per attempt, on top of a long-poll's own wait; default 15 000 ms. */
  timeoutMs?: number;
  /** The fetch calls go through, e.g. `signingFetch(fetch, signer)` for an agent that signs its requests. */
  fetch?: Fetch;
}

export interface WaitOptions {
  /** Seconds to wait, in total, for a held decision to be resolved (long-polling); 0 (default) returns it at once. */
  wait?: number;
}

export interface IdempotentOptions {
  /** Your own Idempotency-Key (e.g. the purchase's id, so a restarted process does not decide twice); default a fresh UUID per call. */
  idempotencyKey?: string;
}

/** The caller's key, or a fresh UUID; an empty or non-string key is refused before anything is sent. */
function idempotencyKeyOf(opts: IdempotentOptions): string {
  const given = opts.idempotencyKey;
  if (given === undefined) return globalThis.crypto.randomUUID();
  if (typeof given !== 'string' || given === '') {
    throw new SpendAuthError('idempotencyKey must be a non-empty string.', { status: null, code: 'invalid_request', param: 'idempotencyKey' });
  }
  return given;
}

function waitSeconds(wait: number | undefined): number {
  if (wait === undefined) return 0;
  if (typeof wait !== 'number' || !Number.isFinite(wait) || wait < 0) {
    throw new SpendAuthError('wait must be a number of seconds, 0 or more.', { status: null, code: 'invalid_request', param: 'wait' });
  }
  return wait;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A failure the retries are for (no answer, 429, 503): it says nothing about the decision. */
const isTransient = (err: unknown) => err instanceof SpendAuthError && (err.status === null || err.status === 429 || err.status === 503);

/**
 * The service from an agent's side (docs/clients.md): every call retries 429, 503 and network
 * failures with backoff (honouring `Retry-After`), every POST carries one Idempotency-Key for all
 * its attempts, a held decision can be waited for, and every failure is a SpendAuthError.
 */
export class SpendAuth {
  /** The generated typed client with this key, for the operations this class has no method for. */
  readonly api: ApiClient;
  private readonly transport: Transport;
  private readonly jwksUrl: string;
  private readonly fetchImpl: Fetch;
  private tokenVerifier: TokenVerifier | undefined;

  constructor(options: SpendAuthOptions) {
    if (!options || typeof options.baseUrl !== 'string' || typeof options.apiKey !== 'string' || options.apiKey === '') {
      throw new SpendAuthError('SpendAuth needs a baseUrl and an apiKey.', { status: null, code: 'invalid_request', param: options?.baseUrl ? 'apiKey' : 'baseUrl' });
    }
    const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new SpendAuthError('maxRetries must be a whole number, 0 or more.', { status: null, code: 'invalid_request', param: 'maxRetries' });
    this.fetchImpl = options.fetch ?? ((req) => fetch(req));
    this.api = createApiClient({ baseUrl: options.baseUrl, apiKey: options.apiKey, fetch: this.fetchImpl });
    this.transport = createTransport({ baseUrl: options.baseUrl, apiKey: options.apiKey, maxRetries, timeoutMs: options.timeoutMs ?? API_REQUEST_TIMEOUT_MS, fetch: this.fetchImpl });
    this.jwksUrl = `${serviceRoot(options.baseUrl)}/v1/.well-known/jwks.json`;
  }

  /**
   * `POST /v1/authorize`: approved (with `authorization_token`), denied (a decision, not an error)
   * or held. With `wait`, a held decision is followed until a reviewer resolves it or `wait`
   * seconds have passed; it is then returned as it stands (still `held` if nobody decided).
   */
  async authorize(request: AuthorizeRequest, opts: WaitOptions & IdempotentOptions = {}): Promise<Decision> {
    const wait = waitSeconds(opts.wait);
    const key = idempotencyKeyOf(opts);
    const decision = await this.transport.call((api, init) => api.POST('/v1/authorize', { ...init, body: request, params: { header: { 'Idempotency-Key': key } } }), { idempotencyKey: key });
    return wait > 0 ? this.waitWhileHeld(decision, wait) : decision;
  }

  /** `GET /v1/decisions/:id`; with `wait`, long-polls while the decision is held (see authorize). */
  async getDecision(id: string, opts: WaitOptions = {}): Promise<Decision> {
    const wait = waitSeconds(opts.wait);
    const decision = await this.transport.call((api, init) => api.GET('/v1/decisions/{id}', { ...init, params: { path: { id } } }));
    return wait > 0 ? this.waitWhileHeld(decision, wait) : decision;
  }

  /** `POST /v1/decisions/:id/capture` (admin key): what the rail charged, at most the approved amount (default all of it). */
  async capture(id: string, params: CaptureParams = {}, opts: IdempotentOptions = {}): Promise<Decision> {
    const key = idempotencyKeyOf(opts);
    return this.transport.call((api, init) => api.POST('/v1/decisions/{id}/capture', { ...init, body: params, params: { path: { id }, header: { 'Idempotency-Key': key } } }), { idempotencyKey: key });
  }

  /** `POST /v1/decisions/:id/void` (admin key): releases an uncaptured approval; its token stops verifying. */
  async void(id: string, opts: IdempotentOptions = {}): Promise<Decision> {
    const key = idempotencyKeyOf(opts);
    return this.transport.call((api, init) => api.POST('/v1/decisions/{id}/void', { ...init, params: { path: { id }, header: { 'Idempotency-Key': key } } }), { idempotencyKey: key });
  }

  /** `GET /v1/api-keys/self`: this client's key (role, mode, agent). */
  currentKey(): Promise<ApiKeySelf> {
    return this.transport.call((api, init) => api.GET('/v1/api-keys/self', init));
  }

  /**
   * Verifies a `gca_` token offline against the service's JWKS (fetched once, kept; fetched again
   * for an unknown key id at most once a minute): signature, expiry, `aud` = `account`, `livemode`.
   * Returns the claims; throws TokenError.
   */
  verifyToken(token: string, opts: VerifyTokenOptions): Promise<TokenClaims> {
    this.tokenVerifier ??= createTokenVerifier(this.jwksUrl, this.fetchImpl);
    return this.tokenVerifier(token, opts);
  }

  /** One long-poll of a held decision, its wait (≤ 30 s) and its retries kept within `deadline`. */
  private poll(id: string, deadline: number): Promise<Decision> {
    const waitFor = () => Math.min(MAX_POLL_SECONDS, Math.max(0, Math.floor((deadline - Date.now()) / 1000)));
    return this.transport.call(
      (api, init, { waitSeconds: w }) => api.GET('/v1/decisions/{id}', { ...init, params: { path: { id }, query: w > 0 ? { wait: w } : {} } }),
      { waitSeconds: waitFor, deadline },
    );
  }

  private async waitWhileHeld(decision: Decision, wait: number): Promise<Decision> {
    const deadline = Date.now() + wait * 1000;
    let current = decision;
    while (current.decision === 'held') {
      if (deadline - Date.now() < 1000) break;
      const started = Date.now();
      try {
        current = await this.poll(current.decision_id, deadline);
      } catch (err) {
        // The decision was made and is held; a service out of reach while waiting does not undo
        // that: the caller gets it as it last stood and can follow it with getDecision later.
        if (isTransient(err)) return current;
        throw err;
      }
      // A server that answers a long-poll at once (shutting down, say) is not asked in a tight loop.
      if (current.decision === 'held' && Date.now() - started < 1000) await sleep(Math.min(1000, Math.max(0, deadline - Date.now())));
    }
    return current;
  }
}
