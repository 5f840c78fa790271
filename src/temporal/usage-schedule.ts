import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleOptions } from '@temporalio/client';
import type { UsageReportInput } from '../../workflows/usage-report.types.js';

export const USAGE_REPORT_SCHEDULE_ID = 'usage-report-monthly';
/** Runs are named `usage-report-<scheduled time>` by the server. */
export const USAGE_REPORT_WORKFLOW_ID = 'usage-report';

/**
 * On the 1st of every month at 00:05 UTC, report the month that just ended. A run missed while
 * the engine was down is still taken within a week; a run due while the previous one is still open
 * (retrying a meter for days) waits for it instead of being skipped. Whatever is still missed (a
 * Schedule paused across a 1st) is reported by the next run, which retries earlier months left
 * unreported or unaccepted.
 */
export function usageReportSchedule(taskQueue: string, scheduleId = USAGE_REPORT_SCHEDULE_ID): ScheduleOptions {
  const input: UsageReportInput = {};
  return {
    scheduleId,
    spec: { calendars: [{ dayOfMonth: 1, hour: 0, minute: 5 }], timezone: 'UTC' },
    action: { type: 'startWorkflow', workflowType: 'usageReport', workflowId: USAGE_REPORT_WORKFLOW_ID, taskQueue, args: [input] },
    policies: { overlap: ScheduleOverlapPolicy.BUFFER_ONE, catchupWindow: '7 days' },
    memo: { description: 'Monthly usage report to the billing meter (see docs/api.md, Billing reports)' },
  };
}

/** Creates the Schedule, or brings an existing one up to date: safe on every worker start. */
export async function ensureUsageReportSchedule(client: Client, taskQueue: string, scheduleId = USAGE_REPORT_SCHEDULE_ID): Promise<'created' | 'updated'> {
  return upsertSchedule(client, usageReportSchedule(taskQueue, scheduleId));
}

/** Creates a Schedule, or updates the spec, action and policies of the existing one (its state, such as a pause, is kept). */
export async function upsertSchedule(client: Client, options: ScheduleOptions): Promise<'created' | 'updated'> {
  try {
    await client.schedule.create(options);
    return 'created';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule.getHandle(options.scheduleId).update((previous) => ({
      ...previous,
      spec: options.spec,
      action: options.action,
      policies: { ...previous.policies, ...options.policies },
    }));
    return 'updated';
  }
}
