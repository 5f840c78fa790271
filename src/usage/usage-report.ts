/**
 * The monthly usage report's plain parts: sizes, the meter's idempotency key, what one account's
 * report returns and the ways it fails. Pure and free of Node APIs: workflow code imports it.
 */

/** Accounts per page of the report; a full page continues the run with the next one. */
export const USAGE_REPORT_PAGE_SIZE = 500;
/** How far back a monthly run looks for earlier months left unreported or unaccepted. */
export const UNSETTLED_MONTHS_LOOKBACK = 12;

export interface ReportAccountInput {
  accountId: string;
  month: string;
}

export interface ReportAccountResult {
  accountId: string;
  month: string;
  quantity: number;
  status: 'accepted' | 'skipped';
  /** False when an earlier run had already settled the report: nothing was sent. */
  posted: boolean;
  idempotencyKey: string;
}

/** The meter's key for one account's month: the same on every attempt and every run. */
export const usageReportIdempotencyKey = (accountId: string, month: string) => `${accountId}:${month}`;

/** The month has not ended yet (or is malformed): its count is not final, so it is never reported. */
export class MonthNotReportable extends Error {
  override name = 'MonthNotReportable';
}

/** The meter refused the report for good (a 4xx other than 408/429): retrying cannot help. */
export class MeterRejected extends Error {
  override name = 'MeterRejected';
}

/** The meter could not be reached, timed out, or answered 408/429/5xx: worth retrying. */
export class MeterUnavailable extends Error {
  override name = 'MeterUnavailable';
  constructor(
    message: string,
    /** The meter's Retry-After, when it gave one (clamped): wait this long before the next attempt. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}
