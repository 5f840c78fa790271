import { proxyActivities } from '@temporalio/workflow';
import type { CaptureExpiryActivities } from '../activities/capture-expiry.js';
import type { CaptureExpiryResult } from './capture-expiry.types.js';

const { expireUncapturedApprovals } = proxyActivities<CaptureExpiryActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  // The Schedule runs again within minutes: a run does not need to insist.
  retry: { initialInterval: '10 seconds', maximumAttempts: 3 },
});

/** One sweep of approvals not captured in time (run by the capture-expiry Schedule). */
export async function expireUncapturedApprovalsSweep(): Promise<CaptureExpiryResult> {
  return expireUncapturedApprovals();
}
