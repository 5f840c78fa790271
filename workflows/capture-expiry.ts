import type { CaptureExpiryActivities } from '../activities/capture-expiry.js';
import type { CaptureExpiryResult } from './capture-expiry.types.js';
import { periodicActivities } from './periodic.js';

const { expireUncapturedApprovals } = periodicActivities<CaptureExpiryActivities>();

/** One sweep of approvals not captured in time (run by the capture-expiry Schedule). */
export async function expireUncapturedApprovalsSweep(): Promise<CaptureExpiryResult> {
  return expireUncapturedApprovals();
}
