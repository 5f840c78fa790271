import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { canonicalJson } from '../audit/audit-chain.js';
import type { Db, DbOrTrx } from '../db/database.js';
import type { IdempotencyHandle } from '../kernel/idempotency.js';
import { AppError, conflict } from '../kernel/errors.js';
import { sha256Hex } from '../kernel/ids.js';
import { claimKey, completeKey, completeKeyStatement, releaseKey, type IdempotencyScope } from '../idempotency/idempotency.repository.js';
import type { ResponseCipher } from '../idempotency/response-cipher.js';
import { requireRole } from '../kernel/caller.js';
import { callerOf } from './context.js';
import type { Route } from './route.js';
import { bodyObject, parse } from './validate.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const MAX_KEY_LENGTH = 255;
const JSON_TYPE = 'application/json; charset=utf-8';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      idempotency?: IdempotencyHandle<DbOrTrx>;
    }
  }
}

/** Answers that mean the request never started executing: never stored, and the key stays free (Stripe's rule). */
const NOT_EXECUTED = new Set([400, 401, 403, 413, 429]);

export interface IdempotencyDeps {
  db: Db;
  cipher: ResponseCipher;
}

/**
 * Stripe-style idempotency for every documented POST: the first response per (account, mode, API
 * key, Idempotency-Key) is stored encrypted and replayed byte for byte with
 * `Idempotent-Replayed: true`; the same key with another request, or while the first is still
 * running, is a 409 conflict. Kept 24 hours.
 */
export function idempotency({ db, cipher }: IdempotencyDeps): (route: Route) => RequestHandler {
  // Mounted on each route, so the route is the one the router matched (DECISIONS §19): never a
  // second reading of the path that another spelling could steer.
  return (route) => async (req, res, next) => {
    const key = req.get(IDEMPOTENCY_HEADER);
    if (req.method !== 'POST' || key === undefined) return next();
    if (key.length < 1 || key.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
      throw new AppError('invalid_request', `${IDEMPOTENCY_HEADER} must be 1–${MAX_KEY_LENGTH} printable characters.`, IDEMPOTENCY_HEADER);
    }
    const caller = callerOf(req);
    // The role and the body are checked before any lookup (docs/api.md, "Idempotency"): a key that
    // may not make this request never reaches a stored response, and its refusal never binds the
    // key.
    if (route.roles !== 'public') requireRole(caller, route.roles);
    if (route.body) parse(route.body, bodyObject(req.body));

    // This request's own claim: a retry that takes the key over (this one stalled past the claim's
    // lifetime) makes every later write of this one fail, so only one of the two is decided.
    const scope: IdempotencyScope = { accountId: caller.accountId, livemode: caller.livemode, apiKeyId: caller.keyId, key, claimId: randomUUID() };
    const aad = JSON.stringify([scope.accountId, scope.livemode, scope.apiKeyId, scope.key]);
    const requestHash = sha256Hex(`${req.method} ${req.baseUrl}${req.path}\n${canonicalJson(req.body ?? null)}`);

    const existing = await claimKey(db, scope, requestHash, new Date());
    if (existing) {
      if (existing.request_hash !== requestHash) {
        throw conflict(`This ${IDEMPOTENCY_HEADER} was already used with a different request.`, IDEMPOTENCY_HEADER);
      }
      if (existing.status !== 'completed' || existing.response_status === null) {
        throw conflict(`A request with this ${IDEMPOTENCY_HEADER} is still being processed; retry shortly.`, IDEMPOTENCY_HEADER);
      }
      const body = existing.response_body === null ? '' : cipher.open(existing.response_body, aad);
      if (body === undefined) {
        throw conflict(`The response stored for this ${IDEMPOTENCY_HEADER} can no longer be read (the server's key changed); use a new key.`, IDEMPOTENCY_HEADER);
      }
      res.setHeader('Idempotent-Replayed', 'true');
      res.status(existing.response_status).type(existing.response_type ?? JSON_TYPE).send(body);
      return;
    }

    req.idempotency = {
      key,
      complete: (trx, status, body) => completeKey(trx, scope, status, JSON_TYPE, cipher.seal(body, aad)),
      completion: (trx, status, body) => completeKeyStatement(trx, scope, status, JSON_TYPE, cipher.seal(body, aad)),
      stored: (status, body) => ({
        account_id: scope.accountId,
        livemode: scope.livemode,
        api_key_id: scope.apiKeyId,
        key: scope.key,
        response_status: status,
        response_type: JSON_TYPE,
        response_body: cipher.seal(body, aad),
        claim_id: scope.claimId ?? null,
      }),
    };
    // Store (or release) before the response leaves, so an immediate retry already finds it.
    const send = res.send.bind(res);
    res.send = ((body?: unknown) => {
      const status = res.statusCode;
      const text = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : JSON.stringify(body ?? null);
      const type = String(res.getHeader('content-type') ?? JSON_TYPE);
      const persist = status >= 500 || NOT_EXECUTED.has(status) ? releaseKey(db, scope) : completeKey(db, scope, status, type, cipher.seal(text, aad));
      persist.catch(() => releaseKey(db, scope).catch(() => {})).finally(() => send(body as never));
      return res;
    }) as typeof res.send;
    next();
  };
}
