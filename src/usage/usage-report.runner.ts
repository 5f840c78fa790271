import type { Month } from './month.js';
import { MeterRejected, MeterUnavailable, MonthNotReportable, USAGE_REPORT_PAGE_SIZE } from './usage-report.js';
import type { UsageReporter } from './usage-report.service.js';

/** Attempts per account in one CLI run before it is reported as still failing. */
export const CLI_REPORT_ATTEMPTS = 4;
export const CLI_RETRY_BASE_MS = 1_000;
export const CLI_RETRY_MAX_MS = 30_000;

export interface ReportFailure {
  accountId: string;
  error: string;
  /** The meter refused it for good (recorded as failed); otherwise it was still failing after the retries. */
  permanent: boolean;
}

export interface ReportRunSummary {
  month: Month;
  accounts: number;
  accepted: number;
  skipped: number;
  failed: ReportFailure[];
}

export interface ReportRunOptions {
  reporter: Pick<UsageReporter, 'listAccountsToReport' | 'reportAccountUsage'>;
  month: Month;
  attempts?: number;
  retryBaseMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The monthly report without the workflow engine (`spend-auth usage report`): the reporter the
 * workflow's activities run, account by account, each transient failure retried a few times with
 * backoff (honouring the meter's Retry-After). Accounts already reported are not listed, so a
 * re-run sends nothing twice.
 */
export async function runUsageReport(o: ReportRunOptions): Promise<ReportRunSummary> {
  const attempts = o.attempts ?? CLI_REPORT_ATTEMPTS;
  const base = o.retryBaseMs ?? CLI_RETRY_BASE_MS;
  const sleep = o.sleep ?? defaultSleep;
  const summary: ReportRunSummary = { month: o.month, accounts: 0, accepted: 0, skipped: 0, failed: [] };

  let after: string | undefined;
  for (;;) {
    const page = await o.reporter.listAccountsToReport(o.month, after);
    for (const accountId of page) {
      summary.accounts += 1;
      for (let attempt = 1; ; attempt += 1) {
        try {
          const result = await o.reporter.reportAccountUsage({ accountId, month: o.month });
          if (result.status === 'accepted') summary.accepted += 1;
          else summary.skipped += 1;
          break;
        } catch (err) {
          const permanent = err instanceof MeterRejected || err instanceof MonthNotReportable;
          if (permanent || attempt >= attempts) {
            summary.failed.push({ accountId, error: (err as Error).message, permanent });
            break;
          }
          const hinted = err instanceof MeterUnavailable ? err.retryAfterMs : undefined;
          await sleep(Math.min(CLI_RETRY_MAX_MS, hinted ?? base * 2 ** (attempt - 1)));
        }
      }
    }
    if (page.length < USAGE_REPORT_PAGE_SIZE) return summary;
    after = page[page.length - 1];
  }
}
