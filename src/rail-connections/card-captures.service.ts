/**
 * What a card moved that no decision approved (DECISIONS §17, docs/rails/stripe-issuing.md "The
 * card's later life"): a capture on an authorization this service declined, on one Stripe approved
 * on the `on_timeout: approve` answer, on one it never saw, and a force post. The ledger never
 * shows less than the card spent: each counts against the card's agent at once, past its budget if
 * need be, as a decision-less capture with its audit record and event; refunds lower it, never
 * below zero. Run inside the card-life event's transaction.
 */
import type { DbOrTrx } from '../db/database.js';
import { appendAudit } from '../audit/audit.repository.js';
import { changeSpend, periodsOf } from '../decisions/spend.repository.js';
import { emitEvent } from '../events/events.repository.js';
import type { CardLifeEvent } from './card-life.service.js';
import type { RailAnswerRow } from './rail-answers.repository.js';
import { settlementOf } from './rail-answers.repository.js';
import type { EndpointConnection } from './rail-connection-cache.js';
import { agentOfCard, lockAgentIn, lockCardCapture, settlementCurrency, upsertCardCapture } from './card-captures.repository.js';
import { toCardCaptureView } from './card-capture.view.js';

type Target = { authorizationId: string; transactionId: null } | { authorizationId: null; transactionId: string };

/**
 * The card's agent, an agent of the connection's account and mode: the one the authorization's
 * answered request named, else the one the event's card (or cardholder) names, else the one an
 * earlier swipe of that card named. Undefined: no known agent, nothing to count against.
 */
async function cardAgent(trx: DbOrTrx, connection: EndpointConnection, event: CardLifeEvent, answers: readonly RailAnswerRow[]): Promise<string | undefined> {
  // In order, each read only when the ones before it named no agent of this account and mode.
  const candidates = [
    async () => answers.find((a) => a.agent_id !== null)?.agent_id,
    async () => event.card?.agentId ?? undefined,
    async () => (event.card ? agentOfCard(trx, connection.id, event.card.id) : undefined),
  ];
  for (const next of candidates) {
    const id = await next();
    if (id && (await lockAgentIn(trx, id, connection.accountId, connection.livemode))) return id;
  }
  return undefined;
}

/** Sets what one decision-less capture counts; true when it changed. */
async function count(trx: DbOrTrx, connection: EndpointConnection, event: CardLifeEvent, agentId: string, target: Target, amount: number, currency: string, now: Date): Promise<boolean> {
  const key = target.authorizationId ?? `txn:${target.transactionId}`;
  const existing = await lockCardCapture(trx, connection.id, key);
  const before = existing ? Number(existing.counted_amount) : 0;
  const after = Math.max(0, amount);
  if (after === before) return false;
  // A row is counted in the periods it was first counted in, as an approval is in its own.
  const periods = existing ? { month: existing.spend_month, day: existing.spend_day } : periodsOf(now);
  const row = await upsertCardCapture(
    trx,
    {
      connection_id: connection.id,
      capture_key: key,
      authorization_id: target.authorizationId,
      transaction_id: target.transactionId,
      account_id: connection.accountId,
      livemode: connection.livemode,
      agent_id: existing?.agent_id ?? agentId,
      currency: existing?.currency ?? currency,
      counted_amount: after,
      spend_month: periods.month,
      spend_day: periods.day,
    },
    now,
  );
  await changeSpend(trx, row.agent_id, periods, { approved: after - before, reserved: 0 });
  const rail = { type: 'stripe_issuing', connection_id: connection.id, authorization_id: target.authorizationId, transaction_id: target.transactionId };
  await appendAudit(trx, {
    accountId: connection.accountId,
    livemode: connection.livemode,
    type: 'authorization.adjusted',
    actor: { type: 'system', id: connection.id },
    agentId: row.agent_id,
    decisionId: null,
    amount: after,
    currency: row.currency,
    reason: 'decision_less_capture',
    metadata: { rail, rail_event_id: event.eventId, decision_less: true, over_capture_amount: after, previous_captured_amount: before, captured_amount: after },
  });
  await emitEvent(trx, { accountId: connection.accountId, livemode: connection.livemode, type: 'authorization.adjusted', data: toCardCaptureView(row, before), now });
  return true;
}

/** An authorization no decision approved: what its captures took, less refunds, counts. */
export async function countUncovered(trx: DbOrTrx, connection: EndpointConnection, event: CardLifeEvent, authorizationId: string, answers: readonly RailAnswerRow[], now: Date): Promise<boolean> {
  const settled = await settlementOf(trx, connection.id, authorizationId);
  // Nothing captured yet: a hold the rail keeps, or declined, moves no money.
  if (settled.captures === 0) return false;
  const agentId = await cardAgent(trx, connection, event, answers);
  if (!agentId) return false;
  const currency = (await settlementCurrency(trx, connection.id, authorizationId)) ?? 'USD';
  return count(trx, connection, event, agentId, { authorizationId, transactionId: null }, -(settled.captureNet + settled.refundNet), currency, now);
}

/** Force posts (`authorization: null`): each captured transaction counts its whole amount. */
export async function countForcePosts(trx: DbOrTrx, connection: EndpointConnection, event: CardLifeEvent, now: Date): Promise<boolean> {
  const captures = event.transactions.filter((t) => t.authorizationId === null && t.type === 'capture' && t.amount < 0);
  if (captures.length === 0) return false;
  const agentId = await cardAgent(trx, connection, event, []);
  if (!agentId) return false;
  let changed = false;
  for (const t of captures) changed = (await count(trx, connection, event, agentId, { authorizationId: null, transactionId: t.id }, -t.amount, t.currency, now)) || changed;
  return changed;
}
