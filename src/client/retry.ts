import { parseRetryAfter } from '../kernel/retry-after.js';

export const DEFAULT_MAX_RETRIES = 3;
/** Backoff before retry n (0-based): a random wait up to min(8 s, 0.5 s × 2^n) ("full jitter"). */
export const BACKOFF_BASE_MS = 500;
export const BACKOFF_CAP_MS = 8_000;
/**
 * A `Retry-After` is honoured up to this; a longer one is not waited out inside a call (an agent
 * should not hang for minutes): the call fails at once with RateLimitError and its `retryAfter`.
 */
export const MAX_RETRY_AFTER_SECONDS = 60;

/** The statuses a call is retried on; every other answer is final (and a 4xx is the caller's to fix). */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 503]);

export function backoffMs(retry: number, random: () => number = Math.random): number {
  return random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** retry);
}

/**
 * `Retry-After` (delay-seconds or an HTTP date) in milliseconds from now; undefined when absent or
 * unreadable. Fractional seconds ("1.5") are read as such: some gateways send them.
 */
export function retryAfterMs(value: string | null, now: number = Date.now()): number | undefined {
  const seconds = value === null ? undefined : /^\s*(\d+\.\d+)\s*$/.exec(value)?.[1];
  if (seconds !== undefined) return Math.round(Number(seconds) * 1000);
  return parseRetryAfter(value, now, Number.POSITIVE_INFINITY);
}

/** A `Retry-After` is waited out, plus a random part of up to this share of it. */
export const RETRY_AFTER_SPREAD = 0.5;

/**
 * How long to wait before the next attempt: the service's `Retry-After` when it gave one, and a
 * random part of up to half of it more, else the backoff. The spread matters under overload: every
 * client the service shed at one moment is told the same `Retry-After`, and retrying all at once
 * would shed them again together.
 */
export function retryDelayMs(retry: number, retryAfter: number | undefined, random: () => number = Math.random): number {
  return retryAfter === undefined ? backoffMs(retry, random) : retryAfter + random() * retryAfter * RETRY_AFTER_SPREAD;
}
