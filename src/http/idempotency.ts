import type { RequestHandler } from 'express';
import type { Compilable } from 'kysely';
import { canonicalJson } from '../audit/audit-chain.js';
import type { Db, DbOrTrx } from '../db/database.js';
import { AppError, conflict } from '../errors.js';
import { sha256Hex } from '../ids.js';
import { claimKey, completeKey, completeKeyStatement, releaseKey } from '../idempotency/idempotency.repository.js';
import { callerOf } from './context.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const MAX_KEY_LENGTH = 255;
const JSON_TYPE = 'application/json; charset=utf-8';

/** Lets a service store the response inside its own transaction, so the two commit together. */
export interface IdempotencyHandle {
  key: string;
  complete(trx: DbOrTrx, status: number, body: string): Promise<void>;
  /** The same store as a statement, so a service can write it together with its own rows. */
  completion?(trx: DbOrTrx, status: number, body: string): Compilable;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      idempotency?: IdempotencyHandle;
    }
  }
}

/**
 * Stripe-style idempotency for every POST: the first response per (account, mode, key) is stored
 * and replayed byte for byte with `Idempotent-Replayed: true`; the same key with another request,
 * or while the first is still running, is a 409 conflict. Kept 24 hours.
 */
export function idempotency(db: Db): RequestHandler {
  return async (req, res, next) => {
    const key = req.get(IDEMPOTENCY_HEADER);
    if (req.method !== 'POST' || key === undefined) return next();
    if (key.length < 1 || key.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
      throw new AppError('invalid_request', `${IDEMPOTENCY_HEADER} must be 1–${MAX_KEY_LENGTH} printable characters.`, IDEMPOTENCY_HEADER);
    }
    const caller = callerOf(req);
    const scope = { accountId: caller.accountId, livemode: caller.livemode, key };
    const requestHash = sha256Hex(`${req.method} ${req.baseUrl}${req.path}\n${canonicalJson(req.body ?? null)}`);

    const existing = await claimKey(db, scope, requestHash, new Date());
    if (existing) {
      if (existing.request_hash !== requestHash) {
        throw conflict(`This ${IDEMPOTENCY_HEADER} was already used with a different request.`, IDEMPOTENCY_HEADER);
      }
      if (existing.status !== 'completed' || existing.response_status === null) {
        throw conflict(`A request with this ${IDEMPOTENCY_HEADER} is still being processed; retry shortly.`, IDEMPOTENCY_HEADER);
      }
      res.setHeader('Idempotent-Replayed', 'true');
      res.status(existing.response_status).type(existing.response_type ?? JSON_TYPE).send(existing.response_body ?? '');
      return;
    }

    req.idempotency = {
      key,
      complete: (trx, status, body) => completeKey(trx, scope, status, JSON_TYPE, body),
      completion: (trx, status, body) => completeKeyStatement(trx, scope, status, JSON_TYPE, body),
    };
    // Store (or release) before the response leaves, so an immediate retry already finds it.
    const send = res.send.bind(res);
    res.send = ((body?: unknown) => {
      const status = res.statusCode;
      const text = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : JSON.stringify(body ?? null);
      const type = String(res.getHeader('content-type') ?? JSON_TYPE);
      const persist = status >= 500 ? releaseKey(db, scope) : completeKey(db, scope, status, type, text);
      persist.catch(() => releaseKey(db, scope).catch(() => {})).finally(() => send(body as never));
      return res;
    }) as typeof res.send;
    next();
  };
}
