import { ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy, type Client, type ScheduleOptions, type ScheduleSpec } from '@temporalio/client';
import type { AuditCheckpointsInput } from '../../workflows/audit-checkpoints.types.js';
import type { UsageReportInput } from '../../workflows/usage-report.types.js';
import { taskQueues } from './task-queues.js';

/**
 * A job the engine runs on a Schedule: one workflow started at the Schedule's times. Its workflow
 * gets its activities from workflows/periodic.ts and its activities report progress with
 * activities/periodic.ts; this is the Schedule's side. A new job is one entry of `periodicJobs`.
 */
export interface PeriodicJob {
  scheduleId: string;
  workflowType: string;
  /** Runs are named `<workflowId>-<scheduled time>` by the server. */
  workflowId: string;
  /** The service's task queue its runs go to (worker.ts resolves it from TEMPORAL_TASK_QUEUE). */
  queue: keyof ReturnType<typeof taskQueues>;
  spec: ScheduleSpec;
  /** A run still going when the next is due: that one is skipped (SKIP) or waits for it (BUFFER_ONE). */
  overlap: ScheduleOverlapPolicy;
  /** A run missed while the engine was down is still taken within this long. */
  catchupWindow: string;
  args: unknown[];
  /** Shown on the Schedule in the Temporal UI: what it does and where it is documented. */
  description: string;
}

export const RECONCILE_SCHEDULE_ID = 'reconcile-held-requests';
export const DEFAULT_RECONCILE_INTERVAL_SECONDS = 300;

/**
 * Every RECONCILE_INTERVAL_SECONDS, compare pending holds with their workflows (docs/operations.md,
 * "Reconciliation"). Missed runs are not caught up: the next run covers them.
 */
export const reconcileJob = (intervalSeconds = DEFAULT_RECONCILE_INTERVAL_SECONDS): PeriodicJob => ({
  scheduleId: RECONCILE_SCHEDULE_ID,
  workflowType: 'reconcileHeldRequests',
  workflowId: 'reconcile-held-requests',
  queue: 'held',
  spec: { intervals: [{ every: `${intervalSeconds} seconds` }] },
  overlap: ScheduleOverlapPolicy.SKIP,
  catchupWindow: '1 minute',
  args: [],
  description: 'Pending holds compared with their workflows (see docs/operations.md, Reconciliation)',
});

export const CAPTURE_EXPIRY_SCHEDULE_ID = 'expire-uncaptured-approvals';
/** docs/api.md (Capture and void) asks for at least every 5 minutes; a minute keeps released budget close to the deadline. */
export const CAPTURE_EXPIRY_INTERVAL_SECONDS = 60;

/** Every minute, expire approvals not captured within their capture window. Missed runs are not caught up. */
export const CAPTURE_EXPIRY_JOB: PeriodicJob = {
  scheduleId: CAPTURE_EXPIRY_SCHEDULE_ID,
  workflowType: 'expireUncapturedApprovalsSweep',
  workflowId: 'expire-uncaptured-approvals',
  queue: 'held',
  spec: { intervals: [{ every: `${CAPTURE_EXPIRY_INTERVAL_SECONDS} seconds` }] },
  overlap: ScheduleOverlapPolicy.SKIP,
  catchupWindow: '1 minute',
  args: [],
  description: 'Approvals not captured within their capture window expire (see docs/api.md, Capture and void)',
};

export const USAGE_REPORT_SCHEDULE_ID = 'usage-report-monthly';

/**
 * On the 1st of every month at 00:05 UTC, report the month that just ended. A run missed while the
 * engine was down is still taken within a week; a run due while the previous one is still open
 * (retrying a meter for days) waits for it instead of being skipped. Whatever is still missed (a
 * Schedule paused across a 1st) is reported by the next run, which retries earlier months left
 * unreported or unaccepted.
 */
export const USAGE_REPORT_JOB: PeriodicJob = {
  scheduleId: USAGE_REPORT_SCHEDULE_ID,
  workflowType: 'usageReport',
  workflowId: 'usage-report',
  queue: 'billing',
  spec: { calendars: [{ dayOfMonth: 1, hour: 0, minute: 5 }], timezone: 'UTC' },
  overlap: ScheduleOverlapPolicy.BUFFER_ONE,
  catchupWindow: '7 days',
  args: [{} satisfies UsageReportInput],
  description: 'Monthly usage report to the billing meter (see docs/api.md, Billing reports)',
};

export const AUDIT_CHECKPOINT_SCHEDULE_ID = 'audit-checkpoints-daily';

/**
 * Every day at 00:10 UTC, the day's signed checkpoint of every chain with records, to the accounts'
 * webhook endpoints (AUDIT_CHECKPOINT_WEBHOOKS; docs/api.md, "Audit log"). A run missed while the
 * engine was down is still taken within the day; a run still going when the next is due makes that
 * one skip.
 */
export const AUDIT_CHECKPOINT_JOB: PeriodicJob = {
  scheduleId: AUDIT_CHECKPOINT_SCHEDULE_ID,
  workflowType: 'auditCheckpoints',
  workflowId: 'audit-checkpoints',
  queue: 'held',
  spec: { calendars: [{ hour: 0, minute: 10 }], timezone: 'UTC' },
  overlap: ScheduleOverlapPolicy.SKIP,
  catchupWindow: '1 day',
  args: [{} satisfies AuditCheckpointsInput],
  description: 'Daily signed audit checkpoints to webhook endpoints (see docs/api.md, Audit log)',
};

/** Every job the worker keeps scheduled. */
export const periodicJobs = (reconcileIntervalSeconds?: number): PeriodicJob[] => [USAGE_REPORT_JOB, reconcileJob(reconcileIntervalSeconds), CAPTURE_EXPIRY_JOB];

/** The jobs a setting turns on or off: on, the worker keeps their Schedule; off, it deletes it, so the runs stop. */
export const optionalPeriodicJobs = (settings: { auditCheckpointWebhooks?: boolean | undefined }): Array<{ job: PeriodicJob; enabled: boolean }> => [
  { job: AUDIT_CHECKPOINT_JOB, enabled: settings.auditCheckpointWebhooks === true },
];

/** The Schedule of a job whose runs go to `taskQueue` (tests give their own id, so their Schedules stand apart). */
export function scheduleOf(job: PeriodicJob, taskQueue: string, scheduleId = job.scheduleId): ScheduleOptions {
  return {
    scheduleId,
    spec: job.spec,
    action: { type: 'startWorkflow', workflowType: job.workflowType, workflowId: job.workflowId, taskQueue, args: job.args },
    policies: { overlap: job.overlap, catchupWindow: job.catchupWindow },
    memo: { description: job.description },
  };
}

/**
 * Creates the job's Schedule, or updates the spec, action and policies of the existing one (its
 * state, such as a pause, is kept): safe on every worker start.
 */
export async function ensurePeriodicJob(client: Client, job: PeriodicJob, taskQueue: string, scheduleId?: string): Promise<'created' | 'updated'> {
  const options = scheduleOf(job, taskQueue, scheduleId);
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

/** Deletes the Schedule of a job turned off ('absent': there was none). */
export async function removePeriodicJob(client: Client, job: PeriodicJob, scheduleId = job.scheduleId): Promise<'deleted' | 'absent'> {
  try {
    await client.schedule.getHandle(scheduleId).delete();
    return 'deleted';
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) return 'absent';
    throw err;
  }
}
