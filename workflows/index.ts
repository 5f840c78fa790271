export { heldAuthorization, approvalDecisionSignal, resolveUpdate } from './held-authorization.js';
export { usageReport } from './usage-report.js';
