import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { formatMinorUnits, MAX_MAJOR_UNITS, minorToMajorNumber, parseMajorUnits } from '../../src/quickstart/decimal.js';

describe('parseMajorUnits reads decimal major units exactly', () => {
  test.each([
    [12.34, 1234],
    ['12.34', 1234],
    [0.01, 1],
    [0.1, 10],
    [0.29, 29],
    [1.005e2, 10050],
    [19.99, 1999],
    [1, 100],
    ['1', 100],
    ['1.5', 150],
    ['007.10', 710],
    [4.35, 435],
    [1234567.89, 123456789],
    [9999999999999.99, 999999999999999],
    ['9999999999999.99', 999999999999999],
  ])('%j → %i minor units', (input, minor) => {
    expect(parseMajorUnits(input)).toEqual({ ok: true, minor });
  });

  test.each([
    [12.345, /at most 2 decimal places/],
    ['12.345', /at most 2 decimal places/],
    ['12.340', /at most 2 decimal places/],
    [0.001, /decimal places/],
    [1.1 + 2.2, /at most 2 decimal places/],
    [1e-7, /decimal/],
    [1e21, /decimal/],
    ['1e3', /decimal/],
    [0, /greater than 0/],
    ['0.00', /greater than 0/],
    [-0, /greater than 0/],
    [-5, /negative/],
    ['-5', /negative/],
    ['12.', /decimal/],
    ['.5', /decimal/],
    [' 12', /decimal/],
    ['+12', /decimal/],
    ['12,34', /decimal/],
    ['', /decimal/],
    [Number.NaN, /finite/],
    [Number.POSITIVE_INFINITY, /finite/],
    [null, /decimal/],
    [true, /decimal/],
    [[12], /decimal/],
    [10_000_000_000_000, /at most/],
    ['10000000000000.00', /at most/],
  ])('%j is refused (%s)', (input, message) => {
    const r = parseMajorUnits(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(message);
  });

  test('zero is accepted only when allowed', () => {
    expect(parseMajorUnits(0, { allowZero: true })).toEqual({ ok: true, minor: 0 });
    expect(parseMajorUnits('0.00', { allowZero: true })).toEqual({ ok: true, minor: 0 });
    expect(parseMajorUnits(-1, { allowZero: true }).ok).toBe(false);
  });

  test('every cent amount up to the maximum survives JSON: its number and its string give the same minor units', () => {
    const maxMinor = Number(MAX_MAJOR_UNITS.replace('.', ''));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: maxMinor }), (minor) => {
        const text = formatMinorUnits(minor);
        const asNumber = JSON.parse(text) as number;
        expect(parseMajorUnits(asNumber)).toEqual({ ok: true, minor });
        expect(parseMajorUnits(text)).toEqual({ ok: true, minor });
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('formatting minor units', () => {
  test.each([
    [0, '0.00', 0],
    [1, '0.01', 0.01],
    [50, '0.50', 0.5],
    [1250, '12.50', 12.5],
    [1234, '12.34', 12.34],
    [999999999999999, '9999999999999.99', 9999999999999.99],
    [-705, '-7.05', -7.05],
  ])('%i → %s → %d', (minor, text, number) => {
    expect(formatMinorUnits(minor)).toBe(text);
    expect(minorToMajorNumber(minor)).toBe(number);
    expect(JSON.stringify(minorToMajorNumber(minor))).toBe(String(number));
  });

  test('a fraction or an unsafe integer is a programming error', () => {
    expect(() => formatMinorUnits(1.5)).toThrow(RangeError);
    expect(() => formatMinorUnits(2 ** 53)).toThrow(RangeError);
  });
});
