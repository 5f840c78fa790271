import type { Fetch, Sent } from './api-call.js';
import { type ApiClient, createApiClient } from './api-client.js';
import { RETRYABLE_STATUSES, MAX_RETRY_AFTER_SECONDS, retryAfterMs, retryDelayMs } from './retry.js';
import { RateLimitError, SpendAuthError } from './spend-auth-error.js';

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  /** Retries after the first attempt. */
  maxRetries: number;
  /** Per attempt, on top of any long-poll wait the call asks for. */
  timeoutMs: number;
  fetch: Fetch;
}

export type AttemptInit = { signal: AbortSignal; fetch: Fetch };

/** One attempt of a call through the generated client; the same function is called again on a retry. */
export type Send<T> = (api: ApiClient, init: AttemptInit, attempt: { waitSeconds: number }) => Promise<Sent<T>>;

export interface CallOptions {
  /** The long-poll wait of each attempt, in seconds, asked again before each one (it shrinks as a deadline nears). */
  waitSeconds?: number | (() => number);
  /** Epoch ms: no retry is waited for past it; the last error is thrown instead. */
  deadline?: number;
  /** The Idempotency-Key `send` carries: told on every error, and the mark of a POST (see call). */
  idempotencyKey?: string;
}

export interface Transport {
  /**
   * The call's body, after retrying 429, 503 and network failures; anything else throws
   * SpendAuthError at once. A POST's Idempotency-Key belongs to `send` (made once by the caller),
   * so every attempt carries the same one. On a retry of such a call, a 409 naming
   * `Idempotency-Key` is the service still processing an earlier attempt of this very call (same
   * key, same body): it is retried too. On the first attempt it is the caller's own key reused,
   * and thrown.
   */
  call<T>(send: Send<T>, opts?: CallOptions): Promise<T>;
}

type Attempt<T> = { ok: true; body: T } | { ok: false; error: SpendAuthError; retryable: boolean; retryAfterMs?: number };

interface Envelope {
  error?: { code?: unknown; message?: unknown; param?: unknown; request_id?: unknown };
}

/** The header the service names (`param`) in its 409 about a key in use. */
const IDEMPOTENCY_HEADER = 'Idempotency-Key';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function errorOfAnswer(response: Response, body: unknown, retryAfter: number | undefined, idempotencyKey: string | null): SpendAuthError {
  const status = response.status;
  const headerId = response.headers.get('x-request-id');
  const envelope = typeof body === 'object' && body !== null ? (body as Envelope).error : undefined;
  const retryAfterSeconds = retryAfter === undefined ? null : retryAfter / 1000;
  if (!envelope || typeof envelope.code !== 'string' || typeof envelope.message !== 'string') {
    const message = `The service answered HTTP ${status} without an error object.`;
    // A 429 is a rate limit whoever answered it (a gateway's has no envelope).
    if (status === 429) return new RateLimitError(message, { status, code: 'rate_limited', requestId: headerId, idempotencyKey, retryAfter: retryAfterSeconds });
    return new SpendAuthError(message, { status, code: 'unexpected_response', requestId: headerId, idempotencyKey });
  }
  const fields = {
    status,
    code: envelope.code,
    param: typeof envelope.param === 'string' ? envelope.param : null,
    requestId: typeof envelope.request_id === 'string' ? envelope.request_id : headerId,
    idempotencyKey,
  };
  if (status === 429) return new RateLimitError(envelope.message, { ...fields, retryAfter: retryAfterSeconds });
  return new SpendAuthError(envelope.message, fields);
}

export function createTransport(options: TransportOptions): Transport {
  const api = createApiClient({ baseUrl: options.baseUrl, apiKey: options.apiKey, fetch: options.fetch });

  async function attempt<T>(send: Send<T>, waitSeconds: number, idempotencyKey: string | null): Promise<Attempt<T>> {
    let response: Response | undefined;
    // Kept per attempt: an answer whose body is not JSON still has its status told.
    const fetchOnce: Fetch = async (req) => (response = await options.fetch(req));
    let sent: Sent<T>;
    try {
      sent = await send(api, { signal: AbortSignal.timeout(options.timeoutMs + waitSeconds * 1000), fetch: fetchOnce }, { waitSeconds });
    } catch (err) {
      if (response && err instanceof SyntaxError) {
        // A proxy's HTML 503 is still a 503: retried like the service's own.
        const status = response.status;
        const wait = retryAfterMs(response.headers.get('retry-after'));
        const error =
          status === 429
            ? errorOfAnswer(response, undefined, wait, idempotencyKey)
            : new SpendAuthError(`The service answered HTTP ${status} with a body that is not JSON.`, { status, code: 'unexpected_response', requestId: response.headers.get('x-request-id'), idempotencyKey, cause: err });
        return { ok: false, error, retryable: RETRYABLE_STATUSES.has(status), ...(wait === undefined ? {} : { retryAfterMs: wait }) };
      }
      // No answer, or it broke off: refused, reset, timed out. Safe to send again (same key).
      const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      const cause = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
      const error = new SpendAuthError(
        timedOut ? `The spend authorization service at ${options.baseUrl} did not answer in time.` : `Could not reach the spend authorization service at ${options.baseUrl} (${cause}).`,
        { status: null, code: timedOut ? 'timeout' : 'network_error', idempotencyKey, cause: err },
      );
      return { ok: false, error, retryable: true };
    }
    const res = sent.response;
    if (res.ok) {
      if (sent.data === undefined) {
        return { ok: false, retryable: false, error: new SpendAuthError(`The service answered HTTP ${res.status} with an empty body.`, { status: res.status, code: 'unexpected_response', requestId: res.headers.get('x-request-id'), idempotencyKey }) };
      }
      return { ok: true, body: sent.data };
    }
    const wait = retryAfterMs(res.headers.get('retry-after'));
    return { ok: false, error: errorOfAnswer(res, sent.error, wait, idempotencyKey), retryable: RETRYABLE_STATUSES.has(res.status), ...(wait === undefined ? {} : { retryAfterMs: wait }) };
  }

  return {
    async call<T>(send: Send<T>, { waitSeconds = 0, deadline, idempotencyKey }: CallOptions = {}): Promise<T> {
      const key = idempotencyKey ?? null;
      for (let retry = 0; ; retry++) {
        const outcome = await attempt(send, typeof waitSeconds === 'function' ? waitSeconds() : waitSeconds, key);
        if (outcome.ok) return outcome.body;
        // On a retry, a 409 naming the key is an earlier attempt of this call still running: retried like a 503.
        const inProgress = key !== null && retry >= 1 && outcome.error.status === 409 && outcome.error.param === IDEMPOTENCY_HEADER;
        const tooLong = outcome.retryAfterMs !== undefined && outcome.retryAfterMs > MAX_RETRY_AFTER_SECONDS * 1000;
        if (!(outcome.retryable || inProgress) || retry >= options.maxRetries || tooLong) throw outcome.error;
        const delay = retryDelayMs(retry, outcome.retryAfterMs);
        if (deadline !== undefined && Date.now() + delay >= deadline) throw outcome.error;
        await sleep(delay);
      }
    },
  };
}
