/**
 * The CLI runner's own choices (`spend-auth usage report`): how often and how long it retries, what
 * ends a retry early, and paging. Its reporter here is a scripted fake of the meter side; the real
 * reporter runs against PostgreSQL and a real HTTP meter in test/activities/usage-report.test.ts.
 */
import { describe, expect, test } from 'vitest';
import { MeterRejected, MeterUnavailable, MonthNotReportable, USAGE_REPORT_PAGE_SIZE } from '../../src/usage/usage-report.js';
import { CLI_REPORT_ATTEMPTS, CLI_RETRY_BASE_MS, CLI_RETRY_MAX_MS, runUsageReport } from '../../src/usage/usage-report.runner.js';

const MONTH = '2025-02';
/** A runaway loop is stopped here and shows up as calls beyond what a test expects. */
const RUNAWAY_LISTS = 10;
const RUNAWAY_REPORTS = 2 * USAGE_REPORT_PAGE_SIZE;

/** A fake meter side: each account's failures in order, then accepted. */
function scripted(accounts: string[], failures: Record<string, unknown[]> = {}) {
  const listed: Array<string | undefined> = [];
  const reported: string[] = [];
  return {
    listed,
    reported,
    reporter: {
      async listAccountsToReport(_month: string, after?: string) {
        listed.push(after);
        if (listed.length > RUNAWAY_LISTS) throw new Error('listed too often');
        return accounts.filter((id) => after === undefined || id > after).slice(0, USAGE_REPORT_PAGE_SIZE);
      },
      async reportAccountUsage({ accountId }: { accountId: string; month: string }) {
        reported.push(accountId);
        if (reported.length > RUNAWAY_REPORTS) throw new MeterRejected('reported too often');
        const next = failures[accountId]?.shift();
        if (next !== undefined) throw next;
        return { accountId, month: MONTH, quantity: 1, status: 'accepted' as const, posted: true, idempotencyKey: `${accountId}:${MONTH}` };
      },
    },
  };
}

const recordingSleep = () => {
  const slept: number[] = [];
  return { slept, sleep: async (ms: number) => void slept.push(ms) };
};

describe('the CLI runner', () => {
  test(`without attempts given, a transient failure is tried ${CLI_REPORT_ATTEMPTS} times, the waits doubling from ${CLI_RETRY_BASE_MS} ms`, async () => {
    const meter = scripted(['acct_a'], { acct_a: Array.from({ length: 10 }, () => new Error('meter away')) });
    const { slept, sleep } = recordingSleep();
    const summary = await runUsageReport({ month: MONTH, reporter: meter.reporter, sleep });
    expect(meter.reported).toHaveLength(CLI_REPORT_ATTEMPTS);
    expect(slept).toEqual([1_000, 2_000, 4_000]);
    expect(summary.failed).toEqual([{ accountId: 'acct_a', error: 'meter away', permanent: false }]);
  });

  test('a refusal by the meter is tried once and reported as permanent', async () => {
    const meter = scripted(['acct_a', 'acct_b'], { acct_a: [new MeterRejected('meter refused')] });
    const { slept, sleep } = recordingSleep();
    const summary = await runUsageReport({ month: MONTH, reporter: meter.reporter, sleep });
    expect(meter.reported).toEqual(['acct_a', 'acct_b']);
    expect(slept).toEqual([]);
    expect(summary).toEqual({ month: MONTH, accounts: 2, accepted: 1, skipped: 0, failed: [{ accountId: 'acct_a', error: 'meter refused', permanent: true }] });
  });

  test('a month that cannot be reported is tried once and reported as permanent', async () => {
    const meter = scripted(['acct_a'], { acct_a: [new MonthNotReportable('2025-02 has not ended; its usage is not final')] });
    const { slept, sleep } = recordingSleep();
    const summary = await runUsageReport({ month: MONTH, reporter: meter.reporter, sleep });
    expect(meter.reported).toEqual(['acct_a']);
    expect(slept).toEqual([]);
    expect(summary.failed).toEqual([{ accountId: 'acct_a', error: '2025-02 has not ended; its usage is not final', permanent: true }]);
  });

  test("the meter's Retry-After replaces the backoff, capped", async () => {
    const meter = scripted(['acct_a'], {
      acct_a: [new MeterUnavailable('busy', 7_000), new MeterUnavailable('busy', 10 * CLI_RETRY_MAX_MS)],
    });
    const { slept, sleep } = recordingSleep();
    const summary = await runUsageReport({ month: MONTH, reporter: meter.reporter, sleep });
    expect(slept).toEqual([7_000, CLI_RETRY_MAX_MS]);
    expect(summary.accepted).toBe(1);
  });

  test("only the meter's own Retry-After counts as a hint; anything else waits the backoff", async () => {
    const meter = scripted(['acct_a'], {
      acct_a: [
        // A plain error that happens to carry the field: not the meter's hint.
        Object.assign(new Error('odd'), { retryAfterMs: 5 }),
        // The meter unavailable without a Retry-After.
        new MeterUnavailable('busy'),
      ],
    });
    const { slept, sleep } = recordingSleep();
    await runUsageReport({ month: MONTH, reporter: meter.reporter, retryBaseMs: 100, sleep });
    expect(slept).toEqual([100, 200]);
  });

  test('a full page is followed by the next, listed after its last account; a short page ends the run', async () => {
    const accounts = Array.from({ length: USAGE_REPORT_PAGE_SIZE + 1 }, (_, i) => `acct_${String(i).padStart(4, '0')}`);
    const meter = scripted(accounts);
    const summary = await runUsageReport({ month: MONTH, reporter: meter.reporter, sleep: async () => {} });
    expect(meter.listed).toEqual([undefined, accounts[USAGE_REPORT_PAGE_SIZE - 1]]);
    expect(summary.accounts).toBe(USAGE_REPORT_PAGE_SIZE + 1);
    expect(summary.accepted).toBe(USAGE_REPORT_PAGE_SIZE + 1);
  });

  test('exactly one full page: the next page is asked for and is empty', async () => {
    const accounts = Array.from({ length: USAGE_REPORT_PAGE_SIZE }, (_, i) => `acct_${String(i).padStart(4, '0')}`);
    const meter = scripted(accounts);
    const summary = await runUsageReport({ month: MONTH, reporter: meter.reporter, sleep: async () => {} });
    expect(meter.listed).toEqual([undefined, accounts[USAGE_REPORT_PAGE_SIZE - 1]]);
    expect(summary.accounts).toBe(USAGE_REPORT_PAGE_SIZE);
  });
});
