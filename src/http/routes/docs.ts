import { Router, type RequestHandler } from 'express';
import { openApiDocument, renderDocsPage } from '../openapi.js';

/**
 * Public: the OpenAPI document and a reference page rendered from it (no script, no CDN). The
 * document is a /v1 response, so it is counted against the client's address and carries the
 * X-RateLimit headers like every other.
 */
export function docsRouter(limitPerAddress: RequestHandler): Router {
  const r = Router();
  let page: string | undefined;
  r.get('/v1/openapi.json', limitPerAddress, (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.json(openApiDocument());
  });
  r.get('/docs', (_req, res) => {
    page ??= renderDocsPage();
    res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'");
    res.type('html').send(page);
  });
  return r;
}
