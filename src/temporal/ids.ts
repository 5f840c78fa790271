/** Workflow ids are derived from business ids, so every start is idempotent. */
export const heldWorkflowId = (decisionId: string) => `held-${decisionId}`;
export const webhookWorkflowId = (eventId: string, endpointId: string) => `webhook-${eventId}-${endpointId}`;
