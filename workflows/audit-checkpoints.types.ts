/** Shared by the daily audit-checkpoint workflow, its activity and the Schedule; plain data only. */

export interface AuditCheckpointsInput {
  /** YYYY-MM-DD (UTC); default: the day of the run's scheduled time. */
  day?: string;
}

export interface AuditCheckpointsResult {
  day: string;
  /** False when AUDIT_CHECKPOINT_WEBHOOKS is off in the worker: nothing was read or sent. */
  enabled: boolean;
  /** Chains (account and mode) with records, looked at. */
  chains: number;
  /** Checkpoints sent as `audit.checkpoint` events. */
  sent: number;
  /** Sent already for this day (a repeated run). */
  alreadySent: number;
  /** No endpoint of the account and mode subscribes to `audit.checkpoint`. */
  noEndpoint: number;
}
