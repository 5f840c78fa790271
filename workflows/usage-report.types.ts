/** Shared by the usage-report workflow, its activities and the schedule; plain data only (the report's own in src/usage/usage-report.ts). */

/** Meter calls in flight at once within one run. */
export const USAGE_REPORT_CONCURRENCY = 8;

/** The meter refused the report for good (a 4xx other than 408/429): retrying cannot help. */
export const METER_REJECTED = 'BillingMeterRejected';
/** The meter could not be reached, timed out, or answered 408/429/5xx: retried. */
export const METER_UNAVAILABLE = 'BillingMeterUnavailable';
/** The month has not ended yet (or is malformed): its count is not final, so it is never reported. */
export const MONTH_NOT_REPORTABLE = 'MonthNotReportable';

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
