/** Machine-readable causes; the HTTP layer maps each to a status in one place. */
export type ErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'signature_required'
  | 'signature_invalid'
  | 'signature_key_unknown'
  | 'signature_expired'
  | 'signature_replayed'
  | 'forbidden'
  | 'agent_frozen'
  | 'agent_deactivated'
  | 'not_found'
  | 'conflict'
  | 'rate_limited'
  | 'service_unavailable'
  | 'internal_error';

/** A domain error: knows its code and offending parameter, nothing of HTTP. */
export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param?: string,
  ) {
    super(message);
  }
}

export const notFound = (what: string, param?: string) =>
  new AppError('not_found', `No such ${what}.`, param);

export const invalid = (message: string, param?: string) =>
  new AppError('invalid_request', message, param);

export const conflict = (message: string, param?: string) =>
  new AppError('conflict', message, param);

export const forbidden = (message: string) => new AppError('forbidden', message);
