import type { RequestHandler } from 'express';
import { newId } from '../kernel/ids.js';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Honours a well-formed incoming X-Request-Id so callers can correlate; otherwise mints one. */
export const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.get('x-request-id');
  req.requestId = incoming && SAFE_REQUEST_ID.test(incoming) ? incoming : newId('req');
  res.setHeader('X-Request-Id', req.requestId);
  next();
};
