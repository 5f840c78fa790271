import { workflowInfo } from '@temporalio/workflow';
import type { AuditCheckpointActivities } from '../activities/audit-checkpoints.js';
import type { AuditCheckpointsInput, AuditCheckpointsResult } from './audit-checkpoints.types.js';
import { periodicActivities } from './periodic.js';
import { ScheduledStartTimeKey } from './usage-report.js';

// Once a day: a run insists longer than the sweeps do. A retry resends nothing (once per chain and
// day); the next day's run is the backstop.
const { sendAuditCheckpoints } = periodicActivities<AuditCheckpointActivities>({
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '1 minute', backoffCoefficient: 2, maximumInterval: '30 minutes', maximumAttempts: 10 },
});

/** The day a run sends checkpoints for: the UTC date of its scheduled time (or, started by hand, of its start). */
export function checkpointDay(): string {
  const info = workflowInfo();
  return (info.typedSearchAttributes.get(ScheduledStartTimeKey) ?? info.startTime).toISOString().slice(0, 10);
}

/** Each day's signed checkpoint of every chain with records, to the account's webhook endpoints (run by its Schedule). */
export async function auditCheckpoints(input: AuditCheckpointsInput = {}): Promise<AuditCheckpointsResult> {
  return sendAuditCheckpoints({ day: input.day ?? checkpointDay() });
}
