import { Router } from 'express';
import { openApiDocument, renderDocsPage } from '../openapi.js';
import { publicDocument, sendPublicDocument, type PublicDocument } from '../public-document.js';

/**
 * Public: the OpenAPI document and a reference page rendered from it (no script, no CDN). Both are
 * built once and served from memory, outside every rate-limit bucket, with Cache-Control and an
 * ETag (src/http/public-document.ts).
 */
export function docsRouter(): Router {
  const r = Router();
  let document: PublicDocument | undefined;
  let page: PublicDocument | undefined;
  r.get('/v1/openapi.json', (req, res) => {
    document ??= publicDocument(JSON.stringify(openApiDocument()), 'application/json');
    sendPublicDocument(req, res, document);
  });
  r.get('/docs', (req, res) => {
    page ??= publicDocument(renderDocsPage(), 'html');
    res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'");
    sendPublicDocument(req, res, page);
  });
  return r;
}
