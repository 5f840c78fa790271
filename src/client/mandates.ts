import { createApiCall, type ApiFailure, type ApiResult, type Fetch } from './api-call.js';
import type { paths, RequestBody, ResponseBody } from './api-client.js';

/** An AP2 mandate (DECISIONS §20), as the service shows it. */
export type Mandate = ResponseBody<'/v1/mandates/{id}', 'get'>;
export type MandateList = ResponseBody<'/v1/mandates', 'get'>;
export type MandateListQuery = NonNullable<NonNullable<paths['/v1/mandates']['get']['parameters']>['query']>;
export type CreateMandateBody = RequestBody<'/v1/mandates', 'post'>;
export type VerifyMandateBody = RequestBody<'/v1/mandates/verify', 'post'>;
/** AP2's outcome of one presentation: status, error, the signed receipt, the decision it made. */
export type MandateVerification = ResponseBody<'/v1/mandates/verify', 'post'>;

/**
 * A verification's result. `replayed`: the closed mandate was decided before and this is its first
 * answer again (`Idempotent-Replayed: true`): nothing was decided or counted this time.
 */
export type MandateVerifyResult = { ok: true; body: MandateVerification; response: Response; replayed: boolean } | ApiFailure;

export interface MandatesClient {
  /** `POST /v1/mandates` (admin key): issues an open mandate for an agent. */
  create(body: CreateMandateBody, opts?: { idempotencyKey?: string }): Promise<ApiResult<Mandate>>;
  /** `POST /v1/mandates/verify` (admin key, or a key of the mandate's agent): presents a closed mandate (`closeMandate`). */
  verify(body: VerifyMandateBody): Promise<MandateVerifyResult>;
  get(id: string): Promise<ApiResult<Mandate>>;
  list(query?: MandateListQuery): Promise<ApiResult<MandateList>>;
  /** `POST /v1/mandates/:id/revoke` (admin key). Repeatable. */
  revoke(id: string): Promise<ApiResult<Mandate>>;
}

export interface MandatesClientOptions {
  /** The service's base address, with or without `/v1`. */
  baseUrl: string;
  apiKey: string;
  /** The fetch calls go through: e.g. `signingFetch(fetch, signer)` for an agent whose policy requires signed requests. */
  fetch?: Fetch;
}

/**
 * `mandates.create`, `.verify`, `.get`, `.list`, `.revoke` on the typed client: every failure is
 * `{ok: false, code, message, status?}` (the API's error code), never a throw.
 */
export function createMandates({ baseUrl, apiKey, fetch: fetchImpl }: MandatesClientOptions): MandatesClient {
  const call = createApiCall({ baseUrl, apiKey }, fetchImpl ?? ((req) => fetch(req)));
  return {
    create: (body, opts) =>
      call((api, init) =>
        api.POST('/v1/mandates', { ...init, body, params: { header: opts?.idempotencyKey ? { 'Idempotency-Key': opts.idempotencyKey } : {} } }),
      ) as Promise<ApiResult<Mandate>>,
    verify: async (body) => {
      const res = await call((api, init) => api.POST('/v1/mandates/verify', { ...init, body }));
      if (!res.ok) return res;
      return { ...res, body: res.body as MandateVerification, replayed: res.response.headers.get('idempotent-replayed') === 'true' };
    },
    get: (id) => call((api, init) => api.GET('/v1/mandates/{id}', { ...init, params: { path: { id } } })) as Promise<ApiResult<Mandate>>,
    list: (query) => call((api, init) => api.GET('/v1/mandates', { ...init, params: { query: query ?? {} } })) as Promise<ApiResult<MandateList>>,
    revoke: (id) => call((api, init) => api.POST('/v1/mandates/{id}/revoke', { ...init, params: { path: { id } } })) as Promise<ApiResult<Mandate>>,
  };
}
