import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { rootCertificates } from 'node:tls';
import type { ResolvedTarget } from './ssrf.js';

/**
 * The connection's name lookup, answering the address that was checked: the host name is never
 * resolved a second time, so DNS cannot change between the check and the connection (rebinding).
 * The request keeps the URL's host name for the Host header and for TLS (SNI and the certificate
 * check).
 */
export function pinnedLookup(target: Pick<ResolvedTarget, 'address' | 'family'>): LookupFunction {
  return (_host, opts, cb) => {
    // Node asks for all addresses when autoSelectFamily is on; answer in the shape it asked for.
    if ((opts as { all?: boolean }).all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
    else cb(null, target.address, target.family);
  };
}

export type PinnedFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface PinnedFetchOptions {
  /** `ca`: a PEM certificate authority trusted beside the system's (tests' private CA). */
  tls?: { ca?: string | undefined } | undefined;
}

/** Statuses whose answer has no body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * A fetch bound to one checked target: it connects only to the target's pinned address, and only
 * for the target's own origin (scheme, host, port); a request for any other origin is refused.
 * Redirects are never followed, whatever `redirect` says: a 3xx is returned as it is, and going on
 * to its Location is a new request, checked again from the start by the caller.
 * No content coding is asked (`accept-encoding: identity` unless the caller set one), as none is decoded.
 */
export function pinnedFetch(target: ResolvedTarget, opts: PinnedFetchOptions = {}): PinnedFetch {
  const ca = opts.tls?.ca ? { ca: [...rootCertificates, opts.tls.ca] } : {};
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (url.origin !== target.url.origin) throw new Error(`refused: ${url.origin} is not the checked origin ${target.url.origin}`);
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : Buffer.from(await request.arrayBuffer());
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name] = value));
    headers['accept-encoding'] ??= 'identity';
    if (body) headers['content-length'] = String(body.length);
    const secure = url.protocol === 'https:';
    const client = secure ? https : http;
    return new Promise<Response>((resolve, reject) => {
      const req = client.request(url, { method: request.method, headers, lookup: pinnedLookup(target), signal: request.signal, agent: false, ...(secure ? ca : {}) }, (res) => {
        const status = res.statusCode ?? 0;
        if (status < 200 || status > 599) {
          res.destroy();
          reject(new Error(`unusable HTTP status ${status}`));
          return;
        }
        const responseHeaders = new Headers();
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
          try {
            responseHeaders.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
          } catch {
            // A header the Fetch API cannot hold is dropped, as fetch itself would refuse the answer otherwise.
          }
        }
        const noBody = NULL_BODY.has(status) || request.method === 'HEAD';
        if (noBody) res.resume();
        try {
          resolve(new Response(noBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), { status, statusText: res.statusMessage ?? '', headers: responseHeaders }));
        } catch (err) {
          res.destroy();
          reject(err as Error);
        }
      });
      req.on('error', reject);
      req.end(body);
    });
  };
}
