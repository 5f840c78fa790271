/** The client's backoff and Retry-After reading (src/client/retry.ts), and API_VERSION against the OpenAPI document. */
import { describe, expect, test } from 'vitest';
import { API_VERSION } from '../../src/client/index.js';
import { BACKOFF_CAP_MS, backoffMs, retryAfterMs, retryDelayMs } from '../../src/client/retry.js';
import { buildOpenApiDocument } from '../../src/http/openapi.js';

describe('backoff: full jitter up to min(8 s, 0.5 s × 2^retry)', () => {
  test.each([
    [0, 500],
    [1, 1_000],
    [2, 2_000],
    [3, 4_000],
    [4, 8_000],
    [10, 8_000],
  ])('retry %i waits at most %i ms, anything from 0', (retry, ceiling) => {
    expect(backoffMs(retry, () => 0)).toBe(0);
    expect(backoffMs(retry, () => 0.999999)).toBeLessThan(ceiling);
    expect(backoffMs(retry, () => 0.999999)).toBeGreaterThan(ceiling * 0.99);
    expect(backoffMs(retry, () => 0.5)).toBe(ceiling / 2);
  });
  test('never above the cap', () => {
    for (let retry = 0; retry < 40; retry++) expect(backoffMs(retry)).toBeLessThanOrEqual(BACKOFF_CAP_MS);
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2026-11-28T12:00:00Z');
  test('delay-seconds or an HTTP date; absent or unreadable: undefined', () => {
    expect(retryAfterMs('7', now)).toBe(7_000);
    expect(retryAfterMs('0', now)).toBe(0);
    expect(retryAfterMs('Sat, 28 Nov 2026 12:00:05 GMT', now)).toBe(5_000);
    expect(retryAfterMs('Sat, 28 Nov 2026 11:59:00 GMT', now)).toBe(0);
    expect(retryAfterMs(null, now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs('86400', now)).toBe(86_400_000);
  });
  test('fractional delay-seconds are read as such', () => {
    expect(retryAfterMs('1.5', now)).toBe(1_500);
    expect(retryAfterMs(' 0.25 ', now)).toBe(250);
    expect(retryAfterMs('2.0', now)).toBe(2_000);
  });
  test('given, it replaces the backoff: waited out, plus a random part of up to half of it (shed clients do not come back together); absent, the backoff applies', () => {
    expect(retryDelayMs(3, 2_000, () => 0)).toBe(2_000);
    expect(retryDelayMs(3, 2_000, () => 0.9)).toBe(2_900);
    expect(retryDelayMs(3, 2_000, () => 0.999999)).toBeLessThan(3_000);
    expect(retryDelayMs(0, 0, () => 0.9)).toBe(0);
    expect(retryDelayMs(1, undefined, () => 0.5)).toBe(500);
    const spread = Array.from({ length: 200 }, () => retryDelayMs(0, 5_000));
    expect(Math.min(...spread)).toBeGreaterThanOrEqual(5_000);
    expect(Math.max(...spread)).toBeLessThanOrEqual(7_500);
    expect(new Set(spread).size).toBeGreaterThan(100);
  });
});

test("API_VERSION is the OpenAPI document's info.version", () => {
  expect(API_VERSION).toBe(buildOpenApiDocument().info.version);
  expect(API_VERSION).toBe('v1');
});
