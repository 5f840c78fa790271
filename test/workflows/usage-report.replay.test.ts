/**
 * usageReport replayed against hand-built histories, with no server (see test/histories/README.md
 * for what replay checks and what it does not). The histories are built here, in memory, from
 * test/support/history-builder.ts: a scheduled run that lists two accounts and reports both (one
 * accepted, one refused by the meter), and a run with nothing to report. Edited copies that the
 * code would not produce must fail, which shows the histories constrain the workflow.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineSearchAttributeKey } from '@temporalio/common';
import { DefaultLogger, Runtime, type WorkflowBundle } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ReportAccountResult } from '../../src/usage/usage-report.js';
import type { UsageReportResult } from '../../workflows/usage-report.types.js';
import { bundleForReplay } from '../support/replay-bundle.js';
import { bundleWithRecorder, recordedValues, ReplaySession, replayValues } from '../support/replay-recorder.js';
import { assertWellFormed, HistoryBuilder, jsonPayload, payloads, type HistoryEventJson, type HistoryJson } from '../support/history-builder.js';

const WORKFLOWS_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../workflows/index.ts');
const ScheduledStartTime = defineSearchAttributeKey('TemporalScheduledStartTime', 'DATETIME');

/** Mirrors `proxyActivities` in workflows/usage-report.ts. */
const LIST_OPTIONS = {
  startToCloseMs: 60_000,
  retryPolicy: { initialIntervalMs: 1_000, backoffCoefficient: 2, maximumIntervalMs: 60_000, nonRetryableErrorTypes: ['MonthNotReportable'] },
};
const LIST_RETRY = { initialIntervalMs: 1_000, backoffCoefficient: 2, maximumIntervalMs: 60_000, nonRetryableErrorTypes: ['MonthNotReportable'] };
const REPORT_OPTIONS = {
  startToCloseMs: 30_000,
  scheduleToCloseMs: 20 * 86_400_000,
  retryPolicy: { initialIntervalMs: 30_000, backoffCoefficient: 2, maximumIntervalMs: 3_600_000, nonRetryableErrorTypes: ['BillingMeterRejected', 'MonthNotReportable'] },
};

const SCHEDULED = new Date('2026-11-01T00:05:00.000Z');
const MONTH = '2026-10';
const A = 'acct_FxReplayA000000000000000';
const B = 'acct_FxReplayB000000000000000';

/** The history of a scheduled run whose listing returns `accounts`; the last account's report is refused when `refuseLast`. */
function scheduledRun(
  accounts: string[],
  refuseLast: boolean,
  opts: { startTime?: Date; scheduled?: Date | null; skipFirst?: boolean } = {},
): HistoryJson {
  const scheduled = opts.scheduled === undefined ? SCHEDULED : opts.scheduled;
  const b = new HistoryBuilder({
    workflowId: `usage-report-${SCHEDULED.toISOString()}`,
    runId: '0195a1b2-0100-7000-8000-000000000100',
    startTime: opts.startTime ?? new Date(SCHEDULED.getTime() + 120),
    taskQueue: 'spend-authorization',
  });
  b.workflowExecutionStarted({ workflowType: 'usageReport', input: payloads({}), ...(scheduled ? { searchAttributes: [{ key: ScheduledStartTime, value: scheduled }] } : {}) });
  b.workflowTask();

  // `after` is undefined on the first page: a binary/null payload, which carries no data at all.
  const listInput = payloads(MONTH, undefined);
  delete (listInput.payloads[1] as { data?: string }).data;
  const list = b.activityTaskScheduled({ activityId: '1', activityType: 'listAccountsToReport', input: listInput, ...LIST_OPTIONS });
  const listStarted = b.activityTaskStarted({ scheduledEventId: list });
  b.activityTaskCompleted({ scheduledEventId: list, startedEventId: listStarted, result: accounts });
  b.workflowTask();

  const totals: UsageReportResult = { month: MONTH, accounts: accounts.length, accepted: 0, skipped: 0, failed: 0, failedAccountIds: [] };
  if (accounts.length > 0) {
    // Both lanes schedule their first account in the same task.
    const scheduledIds = accounts.map((accountId, i) =>
      b.activityTaskScheduled({ activityId: String(i + 2), activityType: 'reportAccountUsage', input: payloads({ accountId, month: MONTH }), ...REPORT_OPTIONS }),
    );
    accounts.forEach((accountId, i) => {
      b.advance(150);
      const started = b.activityTaskStarted({ scheduledEventId: scheduledIds[i]! });
      if (refuseLast && i === accounts.length - 1) {
        b.activityTaskFailed({ scheduledEventId: scheduledIds[i]!, startedEventId: started, message: 'billing meter answered HTTP 400', type: 'BillingMeterRejected', nonRetryable: true });
        totals.failed += 1;
        totals.failedAccountIds.push(accountId);
      } else {
        const skipped = opts.skipFirst === true && i === 0;
        const result: ReportAccountResult = { accountId, month: MONTH, quantity: 10, status: skipped ? 'skipped' : 'accepted', posted: !skipped, idempotencyKey: `${accountId}:${MONTH}` };
        b.activityTaskCompleted({ scheduledEventId: scheduledIds[i]!, startedEventId: started, result });
        if (skipped) totals.skipped += 1;
        else totals.accepted += 1;
      }
    });
    b.workflowTask();
  }
  b.workflowExecutionCompleted({ result: totals });
  return b.build();
}

let workflowBundle: WorkflowBundle;
let recordingBundle: WorkflowBundle;
const WORKFLOW_ID = `usage-report-${SCHEDULED.toISOString()}`;

/** One replay Worker per bundle for the file (a Worker per history costs a V8 context and a core worker each); each test replays its own history. */
let plain: ReplaySession;
let recording: ReplaySession;

async function expectNondeterminism(history: HistoryJson, message: RegExp): Promise<void> {
  const error = await plain.replay(history, `usage-report-${SCHEDULED.toISOString()}`);
  expect(error, 'replay of the edited usage-report history should have failed').toBeInstanceOf(DeterminismViolationError);
  expect((error as Error).message).toMatch(message);
}

const isType = (type: string) => (e: HistoryEventJson) => e.eventType === `EVENT_TYPE_${type}`;
const attributesOf = (e: HistoryEventJson) => e[Object.keys(e).find((k) => k.endsWith('EventAttributes')) as `${string}EventAttributes`] as Record<string, any>;

beforeAll(async () => {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
  } catch {
    // A Runtime already exists in this process: keep it.
  }
  [workflowBundle, recordingBundle] = await Promise.all([bundleForReplay({ workflowsPath: WORKFLOWS_PATH }), bundleWithRecorder()]);
  plain = new ReplaySession({ workflowBundle, replayName: 'usage-report-replay' });
  recording = new ReplaySession({ workflowBundle: recordingBundle, replayName: 'replay-values' });
}, 120_000);

afterAll(async () => {
  await Promise.all([plain?.close(), recording?.close()]);
});

describe('usageReport replays', () => {
  test('the histories use only fields the Temporal protos know', () => {
    assertWellFormed(scheduledRun([A, B], true));
    assertWellFormed(scheduledRun([], false));
  });

  // Beyond replaying: the code asks each activity for the recorded input and returns the recorded totals.
  test('a scheduled run reports every listed account, a few at once, and completes although one was refused', async () => {
    const history = scheduledRun([A, B], true);
    const replayed = await replayValues(recording, history, WORKFLOW_ID);
    expect(replayed).toEqual(recordedValues(history));
    expect(replayed.activities.map((a) => a.args)).toEqual([[MONTH, undefined], [{ accountId: A, month: MONTH }], [{ accountId: B, month: MONTH }]]);
    expect(replayed.result).toEqual({ month: MONTH, accounts: 2, accepted: 1, skipped: 0, failed: 1, failedAccountIds: [B] });
    // Reports are retried from 30 s to hourly for 20 days; a refusal of the meter is final.
    expect(replayed.activities[1]!.options).toEqual({
      startToCloseMs: 30_000,
      scheduleToCloseMs: 20 * 86_400_000,
      heartbeatMs: 0,
      retry: { initialIntervalMs: 30_000, backoffCoefficient: 2, maximumIntervalMs: 3_600_000, nonRetryableErrorTypes: ['BillingMeterRejected', 'MonthNotReportable'] },
    });
  });

  test('a scheduled run with nothing to report lists once and completes', async () => {
    const history = scheduledRun([], false);
    const replayed = await replayValues(recording, history, WORKFLOW_ID);
    expect(replayed).toEqual(recordedValues(history));
    expect(replayed).toEqual({
      activities: [{ activityType: 'listAccountsToReport', args: [MONTH, undefined], options: { startToCloseMs: 60_000, scheduleToCloseMs: 0, heartbeatMs: 0, retry: LIST_RETRY } }],
      result: { month: MONTH, accounts: 0, accepted: 0, skipped: 0, failed: 0, failedAccountIds: [] },
    });
  });

  test('a history whose totals the code would not return replays, but not to its recorded result', async () => {
    const history = scheduledRun([A, B], true);
    const completed = history.events.find(isType('WORKFLOW_EXECUTION_COMPLETED'))!;
    attributesOf(completed).result.payloads[0] = jsonPayload({ month: MONTH, accounts: 2, accepted: 2, skipped: 0, failed: 0, failedAccountIds: [] });
    expect(await replayValues(recording, history, WORKFLOW_ID)).not.toEqual(recordedValues(history));
  });
});

describe('which month a run bills, and what it counts', () => {
  test('a run the Schedule started late bills the month before its scheduled time, not before its start', async () => {
    // Due on 1 November, started on 2 December (a Schedule catching up): still October.
    const history = scheduledRun([A], false, { startTime: new Date('2026-12-02T08:00:00.000Z') });
    const replayed = await replayValues(recording, history, WORKFLOW_ID);
    expect(replayed).toEqual(recordedValues(history));
    expect(replayed.activities[0]!.args).toEqual([MONTH, undefined]);
  });

  test('a run started by hand (no scheduled time) bills the month before its start', async () => {
    const history = scheduledRun([A], false, { scheduled: null });
    const replayed = await replayValues(recording, history, WORKFLOW_ID);
    expect(replayed).toEqual(recordedValues(history));
    expect(replayed.activities[0]!.args).toEqual([MONTH, undefined]);
  });

  test('a report skipped (no meter configured) is counted as skipped, not accepted', async () => {
    const history = scheduledRun([A, B], false, { skipFirst: true });
    const replayed = await replayValues(recording, history, WORKFLOW_ID);
    expect(replayed).toEqual(recordedValues(history));
    expect(replayed.result).toEqual({ month: MONTH, accounts: 2, accepted: 1, skipped: 1, failed: 0, failedAccountIds: [] });
  });
});

describe('the histories constrain the workflow', () => {
  test('a listed account without its report: the code reports every account it lists', async () => {
    const history = scheduledRun([A, B], false);
    const completed = history.events.find(isType('ACTIVITY_TASK_COMPLETED'))!;
    attributesOf(completed).result.payloads[0] = jsonPayload([A, B, 'acct_FxReplayC000000000000000']);
    await expectNondeterminism(history, /Nondeterminism|does not handle|No command scheduled/);
  });

  test('the report activity renamed: the code schedules reportAccountUsage', async () => {
    const history = scheduledRun([A], false);
    for (const e of history.events.filter(isType('ACTIVITY_TASK_SCHEDULED')).slice(1)) attributesOf(e).activityType.name = 'postUsage';
    await expectNondeterminism(history, /Activity type of scheduled event 'postUsage' does not match.*'reportAccountUsage'/);
  });
});
