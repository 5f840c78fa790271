/** A receiver's Retry-After is honoured up to this: an hour, whatever it asks (a day, a year). */
export const MAX_RETRY_AFTER_MS = 3_600_000;

/**
 * Retry-After as milliseconds from `now`: delay-seconds or an HTTP date (RFC 9110 §10.2.3),
 * clamped to [0, MAX_RETRY_AFTER_MS]; undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now(), maxMs = MAX_RETRY_AFTER_MS): number | undefined {
  if (!value) return undefined;
  const seconds = /^\s*(\d+)\s*$/.exec(value);
  const ms = seconds ? Number(seconds[1]) * 1000 : Date.parse(value) - now;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(Math.max(0, ms), maxMs);
}
