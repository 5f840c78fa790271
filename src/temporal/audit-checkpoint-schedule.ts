import { ScheduleNotFoundError, ScheduleOverlapPolicy, type Client, type ScheduleOptions } from '@temporalio/client';
import { upsertSchedule } from './usage-schedule.js';

export const AUDIT_CHECKPOINT_SCHEDULE_ID = 'audit-checkpoints-daily';
/** Runs are named `audit-checkpoints-<scheduled time>` by the server. */
export const AUDIT_CHECKPOINT_WORKFLOW_ID = 'audit-checkpoints';

/**
 * Every day at 00:10 UTC, the day's signed checkpoint of every chain with records, to the account's
 * webhook endpoints (AUDIT_CHECKPOINT_WEBHOOKS). A run missed while the engine was down is still
 * taken within the day; a run still going when the next is due makes that one skip.
 */
export function auditCheckpointSchedule(taskQueue: string, scheduleId = AUDIT_CHECKPOINT_SCHEDULE_ID): ScheduleOptions {
  return {
    scheduleId,
    spec: { calendars: [{ hour: 0, minute: 10 }], timezone: 'UTC' },
    action: { type: 'startWorkflow', workflowType: 'auditCheckpoints', workflowId: AUDIT_CHECKPOINT_WORKFLOW_ID, taskQueue, args: [{}] },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 day' },
    memo: { description: 'Daily signed audit checkpoints to webhook endpoints (see docs/api.md, Audit log)' },
  };
}

/** On: creates or updates the Schedule. Off: deletes it if it exists, so turning the setting off stops the runs. */
export async function syncAuditCheckpointSchedule(client: Client, taskQueue: string, enabled: boolean, scheduleId = AUDIT_CHECKPOINT_SCHEDULE_ID): Promise<'created' | 'updated' | 'deleted' | 'absent'> {
  if (enabled) return upsertSchedule(client, auditCheckpointSchedule(taskQueue, scheduleId));
  try {
    await client.schedule.getHandle(scheduleId).delete();
    return 'deleted';
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) return 'absent';
    throw err;
  }
}
