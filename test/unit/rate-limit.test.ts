import { describe, expect, test } from 'vitest';
import { accountBucket, addressBucket, limitFor, verdict, windowAt } from '../../src/ratelimit/limits.js';

describe('windowAt: fixed windows aligned to the UTC minute', () => {
  test.each([
    ['2026-11-21T12:00:00.000Z', '2026-11-21T12:00:00.000Z', 60],
    ['2026-11-21T12:00:00.001Z', '2026-11-21T12:00:00.000Z', 60],
    ['2026-11-21T12:00:45.000Z', '2026-11-21T12:00:00.000Z', 15],
    ['2026-11-21T12:00:45.200Z', '2026-11-21T12:00:00.000Z', 15],
    ['2026-11-21T12:00:59.999Z', '2026-11-21T12:00:00.000Z', 1],
    ['2026-12-31T23:59:30.000Z', '2026-12-31T23:59:00.000Z', 30],
  ])('at %s the window starts at %s and resets in %i s', (at, start, reset) => {
    const w = windowAt(Date.parse(at));
    expect(w.start.toISOString()).toBe(start);
    expect(w.resetSeconds).toBe(reset);
  });
});

describe('limitFor', () => {
  test.each([
    [{ livemode: false, plan: 'sandbox', rateLimit: null }, 100],
    [{ livemode: false, plan: 'growth', rateLimit: null }, 100],
    [{ livemode: false, plan: 'enterprise', rateLimit: 9_000 }, 100],
    [{ livemode: true, plan: 'starter', rateLimit: null }, 500],
    [{ livemode: true, plan: 'growth', rateLimit: null }, 2_000],
    [{ livemode: true, plan: 'enterprise', rateLimit: 9_000 }, 9_000],
    [{ livemode: true, plan: 'enterprise', rateLimit: null }, 2_000],
    // A number of its own applies to an enterprise account only.
    [{ livemode: true, plan: 'growth', rateLimit: 9_000 }, 2_000],
  ] as const)('%j → %i per minute', (subject, limit) => {
    expect(limitFor(subject)).toBe(limit);
  });

  test('a test-mode override replaces only the test-mode limit', () => {
    expect(limitFor({ livemode: false, plan: 'growth', rateLimit: null }, { testMode: 5 })).toBe(5);
    expect(limitFor({ livemode: true, plan: 'growth', rateLimit: null }, { testMode: 5 })).toBe(2_000);
  });
});

describe('verdict', () => {
  test.each([
    [1, true, 99],
    [100, true, 0],
    [101, false, 0],
    [500, false, 0],
  ])('request number %i of a 100 limit: allowed %s, %i remaining', (count, allowed, remaining) => {
    expect(verdict(100, count, 7)).toEqual({ limit: 100, remaining, resetSeconds: 7, allowed });
  });
});

describe('counter names (rows of rate_limit_counters)', () => {
  test('one per account and mode, one per client address', () => {
    expect(accountBucket('acct_1', true)).toBe('acct:acct_1:live');
    expect(accountBucket('acct_1', false)).toBe('acct:acct_1:test');
    expect(addressBucket('127.0.0.1')).toBe('addr:127.0.0.1');
  });
});
