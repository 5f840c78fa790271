import { createApiCall, type ApiFailure, type Fetch } from '../../client/api-call.js';
import type { RequestBody, ResponseBody } from '../../client/api-client.js';
import { signingFetch } from '../../client/signing-fetch.js';
import type { RequestSignerOptions } from '../../client/signing-key.js';

/** The decision object as the service answers it (the OpenAPI document's `Decision`). */
export type Decision = ResponseBody<'/v1/authorize', 'post'>;
export type AuthorizeRequest = RequestBody<'/v1/authorize', 'post'>;

export type Answer<T> = { ok: true; body: T; replayed: boolean } | ApiFailure;

/** The longest long-poll the service serves (`GET /v1/decisions/:id?wait=N`). */
export const MAX_POLL_SECONDS = 30;

/** The calls the x402 rail makes to the service, over HTTP only, with one key. */
export interface DecisionClient {
  authorize(body: AuthorizeRequest, idempotencyKey: string): Promise<Answer<Decision>>;
  get(id: string, waitSeconds: number): Promise<Answer<Decision>>;
  capture(id: string, metadata: Record<string, string>): Promise<Answer<Decision>>;
  addToCapture(id: string, metadata: Record<string, string>): Promise<Answer<Decision>>;
}

/**
 * `signing`: each call is signed with the agent's key (DECISIONS §19). The signer's packages are
 * loaded only then, so a payer that does not sign needs none of them.
 */
export function createDecisionClient(config: { baseUrl: string; apiKey: string; signing?: RequestSignerOptions | undefined }, fetchImpl: Fetch): DecisionClient {
  const { signing } = config;
  const call = createApiCall(config, signing ? signingFetch(fetchImpl, import('../../client/request-signer.js').then((m) => m.createRequestSigner(signing))) : fetchImpl);
  const answer = (res: Awaited<ReturnType<typeof call<Decision>>>): Answer<Decision> =>
    res.ok ? { ok: true, body: res.body, replayed: res.response.headers.get('idempotent-replayed') === 'true' } : res;
  return {
    authorize: async (body, key) => answer(await call((api, init) => api.POST('/v1/authorize', { ...init, body, params: { header: { 'Idempotency-Key': key } } }))),
    get: async (id, wait) =>
      answer(await call((api, init) => api.GET('/v1/decisions/{id}', { ...init, params: { path: { id }, query: wait > 0 ? { wait } : {} } }), wait)),
    // In full (no amount): what an agent key may capture. The key makes a retried capture replay, not fail.
    capture: async (id, metadata) =>
      answer(
        await call((api, init) =>
          api.POST('/v1/decisions/{id}/capture', { ...init, params: { path: { id }, header: { 'Idempotency-Key': `x402-capture-${id}` } }, body: { metadata } }),
        ),
      ),
    // Adds keys only (a recorded key keeps its value), so a retry after a lost answer changes nothing.
    addToCapture: async (id, metadata) => answer(await call((api, init) => api.PATCH('/v1/decisions/{id}/capture', { ...init, params: { path: { id } }, body: { metadata } }))),
  };
}
