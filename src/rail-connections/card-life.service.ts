import type { Db, DbOrTrx } from '../db/database.js';
import { adjustCaptureLocked } from '../capture/capture.service.js';
import { findDecisionById, lockDecision } from '../decisions/decisions.repository.js';
import type { DecisionRow } from '../decisions/decision.view.js';
import { allocateCounted, countedAmount, mergeFacts, type AuthorizationFacts } from './card-life.js';
import {
  claimRailEvent,
  lockRailAnswer,
  railAnswersOf,
  recordRailTransactions,
  setCountedAmount,
  settlementOf,
  updateRailAnswer,
  type RailAnswerRow,
  type RailTransactionFacts,
} from './rail-answers.repository.js';
import { RailConnectionGone, type EndpointConnection } from './rail-connection-cache.js';
import { countForcePosts, countUncovered } from './card-captures.service.js';

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
  /** The card the event concerns, and the agent its metadata (or its cardholder's) names, when it says. */
  card?: { id: string; agentId: string | null };
}

export type CardLifeResult = 'applied' | 'unchanged' | 'duplicate' | 'recorded';

/** An answer that approved through a decision, with that decision as locked. */
interface Approving {
  answer: RailAnswerRow;
  decision: DecisionRow;
}

/** Answers that approved through a decision: each one's decision is what the authorization counts through. */
const approvingAnswers = (answers: readonly RailAnswerRow[]) => answers.filter((a) => a.approved && a.decision_id !== null);

/**
 * The agents whose spend the approving answers moved: each answer's own `agent_id` (the agent its
 * decision was made or matched for), read from its decision only for an answer that lacks it.
 */
async function agentsOf(trx: DbOrTrx, answers: readonly RailAnswerRow[]): Promise<string[]> {
  const ids = await Promise.all(approvingAnswers(answers).map(async (a) => a.agent_id ?? (await findDecisionById(trx, a.decision_id!))?.agent_id));
  return ids.filter((id): id is string => id !== undefined);
}

/**
 * Locks the agents of the authorization's approving decisions (sorted, the order every spend change
 * of several agents takes), then reads its answers again: an increase decided meanwhile held an
 * agent's lock until it committed, so under the locks the list is complete. Then the decisions.
 */
async function lockApproving(trx: DbOrTrx, connectionId: string, authorizationId: string): Promise<{ answers: RailAnswerRow[]; approving: Approving[] }> {
  const locked = new Set<string>();
  for (;;) {
    const answers = await railAnswersOf(trx, connectionId, authorizationId);
    const agents = [...new Set(await agentsOf(trx, answers))].filter((id) => !locked.has(id)).sort();
    if (agents.length === 0) {
      const approving: Approving[] = [];
      for (const answer of approvingAnswers(answers)) {
        const decision = await lockDecision(trx, answer.decision_id!);
        if (decision) approving.push({ answer, decision });
      }
      return { answers, approving };
    }
    for (const id of agents) {
      await trx.selectFrom('agents').select('id').where('id', '=', id).forUpdate().execute();
      locked.add(id);
    }
  }
}

/**
 * Applies an event of a card's later life (docs/rails/stripe-issuing.md): the facts are stored,
 * then what the authorization counts is computed from all the facts known (card-life.ts), shared
 * out over the decisions that approved it (its first request's and its increases'), and each
 * decision's capture follows its share. What the card moved above what was approved still counts,
 * on the authorization's first approving decision, as an over-capture. Exactly once per event id,
 * and idempotent beyond that: a repeat under another id computes the same amounts and changes
 * nothing.
 */
export async function applyCardLifeEvent(deps: { db: Db; now?: () => Date }, connection: EndpointConnection, event: CardLifeEvent): Promise<CardLifeResult> {
  return deps.db.transaction().execute(async (trx) => {
    const now = deps.now?.() ?? new Date();
    const claim = await claimRailEvent(trx, connection.id, event.eventId, event.type, now);
    // Deleted after the connection was cached here, before this process heard of it.
    if (claim === 'gone') throw new RailConnectionGone();
    if (claim === 'duplicate') return 'duplicate';
    await recordRailTransactions(trx, connection.id, event.transactions, now);
    // A force post (no authorization): what it captured counts against the card's agent at once.
    if (!event.authorizationId) return (await countForcePosts(trx, connection, event, now)) ? 'applied' : 'recorded';
    // Locks in the order of every spend change: the agents, the decisions, then the facts' record.
    const { answers, approving } = await lockApproving(trx, connection.id, event.authorizationId);
    const current = await lockRailAnswer(trx, connection.id, event.authorizationId);
    // An authorization this service never answered: its captures still count.
    if (!current) return (await countUncovered(trx, connection, event, event.authorizationId, [], now)) ? 'applied' : 'recorded';
    const known = {
      approved: current.stripe_approved,
      status: current.stripe_status,
      amount: current.stripe_amount === null ? null : Number(current.stripe_amount),
      amountAt: current.stripe_amount_at === null ? null : Number(current.stripe_amount_at),
    };
    const facts = event.authorization ? mergeFacts(known, event.authorization, event.created) : known;
    await updateRailAnswer(trx, connection.id, event.authorizationId, { stripe_approved: facts.approved, stripe_status: facts.status, stripe_amount: facts.amount, stripe_amount_at: facts.amountAt, updated_at: now });
    // Declined answers, and approvals on timeout that no decision backs: nothing was approved, yet
    // what the card captured counts, against the card's agent, as a decision-less capture.
    if (approving.length === 0) return (await countUncovered(trx, connection, event, event.authorizationId, answers, now)) ? 'applied' : 'recorded';
    const countedNow = answers.reduce((sum, a) => sum + Number(a.counted_amount), 0);
    const counted = countedAmount(facts, await settlementOf(trx, connection.id, event.authorizationId), countedNow);
    const { shares, approvedTotal } = allocateCounted(counted.amount, approving.map((a) => Number(a.answer.approved_amount)));
    const ref = { type: 'stripe_issuing', connection_id: connection.id, authorization_id: event.authorizationId };
    let changed = false;
    for (const [i, { answer, decision }] of approving.entries()) {
      const share = shares[i]!;
      const adjusted = await adjustCaptureLocked(trx, decision, share.amount, share.over, { type: 'system', id: connection.id }, now, {
        rail: ref,
        reason: counted.reason,
        rail_event_id: event.eventId,
        ...(share.over > 0 ? { over_capture_amount: share.over, approved_for_authorization: approvedTotal } : {}),
      });
      changed ||= adjusted !== undefined;
      if (Number(answer.counted_amount) !== share.amount) await setCountedAmount(trx, connection.id, answer.request_event_id, share.amount, now);
    }
    return changed ? 'applied' : 'unchanged';
  });
}
