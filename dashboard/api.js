// The only place the pasted key is kept (sessionStorage: gone when the tab closes) and sent
// (an Authorization header to this origin's /v1). It never goes into a URL or a log.
import createClient from './vendor/openapi-fetch.js';

const KEY_ITEM = 'spend-auth.dashboard.key';
const KEY_PATTERN = /^gc_(test|live)_[A-Za-z0-9]+$/;

export class ApiError extends Error {
  constructor(status, body) {
    const error = body && typeof body === 'object' && body.error ? body.error : {};
    super(error.message || `The service answered HTTP ${status}.`);
    this.status = status;
    this.code = error.code || 'unexpected_response';
    this.param = error.param;
    this.requestId = error.request_id;
    /** @type {number | undefined} How long a 429/503 asks to wait, in milliseconds. */
    this.retryAfterMs = undefined;
  }
}

export function storedKey() {
  return sessionStorage.getItem(KEY_ITEM);
}

export function storeKey(key) {
  sessionStorage.setItem(KEY_ITEM, key);
}

export function forgetKey() {
  sessionStorage.removeItem(KEY_ITEM);
}

/** 'test' or 'live' from the key's prefix; undefined when it is not a key at all. */
export function modeOf(key) {
  const m = KEY_PATTERN.exec(key || '');
  return m ? m[1] : undefined;
}

/** Called with the ApiError when the key is refused (401), e.g. after it was revoked. */
/** @type {(err: ApiError) => void} */
let onUnauthorized = () => {};
export function whenUnauthorized(handler) {
  onUnauthorized = handler;
}

/** @typedef {import('../src/client/openapi-types.js').paths} paths */

/**
 * The API's client, generated from its OpenAPI document: openapi-fetch (served from the package by
 * the API at /dashboard/vendor/) typed with the document's generated types, so a module that opts
 * into `// @ts-check` gets every path, parameter and body checked (`npm run typecheck`).
 * @type {import('openapi-fetch').Client<paths>}
 */
export const client = createClient({ baseUrl: '', cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer' });

/**
 * One /v1 call through the client. `query` values that are empty are left out. Resolves with the
 * parsed JSON body, or `{text, headers}` when `accept` is not JSON; rejects with ApiError carrying
 * the API's envelope.
 * @param {string} method
 * @param {string} path a concrete path under /v1, e.g. `/agents/agt_1`
 * @param {{body?: unknown, query?: Record<string, unknown>, accept?: string, key?: string | null}} [options]
 * @returns {Promise<any>}
 */
export async function api(method, path, { body, query, accept = 'application/json', key = storedKey() } = {}) {
  const params = query ? { query: Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined && v !== null && v !== '')) } : {};
  const isJsonCall = accept === 'application/json';
  let sent;
  try {
    // The pages build concrete paths (`/agents/${id}`), which the path templates of the types do not name.
    sent = await client.request(/** @type {any} */ (method.toLowerCase()), /** @type {any} */ (`/v1${path}`), {
      params,
      body,
      headers: { Authorization: `Bearer ${key}`, Accept: accept },
      parseAs: isJsonCall ? 'json' : 'text',
    });
  } catch (err) {
    if (err instanceof SyntaxError) throw new ApiError(200, { error: { code: 'unexpected_response', message: 'The service answered with a body that is not JSON.' } });
    throw new ApiError(0, { error: { code: 'network_error', message: 'The service could not be reached. Check the connection and try again.' } });
  }
  const { data, error, response: res } = sent;
  if (!res.ok) {
    const err = new ApiError(res.status, typeof error === 'object' ? error : null);
    err.retryAfterMs = retryAfterMs(res);
    if (res.status === 401) onUnauthorized(err);
    throw err;
  }
  if (!isJsonCall) return { text: data, headers: res.headers };
  return data ?? null;
}

/** How long a 429/503 asks to wait (Retry-After in seconds or as an HTTP date), or undefined. */
function retryAfterMs(res) {
  const value = res.headers.get('retry-after') || (res.status === 429 ? res.headers.get('x-ratelimit-reset') : null);
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/**
 * Every row of a list, following next_cursor page by page up to `cap` rows, so a long list is not
 * silently cut at one page. `truncated` says rows were left after the cap.
 */
export async function listAll(path, { query = {}, cap = 500 } = {}) {
  const data = [];
  let cursor;
  for (;;) {
    const page = await api('GET', path, { query: { ...query, limit: Math.min(100, cap - data.length), cursor } });
    data.push(...page.data);
    if (!page.has_more || !page.next_cursor) return { data, truncated: false };
    if (data.length >= cap) return { data, truncated: true };
    cursor = page.next_cursor;
  }
}
