import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { AppError, type ErrorCode } from '../kernel/errors.js';
import { isUndecodableParam, unstorablePathError } from './input-guard.js';

const STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  unauthorized: 401,
  signature_required: 401,
  signature_invalid: 401,
  signature_key_unknown: 401,
  signature_expired: 401,
  signature_replayed: 401,
  forbidden: 403,
  agent_frozen: 403,
  agent_deactivated: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  service_unavailable: 503,
  internal_error: 500,
};

/**
 * Retry-After of every 503 `service_unavailable` (docs/api.md, "Errors"): the engine or the
 * database is probed every few seconds, and a reviewer's retry is safe (answered from the row).
 */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

export interface ErrorBody {
  error: { code: ErrorCode; message: string; param?: string; request_id?: string };
}

export function errorBody(code: ErrorCode, message: string, param?: string, requestId?: string): ErrorBody {
  return {
    error: { code, message, ...(param ? { param } : {}), ...(requestId ? { request_id: requestId } : {}) },
  };
}

/** The answer to a request no route serves. */
export const unrecognizedRoute = (req: Request) => new AppError('not_found', `Unrecognized request URL (${req.method} ${req.path}).`);

export const notFoundRoute: RequestHandler = (req, _res, next) => {
  next(unrecognizedRoute(req));
};

type BodyParserError = Error & { type?: string; status?: number };

/**
 * The database is unreachable or restarting (connection refused or reset, admin shutdown, cannot
 * connect now, pool timeout): the caller should retry, so it is a 503, not a bug.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | undefined;
  if (!e) return false;
  const code = e.code ?? '';
  if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', '57P01', '57P02', '57P03', '53300'].includes(code)) return true;
  if (code.startsWith('08')) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly/i.test(e.message ?? '');
}

/** zlib (gzip, deflate) and brotli refusing a body that is not what its Content-Encoding says. */
function isUndecodableBody(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^(Z_|ERR__ERROR_|ERR_BROTLI|ERR_ZLIB)/.test(code);
}

/** Converts anything thrown into the envelope; never lets a stack trace or SQL text out. */
export function errorHandler(log: (err: unknown, requestId: string) => void): ErrorRequestHandler {
  return (err, req, res, _next) => {
    let appError: AppError;
    let status: number;
    const bp = err as BodyParserError;
    if (err instanceof AppError) {
      appError = err;
      status = STATUS[err.code];
    } else if (bp?.type === 'entity.too.large') {
      appError = new AppError('invalid_request', 'The request body is larger than 64 KiB.', 'body');
      status = 413;
    } else if (bp?.type === 'entity.parse.failed') {
      appError = new AppError('invalid_request', 'The request body is not valid JSON.', 'body');
      status = 400;
    } else if (bp?.type === 'encoding.unsupported') {
      appError = new AppError('invalid_request', 'Unsupported Content-Encoding: send the body uncompressed (identity), or as gzip, deflate or br.', 'Content-Encoding');
      status = 415;
    } else if (isUndecodableBody(err)) {
      appError = new AppError('invalid_request', `The request body could not be decoded as its Content-Encoding (${req.get('content-encoding') ?? 'identity'}) says.`, 'body');
      status = 400;
    } else if (isUndecodableParam(err)) {
      // Routing decodes a path id before the route's own checks run: the same 400 they give.
      appError = unstorablePathError();
      status = 400;
    } else if (isDatabaseUnavailable(err)) {
      appError = new AppError('service_unavailable', 'The database is unavailable; retry shortly.');
      status = 503;
    } else if (bp?.type && typeof bp.status === 'number' && bp.status >= 400 && bp.status < 500) {
      // Other body-reader refusals (bad charset, aborted upload): the client's fault, described generically.
      appError = new AppError('invalid_request', 'The request body could not be read.', 'body');
      status = 400;
    } else {
      log(err, req.requestId);
      appError = new AppError('internal_error', 'An internal error occurred. Retry later or contact support with the request id.');
      status = 500;
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    if (status === 503) res.setHeader('Retry-After', String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS));
    res.status(status).json(errorBody(appError.code, appError.message, appError.param, req.requestId));
  };
}
