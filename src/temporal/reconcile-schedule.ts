import { ScheduleOverlapPolicy, type Client, type ScheduleOptions } from '@temporalio/client';
import { upsertSchedule } from './usage-schedule.js';

export const RECONCILE_SCHEDULE_ID = 'reconcile-held-requests';
export const RECONCILE_WORKFLOW_ID = 'reconcile-held-requests';
export const DEFAULT_RECONCILE_INTERVAL_SECONDS = 300;

/**
 * Every RECONCILE_INTERVAL_SECONDS, compare pending holds with their workflows (DECISIONS §8). A
 * run still going when the next is due makes that one wait; missed runs are not caught up (the
 * next run covers them).
 */
export function reconcileSchedule(taskQueue: string, intervalSeconds = DEFAULT_RECONCILE_INTERVAL_SECONDS, scheduleId = RECONCILE_SCHEDULE_ID): ScheduleOptions {
  return {
    scheduleId,
    spec: { intervals: [{ every: `${intervalSeconds} seconds` }] },
    action: { type: 'startWorkflow', workflowType: 'reconcileHeldRequests', workflowId: RECONCILE_WORKFLOW_ID, taskQueue, args: [] },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
    memo: { description: 'Pending holds compared with their workflows (see docs/operations.md, Reconciliation)' },
  };
}

export function ensureReconcileSchedule(client: Client, taskQueue: string, intervalSeconds?: number, scheduleId?: string): Promise<'created' | 'updated'> {
  return upsertSchedule(client, reconcileSchedule(taskQueue, intervalSeconds, scheduleId));
}
