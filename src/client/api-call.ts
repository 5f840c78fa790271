import { type ApiClient, createApiClient } from './api-client.js';

/** Per HTTP call, on top of any long-poll wait the call asks for. */
export const API_REQUEST_TIMEOUT_MS = 15_000;

export type Fetch = (input: Request) => Promise<Response>;

/** A call that did not answer 2xx with a JSON body: the API's error code, or what went wrong on the way. */
export interface ApiFailure {
  ok: false;
  /** The API's error code, or `network_error` / `unexpected_response`. */
  code: string;
  message: string;
  /** The HTTP status, when an answer came. */
  status?: number;
}
export type ApiResult<T> = { ok: true; body: T; response: Response } | ApiFailure;

/** An openapi-fetch call's outcome, as far as callers need it. */
export type Sent<T> = { data?: T; error?: unknown; response: Response };

export type ApiCall = <T>(send: (client: ApiClient, init: { signal: AbortSignal; fetch: Fetch }) => Promise<Sent<T>>, waitSeconds?: number) => Promise<ApiResult<T>>;

/**
 * Calls the API through the generated client with one key; every failure becomes
 * `{ok: false, code, message}`, never a throw, so a caller can fail closed on any of them.
 */
export function createApiCall(config: { baseUrl: string; apiKey: string }, fetchImpl: Fetch): ApiCall {
  const client = createApiClient({ baseUrl: config.baseUrl, apiKey: config.apiKey, fetch: fetchImpl });
  return async function call<T>(send: (client: ApiClient, init: { signal: AbortSignal; fetch: Fetch }) => Promise<Sent<T>>, waitSeconds = 0): Promise<ApiResult<T>> {
    let status: number | undefined;
    // Per call, so the status of a success whose body is not JSON can still be told.
    const fetchOnce: Fetch = async (req) => {
      const res = await fetchImpl(req);
      status = res.status;
      return res;
    };
    let sent: Sent<T>;
    try {
      sent = await send(client, { signal: AbortSignal.timeout(API_REQUEST_TIMEOUT_MS + waitSeconds * 1000), fetch: fetchOnce });
    } catch (err) {
      if (status !== undefined && err instanceof SyntaxError) {
        return { ok: false, code: 'unexpected_response', status, message: `The service answered HTTP ${status} with a body that is not JSON.` };
      }
      const cause = err instanceof Error ? err.message : String(err);
      return { ok: false, code: 'network_error', message: `Could not reach the spend authorization service at ${config.baseUrl} (${cause}).` };
    }
    const answered = sent.response.status;
    if (sent.response.ok) {
      if (sent.data === undefined) return { ok: false, code: 'unexpected_response', status: answered, message: `The service answered HTTP ${answered} with an empty body.` };
      return { ok: true, body: sent.data, response: sent.response };
    }
    const error = (sent.error as { error?: { code?: unknown; message?: unknown } } | string | undefined) ?? undefined;
    if (typeof error === 'string') {
      return { ok: false, code: 'unexpected_response', status: answered, message: `The service answered HTTP ${answered} with a body that is not JSON.` };
    }
    const envelope = error?.error;
    if (envelope && typeof envelope.code === 'string' && typeof envelope.message === 'string') {
      return { ok: false, code: envelope.code, status: answered, message: envelope.message };
    }
    return { ok: false, code: 'unexpected_response', status: answered, message: `The service answered HTTP ${answered} without an error object.` };
  };
}
