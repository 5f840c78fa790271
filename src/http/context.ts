import type { Request } from 'express';
import type { Caller } from '../kernel/caller.js';
import { AppError } from '../kernel/errors.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      requestId: string;
      caller?: Caller;
    }
  }
}

/** The authenticated caller; routes mounted behind the auth middleware always have one. */
export function callerOf(req: Request): Caller {
  if (!req.caller) throw new AppError('unauthorized', 'Missing API key.');
  return req.caller;
}
