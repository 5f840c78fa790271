/** Shared by the capture-expiry workflow, its activity and the Schedule; plain data only. */

export interface CaptureExpiryResult {
  /** Approvals expired by this run (amount released, audit record, event). */
  expired: number;
  /** Batches read. */
  batches: number;
}
