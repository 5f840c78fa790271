import { proxyActivities } from '@temporalio/workflow';
import type { ReconcileActivities } from '../activities/reconcile-holds.js';
import type { ReconcileResult } from './reconcile-holds.types.js';

const { reconcileHolds } = proxyActivities<ReconcileActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  // The Schedule runs again in a few minutes: a run does not need to insist.
  retry: { initialInterval: '10 seconds', maximumAttempts: 3 },
});

/** One reconciliation of pending holds with their workflows (run by the reconcile Schedule). */
export async function reconcileHeldRequests(): Promise<ReconcileResult> {
  return reconcileHolds();
}
