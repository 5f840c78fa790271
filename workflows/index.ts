export { heldAuthorization, approvalDecisionSignal, resolveUpdate } from './held-authorization.js';
export { webhookDelivery } from './webhook-delivery.js';
export { usageReport } from './usage-report.js';
export { reconcileHeldRequests } from './reconcile-holds.js';
export { expireUncapturedApprovalsSweep } from './capture-expiry.js';
export { auditCheckpoints } from './audit-checkpoints.js';
