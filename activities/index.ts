import { createHeldActivities, type HeldActivityDeps } from './held-authorization.js';
import { createWebhookActivities, type WebhookActivityDeps } from './webhook-delivery.js';
import { createUsageReportActivities, type UsageReportActivityDeps } from './usage-report.js';
import { createReconcileActivities, type ReconcileActivityDeps } from './reconcile-holds.js';
import { createCaptureExpiryActivities, type CaptureExpiryActivityDeps } from './capture-expiry.js';
import { createAuditCheckpointActivities, type AuditCheckpointActivityDeps } from './audit-checkpoints.js';

export type ActivityDeps = HeldActivityDeps & WebhookActivityDeps & UsageReportActivityDeps & ReconcileActivityDeps & CaptureExpiryActivityDeps & AuditCheckpointActivityDeps;

/** Every activity the worker registers. */
export function createActivities(deps: ActivityDeps) {
  return { ...createHeldActivities(deps), ...createWebhookActivities(deps), ...createUsageReportActivities(deps), ...createReconcileActivities(deps), ...createCaptureExpiryActivities(deps), ...createAuditCheckpointActivities(deps) };
}
