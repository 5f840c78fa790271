import type { ReconcileActivities } from '../activities/reconcile-holds.js';
import { periodicActivities } from './periodic.js';
import type { ReconcileResult } from './reconcile-holds.types.js';

const { reconcileHolds } = periodicActivities<ReconcileActivities>();

/** One reconciliation of pending holds with their workflows (run by the reconcile Schedule). */
export async function reconcileHeldRequests(): Promise<ReconcileResult> {
  return reconcileHolds();
}
