import { ActivityFailure, ApplicationFailure, continueAsNew, executeChild, log, patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { defineSearchAttributeKey } from '@temporalio/common';
import type { UsageReportActivities } from '../activities/usage-report.js';
import { previousMonth } from '../src/usage/month.js';
import { USAGE_REPORT_PAGE_SIZE } from '../src/usage/usage-report.js';
import { METER_REJECTED, MONTH_NOT_REPORTABLE, USAGE_REPORT_CONCURRENCY, type UsageReportInput, type UsageReportResult, type UsageReportTotals } from './usage-report.types.js';

/** Set by the server on every run a Schedule starts: the time the run was due, not when it began. */
export const ScheduledStartTimeKey = defineSearchAttributeKey('TemporalScheduledStartTime', 'DATETIME');
const MAX_LISTED_FAILURES = 100;

const { listAccountsToReport, listUnsettledMonths } = proxyActivities<UsageReportActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: [MONTH_NOT_REPORTABLE] },
});

const { reportAccountUsage } = proxyActivities<UsageReportActivities>({
  // One attempt is a 10 s HTTP call plus two statements.
  startToCloseTimeout: '30 seconds',
  // Retried until accepted, but given up well before the next month's run is due (the Schedule
  // skips a run while the previous one is open); an operator re-runs what is left with the CLI.
  scheduleToCloseTimeout: '20 days',
  retry: { initialInterval: '30 seconds', backoffCoefficient: 2, maximumInterval: '1 hour', nonRetryableErrorTypes: [METER_REJECTED, MONTH_NOT_REPORTABLE] },
});

/** The month a run bills: the one before its scheduled start (or, started by hand, its start). */
export function billedMonth(): string {
  const info = workflowInfo();
  const scheduled = info.typedSearchAttributes.get(ScheduledStartTimeKey);
  return previousMonth(scheduled ?? info.startTime);
}

/**
 * The monthly usage report: every live account with usage in the billed month is reported to the
 * billing meter, one activity per account, a few at a time. The activity records each report in
 * PostgreSQL, so a re-run (or a retry after a crash) sends nothing already accepted. One account
 * failing for good is counted and the others go on.
 */
export async function usageReport(input: UsageReportInput = {}): Promise<UsageReportResult> {
  const month = input.month ?? billedMonth();
  const totals: UsageReportTotals = input.totals ?? { accounts: 0, accepted: 0, skipped: 0, failed: 0, failedAccountIds: [] };

  const accountIds = await listAccountsToReport(month, input.after);
  let next = 0;
  const lane = async () => {
    while (next < accountIds.length) {
      const accountId = accountIds[next++]!;
      totals.accounts += 1;
      try {
        const result = await reportAccountUsage({ accountId, month });
        if (result.status === 'accepted') totals.accepted += 1;
        else totals.skipped += 1;
      } catch (err) {
        if (!(err instanceof ActivityFailure)) throw err;
        totals.failed += 1;
        if (totals.failedAccountIds.length < MAX_LISTED_FAILURES) totals.failedAccountIds.push(accountId);
        const cause = err.cause instanceof ApplicationFailure ? `${err.cause.type}: ${err.cause.message}` : err.cause?.message;
        log.warn('usage report failed for an account', { accountId, month, cause });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(USAGE_REPORT_CONCURRENCY, accountIds.length) }, lane));

  // A full page may have a next one: carry on in a fresh run, so history stays small.
  if (accountIds.length === USAGE_REPORT_PAGE_SIZE) {
    await continueAsNew<typeof usageReport>({ month, after: accountIds[accountIds.length - 1], totals, ...(input.catchUp ? { catchUp: true } : {}) });
  }
  // Then earlier months left unreported (the Schedule paused or down across a 1st) or unaccepted
  // (a run that failed for some accounts), each in a child run of its own.
  if (!input.catchUp && patched('retry-unsettled-months')) {
    const earlierMonths: UsageReportResult['earlierMonths'] = [];
    for (const earlier of await listUnsettledMonths(month)) {
      const { month: m, earlierMonths: _, ...t } = await executeChild(usageReport, {
        workflowId: `${workflowInfo().workflowId}-${earlier}`,
        args: [{ month: earlier, catchUp: true }],
      });
      earlierMonths.push({ month: m, ...t });
    }
    return { month, ...totals, earlierMonths };
  }
  return { month, ...totals };
}
