import { createHash } from 'node:crypto';
/** A hold's workflow id, derived from its decision id, so every start is idempotent (webhook deliveries carry theirs). */
export const heldWorkflowId = (decisionId: string) => `held-${decisionId}`;

/**
 * A reviewer's Update id. The same key asking the same thing again (a retry after a timeout)
 * attaches to the Update already sent. It ends in a digest of the API's mark, which whoever reaches
 * the engine cannot make (approval-authority.ts): an Update sent by hand beforehand under the
 * reviewer's id cannot take the id, and with it the answer, of the reviewer's own (the engine
 * answers a repeated Update id with the first one's result for the whole run).
 */
export function reviewerUpdateId(decisionId: string, outcome: { outcome: 'approved' | 'denied'; reviewer?: string | null; authority?: string }): string {
  const base = `${outcome.outcome === 'approved' ? 'approve' : 'deny'}-${decisionId}-${outcome.reviewer ?? 'anonymous'}`;
  return outcome.authority ? `${base}-${createHash('sha256').update(outcome.authority).digest('base64url').slice(0, 16)}` : base;
}
