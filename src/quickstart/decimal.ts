/**
 * Decimal major units (USD on the quick-start surface) ↔ integer minor units, without floating
 * point arithmetic: the digits are read as text and scaled with BigInt.
 */

import { minorUnitsText } from '../kernel/money.js';

export const MINOR_DIGITS = 2;

/**
 * The largest accepted amount: 15 significant digits. Up to there the shortest text form of a JSON
 * number (`String(n)`) reproduces the digits that were sent, so a number is read exactly.
 */
export const MAX_MAJOR_UNITS = '9999999999999.99';
const MAX_MINOR = 999_999_999_999_999n;

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

export type ParsedAmount = { ok: true; minor: number } | { ok: false; message: string };

/**
 * Parses a decimal amount in major units to integer minor units: `12.34` → 1234, `"0.5"` → 50.
 * Accepts a JSON number or a numeric string; at most two decimal places, no sign, no exponent
 * in strings. `allowZero` admits 0 (thresholds); amounts must otherwise be positive.
 */
export function parseMajorUnits(value: unknown, opts: { allowZero?: boolean } = {}): ParsedAmount {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { ok: false, message: 'must be a finite number' };
    // Shortest round-trip form: exact for every value with at most 15 significant digits.
    // Exponent forms (1e21, 1e-7) fall outside the pattern below and are refused.
    text = String(value);
  } else if (typeof value === 'string') {
    text = value;
  } else {
    return { ok: false, message: 'must be a decimal number of major units, e.g. 12.34' };
  }
  if (text.startsWith('-')) return { ok: false, message: 'must not be negative' };
  const m = DECIMAL.exec(text);
  if (!m) return { ok: false, message: 'must be a decimal number of major units, e.g. 12.34' };
  const [, whole = '0', fraction = ''] = m;
  if (fraction.length > MINOR_DIGITS) return { ok: false, message: `must have at most ${MINOR_DIGITS} decimal places` };
  const minor = BigInt(whole) * 10n ** BigInt(MINOR_DIGITS) + BigInt(fraction.padEnd(MINOR_DIGITS, '0') || '0');
  if (minor > MAX_MINOR) return { ok: false, message: `must be at most ${MAX_MAJOR_UNITS}` };
  if (minor === 0n && !opts.allowZero) return { ok: false, message: 'must be greater than 0' };
  return { ok: true, minor: Number(minor) };
}

/** Integer minor units as decimal text with two places: 1250 → "12.50". */
export const formatMinorUnits = (minor: number): string => minorUnitsText(minor, MINOR_DIGITS);

/**
 * Integer minor units as a JSON number of major units: 1250 → 12.5. Built from the decimal text,
 * so the number serializes back to exactly those digits.
 */
export const minorToMajorNumber = (minor: number): number => Number(formatMinorUnits(minor));
