import type { Fetch } from './api-call.js';
import type { RequestSigner } from './request-signer.js';

/**
 * `fetchImpl` with every request signed by `signer` (request-signer.ts) just before it is sent:
 * each attempt afresh, with its own nonce, since the service refuses a nonce it has seen
 * (`signature_replayed`) and stores no answer to a 401, so a retry must sign again. The body is
 * read once and sent as the very bytes its `Content-Digest` was taken over.
 *
 * `signer` may be the promise `createRequestSigner` returns: a key that failed makes each call
 * fail (as a fetch does), never the process.
 */
export function signingFetch(fetchImpl: Fetch, signer: RequestSigner | Promise<RequestSigner>): Fetch {
  const ready = Promise.resolve(signer);
  ready.catch(() => undefined);
  return async (req) => {
    const s = await ready;
    const body = req.body === null ? null : new Uint8Array(await req.clone().arrayBuffer());
    const headers = s.sign({ method: req.method, url: req.url, headers: req.headers, body });
    return fetchImpl(new Request(req, body === null ? { headers } : { headers, body }));
  };
}
