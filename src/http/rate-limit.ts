import { recordRateLimitRejection } from '../observability/metrics.js';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { Db } from '../db/database.js';
import { AppError } from '../kernel/errors.js';
import {
  accountBucket,
  addressBucket,
  agentKeyBucket,
  agentKeyLimit,
  SAFETY_ACTIONS,
  safetyBucket,
  safetyLimit,
  blockSize,
  limitFor,
  railBucket,
  type LimitOverrides,
  type LimitSubject,
  UNAUTHENTICATED_LIMIT_PER_MINUTE,
  verdict,
  windowAt,
  type RateLimitVerdict,
} from '../ratelimit/limits.js';
import { hitCounter } from '../ratelimit/ratelimit.repository.js';
import type { Route } from './route.js';

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
  /** After authentication: counts the request against its agent key's own bucket (agent keys), then its account and mode. */
  perAccount: RequestHandler;
  /**
   * On each route (or, with none, ahead of the 404), before the signature gate: an agent key's
   * own bucket (half the account's minute); an admin or reviewer key's safety actions' bucket
   * (60 a minute, instead of the account's). A request the gate then refuses has cost only this.
   */
  beforeGate(route: Route | undefined): RequestHandler;
  /** After the signature gate: the account's bucket, unless the request drew on a safety bucket. */
  afterGate: RequestHandler;
  /**
   * Error middleware right after authentication: a failed authentication counts against the client
   * address. Public documents and probes are in no bucket (src/http/public-document.ts).
   */
  onAuthFailure: ErrorRequestHandler;
  /**
   * For a rail's endpoint, once the request's signature holds: counts it against its connection at
   * its account's limit for the mode (throws the 429). A counter that has not answered by the
   * request's deadline lets it through, as an unreachable one does.
   */
  perRailConnection(req: Request, res: Response, subject: RailRateLimitSubject): Promise<void>;
}

/** Whom a rail's request is counted against: its connection, at its account's limit for the mode. */
export interface RailRateLimitSubject {
  connectionId: string;
  livemode: boolean;
  plan: LimitSubject['plan'];
  rateLimit: number | null;
  /** Epoch ms by which the request must be answered. */
  deadline: number;
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

  // Per response: the verdict its headers show, and whether it drew on a safety bucket.
  const shownOn = new WeakMap<Response, RateLimitVerdict>();
  const safetyCounted = new WeakSet<Response>();
  /** The headers show the bucket with the fewest places left. */
  const show = (res: Response, v: RateLimitVerdict) => {
    const shown = shownOn.get(res);
    if (!shown || v.remaining < shown.remaining || !v.allowed) {
      setHeaders(res, v);
      shownOn.set(res, v);
    }
  };
  const ownBucket = async (req: Request, res: Response, route: Route | undefined) => {
    const caller = req.caller;
    if (!caller) return;
    if (caller.role === 'agent') {
      const v = await count(req, agentKeyBucket(caller.keyId), agentKeyLimit(limitFor(caller, deps.limits)));
      if (!v) return;
      show(res, v);
      if (!v.allowed) throw tooMany(res, v, 'this agent key (half of its account\'s limit)');
      return;
    }
    if (route && SAFETY_ACTIONS.has(`${route.method} ${route.path}`)) {
      safetyCounted.add(res);
      const v = await count(req, safetyBucket(caller.keyId), safetyLimit(caller, deps.limits));
      if (!v) return;
      show(res, v);
      if (!v.allowed) throw tooMany(res, v, "this key's safety actions");
    }
  };
  const accountOf = async (req: Request, res: Response) => {
    const caller = req.caller;
    if (!caller || safetyCounted.has(res)) return;
    const v = await count(req, accountBucket(caller.accountId, caller.livemode), limitFor(caller, deps.limits));
    if (v) {
      show(res, v);
      if (!v.allowed) throw tooMany(res, v, `this account in ${caller.livemode ? 'live' : 'test'} mode`);
    }
  };

  return {
    perAccount: async (req, res, next) => {
      await ownBucket(req, res, undefined);
      await accountOf(req, res);
      next();
    },
    beforeGate: (route) => async (req, res, next) => {
      await ownBucket(req, res, route);
      next();
    },
    afterGate: async (req, res, next) => {
      await accountOf(req, res);
      next();
    },
    onAuthFailure: async (err, req, res, next) => {
      if (!(err instanceof AppError) || err.code !== 'unauthorized') return next(err);
      // Over the address's limit, the answer is 429 instead of 401: a key-guesser learns nothing more.
      next((await byAddress(req, res)) ?? err);
    },
    perRailConnection: async (req, res, subject) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), Math.max(0, subject.deadline - Date.now()))));
      const v = await Promise.race([count(req, railBucket(subject.connectionId), limitFor(subject, deps.limits)), late]).finally(() => clearTimeout(timer));
      if (v) {
        setHeaders(res, v);
        if (!v.allowed) throw tooMany(res, v, `this rail connection (its account in ${subject.livemode ? 'live' : 'test'} mode)`);
      }
    },
  };
}
