/**
 * Billing months as 'YYYY-MM' (UTC). Pure and free of Node APIs: workflow code imports it.
 */
export type Month = string;

export const MONTH_PATTERN = /^(\d{4})-(0[1-9]|1[0-2])$/;

export const isMonth = (value: string): value is Month => MONTH_PATTERN.test(value);

/** The UTC month `at` falls in. */
export const monthOf = (at: Date): Month => at.toISOString().slice(0, 7);

/** The first instant of a month (UTC). */
export function monthStart(month: Month): Date {
  const m = MONTH_PATTERN.exec(month);
  if (!m) throw new RangeError(`not a month: ${month}`);
  return new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1));
}

/** The first instant after a month (UTC). */
export function monthEnd(month: Month): Date {
  const start = monthStart(month);
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
}

/** The month before the one `at` falls in: the month a report at `at` bills. */
export function previousMonth(at: Date): Month {
  return monthOf(new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() - 1, 1)));
}
