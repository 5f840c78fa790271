import type { Db, UsageReportStatus } from '../db/database.js';
import { MAX_RETRY_AFTER_MS, parseRetryAfter } from '../kernel/retry-after.js';
import { isMonth, monthEnd } from './month.js';
import {
  MeterRejected,
  MeterUnavailable,
  MonthNotReportable,
  UNSETTLED_MONTHS_LOOKBACK,
  USAGE_REPORT_PAGE_SIZE,
  usageReportIdempotencyKey,
  type ReportAccountInput,
  type ReportAccountResult,
} from './usage-report.js';
import { listAccountsToReport as listAccounts, readReport, recordAttempt, startReport, unsettledMonthsBefore } from './usage-reports.repository.js';
import { readChecks } from './usage.repository.js';

/** One meter call may take this long; then it counts as failed and is retried. */
export const METER_ATTEMPT_TIMEOUT_MS = 10_000;
/** A Retry-After longer than this is not honoured as such: the retry comes after this much at most. */
export const METER_MAX_RETRY_AFTER_MS = MAX_RETRY_AFTER_MS;

export interface UsageLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface UsageReportDeps {
  db: Db;
  /** The external billing meter; without a URL, reports are recorded as skipped. */
  billingMeter?: { url: string | undefined; apiKey: string | undefined };
  log?: UsageLogger;
  fetch?: typeof fetch;
  now?: () => Date;
}

const TERMINAL: readonly UsageReportStatus[] = ['accepted', 'skipped'];

/** Seconds or an HTTP date, as Retry-After allows, clamped to an hour; undefined when absent or unreadable. */
export const retryAfterMs = (header: string | null, now: Date): number | undefined => parseRetryAfter(header, now.getTime(), METER_MAX_RETRY_AFTER_MS);

/** Transient: 408, 429 and 5xx. Any other 4xx (and a redirect) is the meter's final word. */
const isTransientStatus = (status: number) => status === 408 || status === 429 || status >= 500;

/** The per-attempt timeout, and the caller's cancellation when it has one. */
const attemptSignal = (cancellation?: AbortSignal): AbortSignal => {
  const timeout = AbortSignal.timeout(METER_ATTEMPT_TIMEOUT_MS);
  return cancellation ? AbortSignal.any([timeout, cancellation]) : timeout;
};

function requireReportable(month: string, now: Date): void {
  if (!isMonth(month)) throw new MonthNotReportable(`not a month: ${month}`);
  if (now < monthEnd(month)) throw new MonthNotReportable(`${month} has not ended; its usage is not final`);
}

/**
 * The monthly usage report to the billing meter, account by account. The scheduled workflow runs
 * it through its activities; `spend-auth usage report` runs it in-process (usage-report.runner.ts).
 */
export function createUsageReporter(deps: UsageReportDeps) {
  const now = deps.now ?? (() => new Date());
  const doFetch = deps.fetch ?? fetch;

  return {
    /** Earlier ended months with live usage left unreported or unaccepted (newest first, at most a year). */
    async listUnsettledMonths(beforeMonth: string): Promise<string[]> {
      if (!isMonth(beforeMonth)) throw new MonthNotReportable(`not a month: ${beforeMonth}`);
      return unsettledMonthsBefore(deps.db, beforeMonth, UNSETTLED_MONTHS_LOOKBACK);
    },

    /** A page of accounts with live usage in `month` whose report is not yet accepted or skipped, in id order. */
    async listAccountsToReport(month: string, after?: string): Promise<string[]> {
      if (!isMonth(month)) throw new MonthNotReportable(`not a month: ${month}`);
      return listAccounts(deps.db, month, USAGE_REPORT_PAGE_SIZE, after);
    },

    /**
     * Reports one account's checks of one month to the billing meter, at most once: a settled
     * report (accepted or skipped) is never sent again, and every attempt carries the same
     * idempotency key and body, so the meter can drop a duplicate of an attempt whose answer was
     * lost. Throws MeterUnavailable (retry), MeterRejected or MonthNotReportable (final).
     */
    async reportAccountUsage(input: ReportAccountInput, cancellation?: AbortSignal): Promise<ReportAccountResult> {
      const { accountId, month } = input;
      requireReportable(month, now());
      const idempotencyKey = usageReportIdempotencyKey(accountId, month);

      const existing = await readReport(deps.db, accountId, month);
      if (existing && TERMINAL.includes(existing.status)) {
        return { accountId, month, quantity: existing.quantity, status: existing.status as 'accepted' | 'skipped', posted: false, idempotencyKey };
      }
      // The quantity is fixed by the first attempt: every later attempt sends the same body.
      const report = existing ?? (await startReport(deps.db, { accountId, month, quantity: await readChecks(deps.db, accountId, month), idempotencyKey, now: now() }));
      const quantity = report.quantity;

      const url = deps.billingMeter?.url;
      if (!url) {
        await recordAttempt(deps.db, accountId, month, { status: 'skipped', attempted: false, lastError: 'BILLING_METER_URL is not set', now: now() });
        deps.log?.warn({ account_id: accountId, month, quantity }, 'usage report skipped: BILLING_METER_URL is not set');
        return { accountId, month, quantity, status: 'skipped', posted: false, idempotencyKey };
      }

      let res: Response;
      try {
        res = await doFetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'idempotency-key': idempotencyKey,
            ...(deps.billingMeter?.apiKey ? { authorization: `Bearer ${deps.billingMeter.apiKey}` } : {}),
          },
          body: JSON.stringify({ account_id: accountId, month, quantity, idempotency_key: idempotencyKey }),
          redirect: 'manual',
          signal: attemptSignal(cancellation),
        });
        // The body is not needed; reading it releases the connection.
        await res.arrayBuffer().catch(() => undefined);
      } catch (err) {
        const message = `billing meter unreachable: ${(err as Error).message}`;
        await recordAttempt(deps.db, accountId, month, { status: 'pending', attempted: true, statusCode: null, lastError: message, now: now() });
        throw new MeterUnavailable(message);
      }

      if (res.ok) {
        await recordAttempt(deps.db, accountId, month, { status: 'accepted', attempted: true, statusCode: res.status, lastError: null, now: now() });
        deps.log?.info({ account_id: accountId, month, quantity }, 'usage reported to the billing meter');
        return { accountId, month, quantity, status: 'accepted', posted: true, idempotencyKey };
      }
      const message = `billing meter answered HTTP ${res.status}`;
      if (isTransientStatus(res.status)) {
        await recordAttempt(deps.db, accountId, month, { status: 'pending', attempted: true, statusCode: res.status, lastError: message, now: now() });
        throw new MeterUnavailable(message, res.status === 429 || res.status === 503 ? retryAfterMs(res.headers.get('retry-after'), now()) : undefined);
      }
      await recordAttempt(deps.db, accountId, month, { status: 'failed', attempted: true, statusCode: res.status, lastError: message, now: now() });
      deps.log?.warn({ account_id: accountId, month, quantity, status_code: res.status }, 'billing meter refused the usage report');
      throw new MeterRejected(message);
    },
  };
}

export type UsageReporter = ReturnType<typeof createUsageReporter>;
