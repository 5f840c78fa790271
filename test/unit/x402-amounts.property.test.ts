/**
 * The x402 rail's conversion of a requirement's atomic amount to USD cents: rounded up, so a
 * budget never counts less than what is paid, and never more than one cent beyond it; anything
 * that is not a positive whole number of atomic units, or an unknown asset, is refused.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { AmountError, atomicToMinorUnits, findUsdStablecoin, USD_STABLECOINS } from '../../src/rails/x402/amounts.js';

const MAX_MINOR = BigInt(Number.MAX_SAFE_INTEGER);

describe('atomicToMinorUnits (6-decimal USD stablecoins → cents)', () => {
  test.each([
    ['1', 1],
    ['9999', 1],
    ['10000', 1],
    ['10001', 2],
    ['1000000', 100],
    ['1234567', 124],
    ['0001', 1],
  ])('%s atomic units → %i cents', (atomic, cents) => {
    expect(atomicToMinorUnits(atomic, 6)).toBe(cents);
  });

  test('never under-counts, and over-counts by less than one cent (any amount up to the largest safe number of cents)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: MAX_MINOR * 10_000n }), (atomic) => {
        const cents = BigInt(atomicToMinorUnits(atomic.toString(), 6));
        expect(cents * 10_000n >= atomic).toBe(true);
        expect((cents - 1n) * 10_000n < atomic).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  test('for any decimals from 2 to 30, the cents cover the exact USD value and are the least that do', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 30 }), fc.bigInt({ min: 1n, max: 10n ** 40n }), (decimals, atomic) => {
        const unit = 10n ** BigInt(decimals - 2);
        if ((atomic + unit - 1n) / unit > MAX_MINOR) {
          expect(() => atomicToMinorUnits(atomic.toString(), decimals)).toThrow(AmountError);
          return;
        }
        const cents = BigInt(atomicToMinorUnits(atomic.toString(), decimals));
        expect(cents * unit >= atomic).toBe(true);
        expect((cents - 1n) * unit < atomic).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  test('is monotonic: paying more never counts fewer cents', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 15n }), fc.bigInt({ min: 0n, max: 10n ** 15n }), (a, extra) => {
        expect(atomicToMinorUnits((a + extra).toString(), 6)).toBeGreaterThanOrEqual(atomicToMinorUnits(a.toString(), 6));
      }),
    );
  });

  test('refuses anything but a positive whole number of atomic units, and more cents than a safe integer', () => {
    for (const bad of ['0', '000', '', '-1', '+1', '1.5', '1e6', ' 1', '0x10', '１', (MAX_MINOR * 10_000n + 1n).toString(), '9'.repeat(79)]) {
      expect(() => atomicToMinorUnits(bad, 6), JSON.stringify(bad)).toThrow(AmountError);
    }
    fc.assert(
      fc.property(
        fc.string().filter((s) => !/^[0-9]+$/.test(s)),
        (s) => {
          expect(() => atomicToMinorUnits(s, 6)).toThrow(AmountError);
        },
      ),
    );
    expect(atomicToMinorUnits((MAX_MINOR * 10_000n).toString(), 6)).toBe(Number.MAX_SAFE_INTEGER);
  });
});

describe('the table of known USD stablecoins', () => {
  test('every entry has 6 decimals and is found by network and address, EVM addresses in any case', () => {
    for (const coin of USD_STABLECOINS) {
      expect(coin.decimals).toBe(6);
      expect(findUsdStablecoin(coin.network, coin.asset)).toBe(coin);
      expect(findUsdStablecoin(coin.network, coin.asset.toLowerCase())).toBe(coin);
      expect(findUsdStablecoin(coin.network, coin.asset.toUpperCase().replace('0X', '0x'))).toBe(coin);
    }
  });

  test('an asset on another network, or an unknown one, is not guessed', () => {
    const base = USD_STABLECOINS.find((c) => c.network === 'eip155:8453')!;
    expect(findUsdStablecoin('eip155:84532', base.asset)).toBeUndefined();
    expect(findUsdStablecoin('eip155:8453', '0x0000000000000000000000000000000000000000')).toBeUndefined();
    expect(findUsdStablecoin('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', base.asset)).toBeUndefined();
  });
});
