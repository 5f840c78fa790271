import type { Plan } from '../db/database.js';

/** Length of a rate-limit window: fixed, aligned to the UTC minute. */
export const RATE_LIMIT_WINDOW_MS = 60_000;

/** Requests per minute (docs/api.md, "Rate limits"). */
export const TEST_MODE_LIMIT_PER_MINUTE = 100;
export const LIVE_LIMIT_PER_MINUTE: Record<Plan, number> = {
  // A sandbox account has no live keys; the number is here for completeness.
  sandbox: TEST_MODE_LIMIT_PER_MINUTE,
  starter: 500,
  growth: 2_000,
  // Used when an enterprise account has no number of its own (`accounts create --rate-limit`).
  enterprise: 2_000,
};
/** Requests per minute per client address for requests without a valid key (failed authentications; public documents are in no bucket). */
export const UNAUTHENTICATED_LIMIT_PER_MINUTE = 100;

export interface LimitSubject {
  livemode: boolean;
  plan: Plan;
  rateLimit: number | null;
}

/** Replaces a limit of the table above; for tests whose fixtures exceed the real numbers, never configured in production. */
export interface LimitOverrides {
  testMode?: number;
}

/** The per-minute limit of an account in one mode: test mode is the Sandbox row, live mode the plan's. */
export function limitFor(subject: LimitSubject, overrides: LimitOverrides = {}): number {
  if (!subject.livemode) return overrides.testMode ?? TEST_MODE_LIMIT_PER_MINUTE;
  if (subject.plan === 'enterprise' && subject.rateLimit !== null) return subject.rateLimit;
  return LIVE_LIMIT_PER_MINUTE[subject.plan];
}

/** The counter a request of an authenticated caller adds to: one per account and mode. */
export const accountBucket = (accountId: string, livemode: boolean) => `acct:${accountId}:${livemode ? 'live' : 'test'}`;
/** The counter of a rail connection's requests (counted once their signature holds). */
export const railBucket = (connectionId: string) => `rail:${connectionId}`;

/** One agent key's own counter: it may take half of its account's minute (DECISIONS §10). */
export const agentKeyBucket = (keyId: string) => `akey:${keyId}`;
export const agentKeyLimit = (accountLimit: number) => Math.max(1, Math.floor(accountLimit / 2));

/** The safety actions of one admin or reviewer key: a bucket of their own, outside the account's. */
export const safetyBucket = (keyId: string) => `safety:${keyId}`;
export const SAFETY_LIMIT_PER_MINUTE = 60;
/** 60 a minute; a test's raised test-mode limit raises it too (its fixtures make many). */
export const safetyLimit = (subject: { livemode: boolean }, overrides: LimitOverrides = {}) =>
  !subject.livemode && overrides.testMode !== undefined ? Math.max(SAFETY_LIMIT_PER_MINUTE, overrides.testMode) : SAFETY_LIMIT_PER_MINUTE;

/**
 * The routes that stop spending (DECISIONS §10): freeze and unfreeze, deny a hold, revoke an API
 * key or an agent key, deactivate a policy; and, as the same kind of act, deactivate an agent and
 * revoke a mandate. `<method> <path>` as the routes declare them.
 */
export const SAFETY_ACTIONS: ReadonlySet<string> = new Set([
  'post /v1/agents/:id/freeze',
  'post /v1/agents/:id/unfreeze',
  'post /v1/approvals/:decision_id/deny',
  'delete /v1/api-keys/:id',
  'delete /v1/agents/:id/keys/:key_id',
  'delete /v1/policies/:id',
  'delete /v1/agents/:id',
  'post /v1/mandates/:id/revoke',
]);
/** The counter of requests without a valid key: one per client address. */
export const addressBucket = (address: string) => `addr:${address}`;

export interface Window {
  start: Date;
  /** Whole seconds until the window ends (1–60): the value of X-RateLimit-Reset and Retry-After. */
  resetSeconds: number;
}

/** The fixed window `nowMs` falls in. */
export function windowAt(nowMs: number, windowMs = RATE_LIMIT_WINDOW_MS): Window {
  const start = nowMs - (((nowMs % windowMs) + windowMs) % windowMs);
  return { start: new Date(start), resetSeconds: Math.max(1, Math.ceil((start + windowMs - nowMs) / 1000)) };
}

export interface RateLimitVerdict {
  limit: number;
  remaining: number;
  resetSeconds: number;
  allowed: boolean;
}

/** The verdict for the `count`-th request of a window (the counter includes this request). */
export function verdict(limit: number, count: number, resetSeconds: number): RateLimitVerdict {
  return { limit, remaining: Math.max(0, limit - count), resetSeconds, allowed: count <= limit };
}

/**
 * Above 1,000 requests a minute a process takes its places in the shared count in blocks, one
 * round trip per block: a thousandth of the limit, at most 100. Every place is still taken from the
 * one shared counter, so no more than the limit are ever allowed; what differs is only that a block
 * in one process's hands counts as used for the others (they see fewer left, at most one block per
 * process). At or below 1,000 a minute every request is counted by itself, exactly.
 */
export const MAX_BLOCK = 100;
export const blockSize = (limit: number) => Math.max(1, Math.min(MAX_BLOCK, Math.floor(limit / 1_000)));
