/** Shared by the reconcile workflow, its activity and the Schedule; plain data only. */

export interface ReconcileResult {
  /** Pending holds compared with the engine in this run. */
  checked: number;
  /** Their workflow is running: nothing to do. */
  running: number;
  /** Workflow closed or never started, time left: started again. */
  restarted: number;
  /** Workflow closed or never started, time up: expired (reservation released, audit, event). */
  expired: number;
  /** Could not be handled this run (the next run tries again). */
  failed: number;
}
