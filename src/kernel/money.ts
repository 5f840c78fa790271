/**
 * Money in words for people: reasons, messages, summaries. The machine fields of the API stay in
 * integer minor units; this only writes them the way the dashboard shows them (dashboard/dom.js).
 */

const digitsCache = new Map<string, number>();

/** Digits after the decimal point of a currency (JPY 0, USD 2, KWD 3), from the runtime's ISO 4217 data; 2 for a code it does not know. */
export function minorDigits(currency: string): number {
  let digits = digitsCache.get(currency);
  if (digits === undefined) {
    try {
      digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      digits = 2;
    }
    digitsCache.set(currency, digits);
  }
  return digits;
}

/** Integer minor units as decimal text with `digits` places, exactly (no floating point): 1250, 2 → "12.50". */
export function minorUnitsText(minor: number, digits: number): string {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`not a safe integer: ${minor}`);
  const sign = minor < 0 ? '-' : '';
  if (digits === 0) return `${sign}${Math.abs(minor)}`;
  const text = String(Math.abs(minor)).padStart(digits + 1, '0');
  return `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** 5000 USD → "50.00 USD", 5000 JPY → "5000 JPY", 1500 KWD → "1.500 KWD". */
export const formatMoney = (minor: number, currency: string): string => `${minorUnitsText(minor, minorDigits(currency))} ${currency}`;
