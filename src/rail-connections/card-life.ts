/**
 * What a card authorization counts against the agent's budget, from what the rail has reported of
 * it so far (docs/rails/stripe-issuing.md, "The card's later life"). A pure function of the facts,
 * so a repeated or reordered event computes the same amount again and changes nothing.
 */

/** The latest facts the rail reported about one authorization. */
export interface AuthorizationFacts {
  /** The rail's own verdict (false: it declined, whatever this service answered). */
  approved: boolean | null;
  /** `pending`, then one of `closed`, `reversed`, `expired`. */
  status: string | null;
  /** The amount still held while pending (lower after a partial reversal). */
  amount: number | null;
}

/** The settled transactions of the authorization, by kind, in the rail's signs (captures negative). */
export interface Settlement {
  captureNet: number;
  captures: number;
  refundNet: number;
}

export type CountReason = 'declined' | 'settled' | 'refunded' | 'reversed' | 'expired' | 'held' | 'unchanged';

const TERMINAL = new Set(['closed', 'reversed', 'expired']);

/** A later status never goes back to `pending`; the amount of an older event never replaces a newer one. */
export function mergeFacts(
  stored: AuthorizationFacts & { amountAt: number | null },
  reported: AuthorizationFacts,
  reportedAt: number,
): AuthorizationFacts & { amountAt: number | null } {
  const status = stored.status && TERMINAL.has(stored.status) && reported.status === 'pending' ? stored.status : (reported.status ?? stored.status);
  const newer = stored.amountAt === null || reportedAt >= stored.amountAt;
  return {
    approved: reported.approved ?? stored.approved,
    status,
    amount: newer && reported.amount !== null ? reported.amount : stored.amount,
    amountAt: newer && reported.amount !== null ? reportedAt : stored.amountAt,
  };
}

/**
 * - once a capture settled → what the captures took, less refunds (never below 0), also on an
 *   authorization the rail declined (a force capture);
 * - declined by the rail → 0;
 * - reversed or expired without a capture → 0;
 * - still pending → the amount the rail still holds;
 * - otherwise (closed, its settlement not seen yet; nothing reported) → `current`: nothing is
 *   released on a guess, the settlement will say.
 */
export function countedAmount(facts: AuthorizationFacts, settled: Settlement, current: number): { amount: number; reason: CountReason } {
  // A capture counts even on an authorization the rail declined (a force capture): what the card
  // moved is what counts.
  if (settled.captures > 0) {
    return { amount: Math.max(0, -(settled.captureNet + settled.refundNet)), reason: settled.refundNet > 0 ? 'refunded' : 'settled' };
  }
  if (facts.approved === false) return { amount: 0, reason: 'declined' };
  if (facts.status === 'reversed' || facts.status === 'expired') return { amount: 0, reason: facts.status };
  if (facts.status === 'pending' && facts.amount !== null) return { amount: facts.amount, reason: 'held' };
  return { amount: current, reason: 'unchanged' };
}

/** One approving decision's share of what the authorization counts. */
export interface Share {
  /** What the decision counts (its capture). */
  amount: number;
  /** The part of `amount` above what was approved for the authorization (first decision only). */
  over: number;
}

/**
 * Shares what a card authorization counts over the decisions that approved it, in the order they
 * were answered, each up to what it approved for the authorization. What is left over is what the
 * card moved above everything approved: it still counts (the ledger never shows less than the card
 * spent), on the first decision, as its over-capture.
 */
export function allocateCounted(total: number, approved: readonly number[]): { shares: Share[]; approvedTotal: number } {
  let left = Math.max(0, total);
  const shares = approved.map((a) => {
    const amount = Math.min(Math.max(0, a), left);
    left -= amount;
    return { amount, over: 0 };
  });
  if (left > 0 && shares[0]) shares[0] = { amount: shares[0].amount + left, over: left };
  return { shares, approvedTotal: approved.reduce((sum, a) => sum + Math.max(0, a), 0) };
}
