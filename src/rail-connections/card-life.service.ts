import type { Db } from '../db/database.js';
import { adjustCaptureLocked } from '../capture/capture.service.js';
import { findDecisionById, lockAgentThenDecision } from '../decisions/decisions.repository.js';
import { countedAmount, mergeFacts, type AuthorizationFacts } from './card-life.js';
import { claimRailEvent, findRailAnswerOf, lockRailAnswer, recordRailTransactions, settlementOf, updateRailAnswer, type RailTransactionFacts } from './rail-answers.repository.js';
import type { EndpointConnection } from './rail-connections.service.js';

/** One event of a card's later life, as the rail's adapter translated it. */
export interface CardLifeEvent {
  eventId: string;
  type: string;
  /** Unix seconds the rail stamped on the event: an older report never overwrites a newer one. */
  created: number;
  /** The authorization it concerns; null for a transaction the rail could not link (some refunds). */
  authorizationId: string | null;
  /** Present for authorization events: what the rail now says of it. */
  authorization?: AuthorizationFacts;
  /** Settled transactions the event carries (a transaction event's own, an authorization's list). */
  transactions: RailTransactionFacts[];
}

export type CardLifeResult = 'applied' | 'unchanged' | 'duplicate' | 'recorded';

/**
 * Applies an event of a card's later life (docs/rails/stripe-issuing.md): the facts are stored,
 * then what the authorization counts is computed from all the facts known (card-life.ts) and the
 * decision's capture follows it. Exactly once per event id, and idempotent beyond that: a repeat
 * under another id computes the same amount and changes nothing.
 */
export async function applyCardLifeEvent(deps: { db: Db; now?: () => Date }, connection: EndpointConnection, event: CardLifeEvent): Promise<CardLifeResult> {
  return deps.db.transaction().execute(async (trx) => {
    const now = deps.now?.() ?? new Date();
    if (!(await claimRailEvent(trx, connection.id, event.eventId, event.type, now))) return 'duplicate';
    await recordRailTransactions(trx, connection.id, event.transactions, now);
    if (!event.authorizationId) return 'recorded';
    const answer = await findRailAnswerOf(trx, connection.id, event.authorizationId);
    if (!answer) return 'recorded';
    // Locks in the order of every spend change: the agent, the decision, then this record.
    const decision = answer.approved && answer.decision_id ? await findDecisionById(trx, answer.decision_id) : undefined;
    const locked = decision && (await lockAgentThenDecision(trx, decision.agent_id, decision.id));
    const current = (await lockRailAnswer(trx, connection.id, event.authorizationId))!;
    const known = {
      approved: current.stripe_approved,
      status: current.stripe_status,
      amount: current.stripe_amount === null ? null : Number(current.stripe_amount),
      amountAt: current.stripe_amount_at === null ? null : Number(current.stripe_amount_at),
    };
    const facts = event.authorization ? mergeFacts(known, event.authorization, event.created) : known;
    const stored = { stripe_approved: facts.approved, stripe_status: facts.status, stripe_amount: facts.amount, stripe_amount_at: facts.amountAt, updated_at: now };
    // Declined answers, and approvals on timeout that no decision backs, only keep the facts.
    if (!locked) {
      await updateRailAnswer(trx, connection.id, event.authorizationId, stored);
      return 'recorded';
    }
    const counted = countedAmount(facts, await settlementOf(trx, connection.id, event.authorizationId), Number(current.counted_amount));
    const ref = { type: 'stripe_issuing', connection_id: connection.id, authorization_id: event.authorizationId };
    const adjusted = await adjustCaptureLocked(trx, locked, counted.amount, { type: 'system', id: connection.id }, now, {
      rail: ref,
      reason: counted.reason,
      rail_event_id: event.eventId,
      ...(counted.amount > Number(locked.amount) ? { over_capture_amount: counted.amount - Number(locked.amount) } : {}),
    });
    const countedNow = Math.min(counted.amount, Number(locked.amount));
    await updateRailAnswer(trx, connection.id, event.authorizationId, { ...stored, counted_amount: countedNow });
    return adjusted ? 'applied' : 'unchanged';
  });
}
