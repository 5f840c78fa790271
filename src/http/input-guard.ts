import type { RequestHandler } from 'express';
import { invalid } from '../kernel/errors.js';
import { isStorableText, unstorablePath } from '../kernel/storable-text.js';

const WHAT = 'must not contain NUL characters or unpaired UTF-16 surrogates';

/** Each segment of the path as the router will decode it; undefined when one is not valid percent-encoded UTF-8. */
function decodedSegments(path: string): string[] | undefined {
  try {
    return path.split('/').map((segment) => decodeURIComponent(segment));
  } catch {
    return undefined;
  }
}

/**
 * A 400 `invalid_request` naming the parameter at fault when a parsed query or body holds text
 * PostgreSQL cannot store, in a string value or in a key.
 */
export function rejectUnstorable(value: unknown, root: 'query' | 'body'): void {
  const found = unstorablePath(value, root);
  if (!found) return;
  if (root === 'query') throw invalid(found.inKey ? `A query parameter name ${WHAT}.` : `Invalid ${found.param}: ${WHAT}.`, found.param);
  throw invalid(found.inKey ? `Invalid ${found.param}: its keys ${WHAT}.` : `Invalid ${found.param}: ${WHAT}.`, found.param);
}

/** The refusal of a path that does not decode, or decodes to text PostgreSQL cannot hold. */
export const unstorablePathError = () => invalid(`The request path ${WHAT}, and must be valid percent-encoded UTF-8.`);

/** The router's own refusal of a path parameter that does not percent-decode (router's decode_param). */
export const isUndecodableParam = (err: unknown) => err instanceof URIError && (err as URIError & { status?: number }).status === 400;

/**
 * Path and query of a request, checked in one place for every route once the body is read, before
 * any of it reaches a query: a path id or a query parameter (name or value) that PostgreSQL cannot
 * hold is a 400 `invalid_request` naming the parameter at fault (none for the path). The body is
 * checked the same way as it is read (src/http/body.ts).
 */
export const rejectUnstorableInput: RequestHandler = (req, _res, next) => {
  const segments = decodedSegments(req.path);
  if (!segments || segments.some((s) => !isStorableText(s))) throw unstorablePathError();
  rejectUnstorable(req.query, 'query');
  next();
};
