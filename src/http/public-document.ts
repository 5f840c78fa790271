import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';

/**
 * A public document served from memory (JWKS, OpenAPI document, reference page): its bytes and
 * strong ETag are computed once. These documents sit outside every rate-limit bucket (docs/api.md,
 * "Rate limits"), so they never touch the database and a flood of bad keys from one address never
 * starves the key fetch of a rail behind it; caches and conditional requests keep them cheap.
 */
export interface PublicDocument {
  body: string;
  etag: string;
  contentType: string;
}

export function publicDocument(body: string, contentType: string): PublicDocument {
  const digest = createHash('sha256').update(body, 'utf8').digest('base64url').slice(0, 27);
  return { body, etag: `"${digest}"`, contentType };
}

/** How long shared caches and clients may keep each public answer (seconds). */
export const PUBLIC_MAX_AGE_SECONDS = { document: 300, health: 5 } as const;

export const cacheFor = (res: Response, seconds: number): void => {
  res.setHeader('Cache-Control', `public, max-age=${seconds}`);
};

/** Sends the document with Cache-Control and ETag; `304 Not Modified` when If-None-Match names it. */
export function sendPublicDocument(req: Request, res: Response, doc: PublicDocument, maxAgeSeconds: number = PUBLIC_MAX_AGE_SECONDS.document): void {
  cacheFor(res, maxAgeSeconds);
  res.setHeader('ETag', doc.etag);
  // req.fresh compares If-None-Match with the ETag just set (GET and HEAD only).
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  res.type(doc.contentType).send(doc.body);
}

/**
 * A document built once per source (a signer's keys, the OpenAPI builder) on first use: the same
 * bytes and ETag for the process's life, and a test app with other keys gets its own.
 */
export function documentPerSource<K extends object>(build: (source: K) => PublicDocument): (source: K) => PublicDocument {
  const built = new WeakMap<K, PublicDocument>();
  return (source) => {
    let doc = built.get(source);
    if (!doc) built.set(source, (doc = build(source)));
    return doc;
  };
}
