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
 * Path, query and JSON body of a request, checked in one place for every route once the body is
 * read, before any of it reaches a query: a path id, a query parameter (name or value) or any
 * string of the body (value or key) that PostgreSQL cannot hold is a 400 `invalid_request` naming
 * the parameter at fault (none for the path).
 */
export const rejectUnstorableInput: RequestHandler = (req, _res, next) => {
  const segments = decodedSegments(req.path);
  if (!segments || segments.some((s) => !isStorableText(s))) {
    throw invalid(`The request path ${WHAT}, and must be valid percent-encoded UTF-8.`);
  }
  const query = unstorablePath(req.query, 'query');
  if (query) throw invalid(query.inKey ? `A query parameter name ${WHAT}.` : `Invalid ${query.param}: ${WHAT}.`, query.param);
  const body = unstorablePath(req.body, 'body');
  if (body) throw invalid(body.inKey ? `Invalid ${body.param}: its keys ${WHAT}.` : `Invalid ${body.param}: ${WHAT}.`, body.param);
  next();
};
