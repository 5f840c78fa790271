import { asyncLocalStorage as activityContext } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { MeterRejected, MeterUnavailable, MonthNotReportable, type ReportAccountInput, type ReportAccountResult } from '../src/usage/usage-report.js';
import { createUsageReporter, type UsageReportDeps } from '../src/usage/usage-report.service.js';
import { METER_REJECTED, METER_UNAVAILABLE, MONTH_NOT_REPORTABLE } from '../workflows/usage-report.types.js';

export type UsageReportActivityDeps = UsageReportDeps;

/** The reporter's failures as the workflow's retry policy reads them: their type, and whether retrying can help. */
function asActivityFailure(err: unknown): unknown {
  if (err instanceof MonthNotReportable) return ApplicationFailure.nonRetryable(err.message, MONTH_NOT_REPORTABLE);
  if (err instanceof MeterRejected) return ApplicationFailure.nonRetryable(err.message, METER_REJECTED);
  if (err instanceof MeterUnavailable) {
    return ApplicationFailure.create({ message: err.message, type: METER_UNAVAILABLE, ...(err.retryAfterMs !== undefined ? { nextRetryDelay: err.retryAfterMs } : {}) });
  }
  return err;
}

async function failingAsActivity<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw asActivityFailure(err);
  }
}

/** Activities of the monthly usage report: the usage feature's reporter, run by the workflow. */
export function createUsageReportActivities(deps: UsageReportActivityDeps) {
  const reporter = createUsageReporter(deps);
  return {
    /** Earlier ended months with live usage left unreported or unaccepted (newest first, at most a year). */
    listUnsettledMonths: (beforeMonth: string): Promise<string[]> => failingAsActivity(() => reporter.listUnsettledMonths(beforeMonth)),
    /** A page of accounts with live usage in `month` whose report is not yet accepted or skipped, in id order. */
    listAccountsToReport: (month: string, after?: string): Promise<string[]> => failingAsActivity(() => reporter.listAccountsToReport(month, after)),
    /** One account's month to the meter, at most once; cancelling the activity aborts the attempt. */
    reportAccountUsage: (input: ReportAccountInput): Promise<ReportAccountResult> =>
      failingAsActivity(() => reporter.reportAccountUsage(input, activityContext.getStore()?.cancellationSignal)),
  };
}

export type UsageReportActivities = ReturnType<typeof createUsageReportActivities>;
