import { pinnedFetch } from '../webhooks/pinned-fetch.js';
import { resolveSafeTarget, UnsafeUrlError } from '../webhooks/ssrf.js';
import {
  DIRECTORY_FETCH_TIMEOUT_MS,
  DIRECTORY_MAX_AGE_DEFAULT_SECONDS,
  DIRECTORY_MAX_AGE_MAX_SECONDS,
  DIRECTORY_MAX_AGE_MIN_SECONDS,
  DIRECTORY_MAX_BYTES,
  DIRECTORY_MAX_KEYS,
  DIRECTORY_MEDIA_TYPE,
  DIRECTORY_PATH,
  type KeyDirectoryFetchSettings,
} from './agent-key-deps.js';
import { parseAgentJwk } from './jwk.js';

/**
 * Key directories (DECISIONS §19; draft-meunier-http-message-signatures-directory): an https
 * origin serves the public keys of its agents at a well-known path. A directory is fetched under
 * the webhooks' SSRF rules and setting (§9): its host resolved and checked, the connection pinned
 * to the checked address, no redirect followed.
 */

/** Why a directory is refused: the rule it broke, never an address its host resolved to. */
export class DirectoryError extends Error {
  override name = 'DirectoryError';
}

/** What a successful fetch found: the thumbprints it lists, and how long the listing holds. */
export interface DirectoryListing {
  thumbprints: string[];
  maxAgeSeconds: number;
}

/**
 * The origin a `directory_url` names, as stored and matched (`URL.origin`: lower case, IDN hosts in
 * their `xn--` form, no default port). Only `https://host[:port]` with at most a trailing `/` is
 * accepted: a path, query, fragment or credentials would be ignored by the well-known path, so they
 * are refused rather than silently dropped.
 */
export function directoryOrigin(raw: string): string {
  if (!/^https:\/\/[^/?#\s\\]+\/?$/i.test(raw)) throw new DirectoryError('must be an https origin (https://host[:port]), with no path, query or fragment');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DirectoryError('must be an absolute https URL');
  }
  if (url.protocol !== 'https:' || url.pathname !== '/' || url.search || url.hash) {
    throw new DirectoryError('must be an https origin (https://host[:port]), with no path, query or fragment');
  }
  if (url.username || url.password) throw new DirectoryError('must not carry credentials');
  return url.origin;
}

/** `Cache-Control: max-age`, clamped to 60 s – 24 h; absent or unreadable: 1 h. */
export function directoryMaxAge(cacheControl: string | null): number {
  const match = /(?:^|,)\s*max-age\s*=\s*"?(\d{1,12})"?\s*(?:,|$)/i.exec(cacheControl ?? '');
  if (!match) return DIRECTORY_MAX_AGE_DEFAULT_SECONDS;
  return Math.min(DIRECTORY_MAX_AGE_MAX_SECONDS, Math.max(DIRECTORY_MAX_AGE_MIN_SECONDS, Number(match[1])));
}

/** The thumbprints of a directory's `keys`: entries that are no supported public key, or whose `kid` is not their thumbprint, are skipped. */
export async function listedThumbprints(document: unknown): Promise<string[]> {
  const keys = (document as { keys?: unknown } | null)?.keys;
  if (!document || typeof document !== 'object' || Array.isArray(document) || !Array.isArray(keys)) throw new DirectoryError('must be a JSON object with a keys array');
  if (keys.length > DIRECTORY_MAX_KEYS) throw new DirectoryError(`must list at most ${DIRECTORY_MAX_KEYS} keys`);
  const listed = new Set<string>();
  for (const entry of keys) {
    if (!entry || typeof entry !== 'object' || typeof (entry as { kid?: unknown }).kid !== 'string') continue;
    try {
      listed.add((await parseAgentJwk(entry, { livemode: false })).thumbprint);
    } catch {
      // Not a key we verify with, or a kid that is not its thumbprint: as if it were not listed.
    }
  }
  return [...listed];
}

/** Reads a body as a stream, giving up past `max` bytes (a Content-Length is not trusted). */
async function readCapped(response: Response, max: number): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > max) {
    await response.body?.cancel().catch(() => {});
    throw new DirectoryError(`must be at most ${max} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  if (!reader) return Buffer.alloc(0);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      throw new DirectoryError(`must be at most ${max} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** A connection error as a rule: its code only (Node's messages may name the pinned address). */
function unreachable(err: unknown): DirectoryError {
  const seen = new Set<unknown>();
  for (let e = err; e && typeof e === 'object' && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z0-9_]{2,64}$/.test(code)) return new DirectoryError(`could not be fetched (${code})`);
  }
  return new DirectoryError('could not be fetched');
}

export interface DirectoryFetch extends KeyDirectoryFetchSettings {
  livemode: boolean;
}

/**
 * GETs `<origin>/.well-known/http-message-signatures-directory` and returns what it lists: 200,
 * its media type, at most 64 KiB and 50 keys, all within 5 s (DNS, connection and body). Any
 * failure is a DirectoryError naming the rule.
 */
export async function fetchDirectory(origin: string, settings: DirectoryFetch): Promise<DirectoryListing> {
  const abort = new AbortController();
  const timeoutMs = settings.timeoutMs ?? DIRECTORY_FETCH_TIMEOUT_MS;
  const timedOut = new DirectoryError(`must answer within ${timeoutMs / 1000} s`);
  const timer = setTimeout(() => abort.abort(timedOut), timeoutMs);
  const deadline = new Promise<never>((_resolve, reject) => abort.signal.addEventListener('abort', () => reject(timedOut), { once: true }));
  deadline.catch(() => {});
  try {
    return await Promise.race([deadline, fetchWithin(origin, settings, abort.signal)]);
  } catch (err) {
    if (abort.signal.aborted) throw timedOut;
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

async function fetchWithin(origin: string, settings: DirectoryFetch, signal: AbortSignal): Promise<DirectoryListing> {
  let target;
  try {
    target = await resolveSafeTarget(origin + DIRECTORY_PATH, { livemode: settings.livemode, allowPrivate: settings.allowPrivateUrls }, settings.resolve);
  } catch (err) {
    if (err instanceof UnsafeUrlError) throw new DirectoryError(err.message);
    throw err;
  }
  let response: Response;
  try {
    response = await pinnedFetch(target, { tls: { ca: settings.ca } })(target.url, { headers: { accept: DIRECTORY_MEDIA_TYPE }, signal });
  } catch (err) {
    if (signal.aborted) throw err;
    throw unreachable(err);
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => {});
    // A 3xx is refused like any other status: a redirect is never followed.
    throw new DirectoryError(`must answer 200 (it answered ${response.status})`);
  }
  const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== DIRECTORY_MEDIA_TYPE) {
    await response.body?.cancel().catch(() => {});
    throw new DirectoryError(`must answer with the media type ${DIRECTORY_MEDIA_TYPE}`);
  }
  let body: Buffer;
  try {
    body = await readCapped(response, DIRECTORY_MAX_BYTES);
  } catch (err) {
    if (err instanceof DirectoryError || signal.aborted) throw err;
    throw unreachable(err);
  }
  let document: unknown;
  try {
    document = JSON.parse(body.toString('utf8'));
  } catch {
    throw new DirectoryError('must be a JSON object with a keys array');
  }
  return { thumbprints: await listedThumbprints(document), maxAgeSeconds: directoryMaxAge(response.headers.get('cache-control')) };
}
