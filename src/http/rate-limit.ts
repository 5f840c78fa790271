import { recordRateLimitRejection } from '../observability/metrics.js';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { Db } from '../db/database.js';
import { AppError } from '../kernel/errors.js';
import {
  accountBucket,
  addressBucket,
  blockSize,
  limitFor,
  type LimitOverrides,
  UNAUTHENTICATED_LIMIT_PER_MINUTE,
  verdict,
  windowAt,
  type RateLimitVerdict,
} from '../ratelimit/limits.js';
import { hitCounter } from '../ratelimit/ratelimit.repository.js';

export interface RateLimitDeps {
  db: Db;
  /** Milliseconds since the epoch; every API process must keep a synchronized clock (NTP). */
  now?: () => number;
  limits?: LimitOverrides;
  /** Keyless requests per minute per client address; UNAUTHENTICATED_LIMIT_PER_MINUTE when absent. */
  unauthenticatedLimit?: number;
  /** Told when the counter cannot be reached: the request then goes on unlimited (fail open). */
  logError?: (err: unknown, requestId: string) => void;
}

export interface RateLimiter {
  /** After authentication: counts the request against its account and mode. */
  perAccount: RequestHandler;
  /** Error middleware right after authentication: a failed authentication counts against the client address. */
  onAuthFailure: ErrorRequestHandler;
  /** For public /v1 endpoints (no key): counts against the client address. */
  perAddress: RequestHandler;
}

function setHeaders(res: Response, v: RateLimitVerdict): void {
  res.setHeader('X-RateLimit-Limit', String(v.limit));
  res.setHeader('X-RateLimit-Remaining', String(v.remaining));
  res.setHeader('X-RateLimit-Reset', String(v.resetSeconds));
}

function tooMany(res: Response, v: RateLimitVerdict, who: string): AppError {
  recordRateLimitRejection(res.req);
  res.setHeader('Retry-After', String(v.resetSeconds));
  return new AppError('rate_limited', `Too many requests: ${who} may make ${v.limit} requests per minute. Retry in ${v.resetSeconds} s.`);
}

/** Buckets remembered per process; past this the memory starts over (a block's unused places are then lost, never reused). */
const MAX_BUCKETS = 10_000;

/**
 * This process's block of places in each bucket's current window (limits.ts, blockSize): a request
 * takes the next one; the last one taken makes one request fetch the next block, and requests
 * arriving meanwhile wait for that same block.
 */
class PlaceBlocks {
  private readonly held = new Map<string, { window: number; next: number; last: number }>();
  private readonly fetching = new Map<string, Promise<unknown>>();

  constructor(private readonly db: Db) {}

  async take(bucket: string, windowStart: Date, size: number): Promise<number> {
    for (;;) {
      const block = this.held.get(bucket);
      if (block && block.window === windowStart.getTime() && block.next <= block.last) return block.next++;
      let fetch = this.fetching.get(bucket);
      if (!fetch) {
        fetch = hitCounter(this.db, bucket, windowStart, size)
          .then((total) => {
            if (this.held.size >= MAX_BUCKETS) this.held.clear();
            this.held.set(bucket, { window: windowStart.getTime(), next: total - size + 1, last: total });
          })
          .finally(() => this.fetching.delete(bucket));
        this.fetching.set(bucket, fetch);
      }
      await fetch;
    }
  }
}

/** The socket's address: `trust proxy` is off, so a client cannot choose its own by a header. */
const clientAddress = (req: Request) => req.ip ?? req.socket.remoteAddress ?? 'unknown';

/**
 * Per-minute limits in fixed windows aligned to the minute, counted in PostgreSQL so every API
 * process shares them (above 1,000 a minute, in blocks: see blockSize). Every /v1 response carries X-RateLimit-Limit, -Remaining and -Reset; a
 * 429 also carries Retry-After.
 */
export function rateLimiter(deps: RateLimitDeps): RateLimiter {
  const now = deps.now ?? Date.now;
  const blocks = new PlaceBlocks(deps.db);

  /** The verdict for one more request in `bucket`, or undefined when the counter is unreachable. */
  const count = async (req: Request, bucket: string, limit: number): Promise<RateLimitVerdict | undefined> => {
    const window = windowAt(now());
    try {
      const size = blockSize(limit);
      const place = size === 1 ? await hitCounter(deps.db, bucket, window.start) : await blocks.take(bucket, window.start, size);
      return verdict(limit, place, window.resetSeconds);
    } catch (err) {
      deps.logError?.(err, req.requestId);
      return undefined;
    }
  };

  const byAddress = async (req: Request, res: Response): Promise<AppError | undefined> => {
    const v = await count(req, addressBucket(clientAddress(req)), deps.unauthenticatedLimit ?? UNAUTHENTICATED_LIMIT_PER_MINUTE);
    if (!v) return undefined;
    setHeaders(res, v);
    return v.allowed ? undefined : tooMany(res, v, 'a client without a valid API key');
  };

  return {
    perAccount: async (req, res, next) => {
      const caller = req.caller;
      if (!caller) return next();
      const v = await count(req, accountBucket(caller.accountId, caller.livemode), limitFor(caller, deps.limits));
      if (v) {
        setHeaders(res, v);
        if (!v.allowed) throw tooMany(res, v, `this account in ${caller.livemode ? 'live' : 'test'} mode`);
      }
      next();
    },
    onAuthFailure: async (err, req, res, next) => {
      if (!(err instanceof AppError) || err.code !== 'unauthorized') return next(err);
      // Over the address's limit, the answer is 429 instead of 401: a key-guesser learns nothing more.
      next((await byAddress(req, res)) ?? err);
    },
    perAddress: async (req, res, next) => {
      const limited = await byAddress(req, res);
      if (limited) throw limited;
      next();
    },
  };
}
