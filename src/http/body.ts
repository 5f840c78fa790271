import express, { type RequestHandler } from 'express';
import { AppError } from '../kernel/errors.js';
import { rejectUnstorableInput } from './input-guard.js';

export const BODY_LIMIT_BYTES = 64 * 1024;

const hasBody = (req: Parameters<RequestHandler>[0]) =>
  req.get('transfer-encoding') !== undefined || Number(req.get('content-length') ?? 0) > 0;

/** JSON only: a body of any other type is refused rather than silently ignored. */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  if (hasBody(req) && !req.is('application/json')) {
    throw new AppError('invalid_request', 'Request bodies must be JSON (Content-Type: application/json).', 'body');
  }
  next();
};

const parseJson = express.json({ limit: BODY_LIMIT_BYTES, strict: true, type: 'application/json' });

/**
 * The request's input, read and checked: a JSON body (identity, gzip, deflate or br), then path,
 * query and body refused in one place when they hold text PostgreSQL cannot store.
 */
export const jsonBody: RequestHandler[] = [requireJsonBody, parseJson, rejectUnstorableInput];
