import http from 'node:http';
import { parseRetryAfter } from '../kernel/retry-after.js';
import https from 'node:https';
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
        lookup: (_host, opts, cb) => {
          // Node asks for all addresses when autoSelectFamily is on; answer in the shape it asked for.
          if ((opts as { all?: boolean }).all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
          else cb(null, target.address, target.family);
        },
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
