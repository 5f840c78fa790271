import type { RequestHandler } from 'express';
import type { Caller } from '../kernel/caller.js';
import { AppError } from '../kernel/errors.js';

export type Authenticator = (rawKey: string) => Promise<Caller>;

/** Every /v1 request names its key as `Authorization: Bearer gc_(test|live)_…`. */
export function authMiddleware(authenticate: Authenticator): RequestHandler {
  return async (req, _res, next) => {
    const header = req.get('authorization');
    if (!header) throw new AppError('unauthorized', 'Missing API key: send Authorization: Bearer <API_KEY>.');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match?.[1]) throw new AppError('unauthorized', 'Malformed Authorization header: expected Bearer <API_KEY>.');
    req.caller = await authenticate(match[1]);
    next();
  };
}
