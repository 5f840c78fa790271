import { describe, expect, test } from 'vitest';
import { formatMoney, minorDigits } from '../../src/kernel/money.js';

/** Written as the dashboard writes amounts (dashboard/dom.js, money), so a reason and the screen around it agree. */
describe('formatMoney: minor units as people read them, with the currency\'s own decimal places', () => {
  test.each([
    [5_000, 'USD', '50.00 USD'],
    [1_999, 'USD', '19.99 USD'],
    [7, 'EUR', '0.07 EUR'],
    [123_456_789, 'USD', '1234567.89 USD'],
    [5_000, 'JPY', '5000 JPY'],
    [1_500, 'KWD', '1.500 KWD'],
    [-250, 'USD', '-2.50 USD'],
    [Number.MAX_SAFE_INTEGER, 'USD', '90071992547409.91 USD'],
  ])('%i %s → %s', (minor, currency, text) => {
    expect(formatMoney(minor, currency)).toBe(text);
  });

  test('a code the runtime does not know is taken as two decimal places', () => {
    expect(minorDigits('XYZ')).toBe(2);
    expect(formatMoney(1_234, 'XYZ')).toBe('12.34 XYZ');
  });
});
