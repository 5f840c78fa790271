/** A hold's workflow id, derived from its decision id, so every start is idempotent (webhook deliveries carry theirs). */
export const heldWorkflowId = (decisionId: string) => `held-${decisionId}`;
