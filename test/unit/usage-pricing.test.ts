import { describe, expect, test } from 'vitest';
import { isMonth, monthEnd, monthOf, monthStart, previousMonth } from '../../src/usage/month.js';
import { formatUsd, overageOf, parseUsdRate, PLAN_TERMS, termsFor, TEST_MODE_TERMS } from '../../src/usage/pricing.js';

describe('overage (the plan table of docs/api.md, Usage)', () => {
  test.each([
    // plan, checks this month, overage checks, overage amount (USD)
    ['starter', 0, 0, '0.0000'],
    ['starter', 9_999, 0, '0.0000'],
    ['starter', 10_000, 0, '0.0000'],
    ['starter', 10_001, 1, '0.0015'],
    ['starter', 10_002, 2, '0.0030'],
    ['starter', 10_007, 7, '0.0105'],
    ['starter', 11_000, 1_000, '1.5000'],
    ['starter', 20_000, 10_000, '15.0000'],
    ['starter', 1_010_000, 1_000_000, '1500.0000'],
    ['growth', 100_000, 0, '0.0000'],
    ['growth', 100_001, 1, '0.0008'],
    ['growth', 100_003, 3, '0.0024'],
    ['growth', 112_345, 12_345, '9.8760'],
    ['growth', 1_100_000, 1_000_000, '800.0000'],
    ['sandbox', 5_000_000, 0, '0.0000'],
  ] as const)('%s, %i checks → %i over, $%s', (plan, checks, over, amount) => {
    expect(overageOf(checks, PLAN_TERMS[plan])).toEqual({ overage_checks: over, overage_amount: amount });
  });

  test('amounts are exact where floating point is not: 3 × $0.0001 is $0.0003 and 10^15 checks do not lose a digit', () => {
    expect(overageOf(3, { included: 0, overageRateMicros: 100 }).overage_amount).toBe('0.0003');
    expect(0.0001 * 3).not.toBe(0.0003);
    expect(overageOf(1_000_000_000_000_007, { included: 0, overageRateMicros: 1_500 }).overage_amount).toBe('1500000000000.0105');
  });

  test.each([
    [{ plan: 'enterprise', included_checks: 5, overage_rate_micros: 500 }, 8, { included: 5 }, { overage_checks: 3, overage_amount: '0.0015' }],
    [{ plan: 'enterprise', included_checks: 0, overage_rate_micros: 100 }, 12_345, { included: 0 }, { overage_checks: 12_345, overage_amount: '1.2345' }],
    [{ plan: 'enterprise', included_checks: 1_000_000, overage_rate_micros: null }, 1_000_010, { included: 1_000_000 }, { overage_checks: 10, overage_amount: '0.0080' }],
    [{ plan: 'enterprise', included_checks: null, overage_rate_micros: null }, 100_001, { included: 100_000 }, { overage_checks: 1, overage_amount: '0.0008' }],
    // Terms of its own on a non-enterprise account are ignored: the plan's apply.
    [{ plan: 'starter', included_checks: 5, overage_rate_micros: 1 }, 10_001, { included: 10_000 }, { overage_checks: 1, overage_amount: '0.0015' }],
  ] as const)('account terms %j with %i checks', (account, checks, terms, expected) => {
    const t = termsFor(account);
    expect(t).toMatchObject(terms);
    expect(overageOf(checks, t)).toEqual(expected);
  });

  test('test mode is unlimited and free', () => {
    expect(TEST_MODE_TERMS).toEqual({ included: null, overageRateMicros: 0 });
    expect(overageOf(1e9, TEST_MODE_TERMS)).toEqual({ overage_checks: 0, overage_amount: '0.0000' });
  });
});

describe('formatUsd', () => {
  test.each([
    [0n, 4, '0.0000'],
    [1_500n, 4, '0.0015'],
    [12_345_000n, 4, '12.3450'],
    [49n, 4, '0.0000'],
    [50n, 4, '0.0001'],
    [1_005_000n, 2, '1.01'],
    [1_004_999n, 2, '1.00'],
    [2_000_000n, 0, '2'],
    [123_456n, 6, '0.123456'],
  ])('%s micro-dollars with %i places → %s (half up)', (micros, places, text) => {
    expect(formatUsd(micros, places)).toBe(text);
  });

  test('a negative amount is refused, never printed', () => {
    expect(() => formatUsd(-1n)).toThrow(new RangeError('negative amount'));
  });
});

describe('parseUsdRate', () => {
  test.each([
    ['0.0015', 1_500],
    ['0.0008', 800],
    ['0.0005', 500],
    ['0.1', 100_000],
    ['1', 1_000_000],
    ['0', 0],
    [' 0.0001 ', 100],
  ])('%j → %i micro-dollars', (text, micros) => {
    expect(parseUsdRate(text)).toBe(micros);
  });

  test.each([['0.00015'], ['-0.001'], ['1e-4'], ['.5'], ['abc'], [''], ['0.'], ['1,5'], ['1234567']])('%j is refused', (text) => {
    expect(parseUsdRate(text)).toBeUndefined();
  });
});

describe('months (UTC)', () => {
  test.each([
    ['2026-11-21T12:00:00.000Z', '2026-11', '2026-10'],
    ['2026-01-01T00:05:00.000Z', '2026-01', '2025-12'],
    ['2026-03-01T00:00:00.000Z', '2026-03', '2026-02'],
    ['2026-02-28T23:59:59.999Z', '2026-02', '2026-01'],
  ])('%s is in %s; the month before is %s', (at, month, previous) => {
    expect(monthOf(new Date(at))).toBe(month);
    expect(previousMonth(new Date(at))).toBe(previous);
  });

  test('a month spans from its first instant to the next month\'s', () => {
    expect(monthStart('2026-12').toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(monthEnd('2026-12').toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(monthEnd('2024-02').toISOString()).toBe('2024-03-01T00:00:00.000Z');
  });

  test.each([['2026-13'], ['2026-1'], ['x']])('monthStart and monthEnd refuse %j', (m) => {
    expect(() => monthStart(m)).toThrow(new RangeError(`not a month: ${m}`));
    expect(() => monthEnd(m)).toThrow(RangeError);
  });

  test.each([['2026-01', true], ['2026-12', true], ['2026-13', false], ['2026-00', false], ['2026-1', false], ['x', false], ['12026-01', false], ['x2026-01', false], ['2026-011', false]])('isMonth(%j) is %s', (m, ok) => {
    expect(isMonth(m)).toBe(ok);
  });
});
