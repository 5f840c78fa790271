export { heldAuthorization, approvalDecisionSignal, resolveUpdate } from './held-authorization.js';
