import { ScheduleOverlapPolicy, type Client, type ScheduleOptions } from '@temporalio/client';
import { upsertSchedule } from './usage-schedule.js';

export const CAPTURE_EXPIRY_SCHEDULE_ID = 'expire-uncaptured-approvals';
export const CAPTURE_EXPIRY_WORKFLOW_ID = 'expire-uncaptured-approvals';
/** DECISIONS §15 asks for at least every 5 minutes; a minute keeps released budget close to the deadline. */
export const CAPTURE_EXPIRY_INTERVAL_SECONDS = 60;

/**
 * Every minute, expire approvals not captured within their capture window. A run still going
 * when the next is due makes that one skip; missed runs are not caught up (the next run covers them).
 */
export function captureExpirySchedule(taskQueue: string, scheduleId = CAPTURE_EXPIRY_SCHEDULE_ID): ScheduleOptions {
  return {
    scheduleId,
    spec: { intervals: [{ every: `${CAPTURE_EXPIRY_INTERVAL_SECONDS} seconds` }] },
    action: { type: 'startWorkflow', workflowType: 'expireUncapturedApprovalsSweep', workflowId: CAPTURE_EXPIRY_WORKFLOW_ID, taskQueue, args: [] },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
    memo: { description: 'Approvals not captured within their capture window expire (see docs/api.md, Capture and void)' },
  };
}

export function ensureCaptureExpirySchedule(client: Client, taskQueue: string, scheduleId?: string): Promise<'created' | 'updated'> {
  return upsertSchedule(client, captureExpirySchedule(taskQueue, scheduleId));
}
