/** Shared by the usage-report workflow, its activities, the schedule and the CLI; plain data only. */

/** Accounts per page of the report; a full page continues the run as new with the next one. */
export const USAGE_REPORT_PAGE_SIZE = 500;
/** Meter calls in flight at once within one run. */
export const USAGE_REPORT_CONCURRENCY = 8;

/** The meter refused the report for good (a 4xx other than 408/429): retrying cannot help. */
export const METER_REJECTED = 'BillingMeterRejected';
/** The meter could not be reached, timed out, or answered 408/429/5xx: retried. */
export const METER_UNAVAILABLE = 'BillingMeterUnavailable';
/** The month has not ended yet (or is malformed): its count is not final, so it is never reported. */
export const MONTH_NOT_REPORTABLE = 'MonthNotReportable';

/** How far back a monthly run looks for earlier months left unreported or unaccepted. */
export const UNSETTLED_MONTHS_LOOKBACK = 12;

export interface UsageReportInput {
  /** 'YYYY-MM'. Absent on a scheduled run: the month before the scheduled start time. */
  month?: string;
  /** Continue-as-new state: the last account id of the previous page, and the totals so far. */
  after?: string;
  totals?: UsageReportTotals;
  /** Set on the run that retries earlier months: it does not look for more. */
  catchUp?: boolean;
}

export interface UsageReportTotals {
  accounts: number;
  accepted: number;
  skipped: number;
  /** Accounts left unreported (permanently refused, or still failing when retries ran out); at most 100 listed. */
  failed: number;
  failedAccountIds: string[];
}

export interface UsageReportResult extends UsageReportTotals {
  month: string;
  /** Earlier months this run retried (left unreported or unaccepted before), each with its totals. */
  earlierMonths?: Array<{ month: string } & UsageReportTotals>;
}

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
