import http from 'node:http';
import { parseRetryAfter } from '../kernel/retry-after.js';
import https from 'node:https';
import { pinnedLookup } from './pinned-fetch.js';
import type { ResolvedTarget } from './ssrf.js';

export interface PostResult {
  status: number;
  /** Retry-After in milliseconds, when the receiver sent a usable one. */
  retryAfterMs: number | undefined;
}

/** Seconds or an HTTP date, as RFC 9110 allows; undefined when absent or unusable. */

/**
 * POSTs to the already-checked address: the lookup is pinned, so DNS cannot change between the
 * check and the connection. TLS still verifies the certificate for the URL's host name.
 * Redirects are never followed (a 3xx is just a status).
 */
export function postPinned(target: ResolvedTarget, body: string, headers: Record<string, string>, timeoutMs: number, signal?: AbortSignal): Promise<PostResult> {
  const { url } = target;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'spend-auth-webhooks/1', ...headers },
        lookup: pinnedLookup(target),
        signal,
        agent: false,
      },
      (res) => {
        // The body is not needed; drain a bounded amount so the socket can close.
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfterMs: parseRetryAfter(res.headers['retry-after'] as string | undefined) }));
        res.on('error', reject);
      },
    );
    // One deadline for the whole exchange: a receiver that trickles bytes cannot hold an attempt open.
    const deadline = setTimeout(() => req.destroy(new Error(`no response within ${timeoutMs} ms`)), timeoutMs);
    req.on('close', () => clearTimeout(deadline));
    req.on('error', reject);
    req.end(body);
  });
}
