import express, { type RequestHandler } from 'express';
import { BODY_LIMIT_BYTES } from './body.js';
import type { RailRateLimitSubject, RateLimiter } from './rate-limit.js';

/**
 * What the HTTP layer needs of a rail that asks first (src/rails/<rail>/): the rail is composed in
 * by the app, never imported here.
 */
export interface RailVerified {
  connection: { id: string; livemode: boolean; plan: RailRateLimitSubject['plan']; rateLimit: number | null };
}

export interface RailPort<V extends RailVerified> {
  authenticate(connectionId: string, rawBody: Buffer, signature: string | undefined): Promise<V>;
  answer(verified: V, arrivedAt: number): Promise<{ headers: Record<string, string>; body: Record<string, unknown> }>;
  deadlineOf(arrivedAt: number): number;
}

/** The body exactly as sent: the signature is over these bytes (no decompression, no parsing). */
const rawBody = express.raw({ type: () => true, limit: BODY_LIMIT_BYTES, inflate: false });

/**
 * `POST /rails/<rail>/:id`, without a key: the arrival time (the decision's deadline counts from
 * it), the raw body, the rail's own authentication (signature and mode), the connection's rate
 * limit, then the rail's answer.
 */
export function railEndpoint<V extends RailVerified>(rail: RailPort<V>, signatureHeader: string, limits: Pick<RateLimiter, 'perRailConnection'>): RequestHandler[] {
  return [
    (_req, res, next) => {
      res.locals.arrivedAt = Date.now();
      next();
    },
    rawBody,
    async (req, res, next) => {
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const verified = await rail.authenticate(String(req.params.id), body, req.get(signatureHeader));
      const { connection } = verified;
      res.locals.verified = verified;
      res.locals.rateLimited = { connectionId: connection.id, livemode: connection.livemode, plan: connection.plan, rateLimit: connection.rateLimit, deadline: rail.deadlineOf(res.locals.arrivedAt as number) } satisfies RailRateLimitSubject;
      next();
    },
    limits.perRailConnection,
    async (_req, res) => {
      const answer = await rail.answer(res.locals.verified as V, res.locals.arrivedAt as number);
      res.set(answer.headers).json(answer.body);
    },
  ];
}
