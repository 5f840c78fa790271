import { sql, type ExpressionBuilder } from 'kysely';
import type { DB, DbOrTrx } from '../db/database.js';
import { inScope } from '../db/scope.js';
import type { DecisionRow } from './decision.view.js';

/**
 * The channel a resolving transaction notifies (`pg_notify`, delivered on commit only) with the
 * decision id; every API process listens on it, so a hold resolved by the worker in another
 * process wakes that process's long-polls.
 */
export const DECISION_RESOLVED_CHANNEL = 'decision_resolved';

/** The decision `id` of the account in the mode; another tenant's is as if it did not exist. */
export async function findDecisionInScope(db: DbOrTrx, accountId: string, livemode: boolean, id: string): Promise<DecisionRow | undefined> {
  return db.selectFrom('decisions').selectAll().where('id', '=', id).$call(inScope({ accountId, livemode })).executeTakeFirst();
}

/** The decision row locked for the transaction, whatever its state. */
export async function lockDecision(db: DbOrTrx, id: string): Promise<DecisionRow | undefined> {
  return db.selectFrom('decisions').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/** Any tenant's decision: for the engine's side (activities, the relay), which acts on ids it was given. */
export async function findDecisionById(db: DbOrTrx, id: string): Promise<DecisionRow | undefined> {
  return db.selectFrom('decisions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateDecision(db: DbOrTrx, id: string, set: Partial<Omit<DecisionRow, 'id' | 'metadata' | 'capture_metadata' | 'signature' | 'capture_signature' | 'mandate'>>): Promise<DecisionRow> {
  const { approvals, ...rest } = set;
  return db
    .updateTable('decisions')
    .set({ ...rest, ...(approvals ? { approvals: JSON.stringify(approvals) } : {}) })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Wakes the long-polls of the decision in every API process, once (and only if) the transaction commits. */
export async function notifyDecisionResolved(db: DbOrTrx, id: string): Promise<void> {
  await sql`SELECT pg_notify(${DECISION_RESOLVED_CHANNEL}, ${id})`.execute(db);
}

/**
 * The agent's row lock, then the decision's: the order every change of an agent's spend takes (an
 * authorization locks the agent alone), so two of them never wait on each other. Returns the
 * decision as locked, whatever its state.
 */
export async function lockAgentThenDecision(trx: DbOrTrx, agentId: string, decisionId: string): Promise<DecisionRow | undefined> {
  await trx.selectFrom('agents').select('id').where('id', '=', agentId).forUpdate().execute();
  return lockDecision(trx, decisionId);
}

/**
 * Marks the token of an uncaptured approval used, in one conditional statement: of concurrent
 * consumers exactly one gets the row back.
 */
export async function consumeToken(db: DbOrTrx, id: string, now: Date): Promise<DecisionRow | undefined> {
  return db.updateTable('decisions').set({ token_consumed_at: now, updated_at: now }).where('id', '=', id).where(stillUsable(now)).returningAll().executeTakeFirst();
}

/**
 * Whether an approval can still be used at `now`: uncaptured, its token unused, inside its capture
 * window. The one rule for a token's consumption and for a rail's match (rule 1), so the two
 * never disagree about which approvals are spendable.
 */
export const stillUsable =
  (now: Date) =>
  (eb: ExpressionBuilder<DB, 'decisions'>) =>
    // The status as a literal: a prepared statement's generic plan can then use the partial index of uncaptured approvals.
    eb.and([eb('capture_status', '=', sql.lit('uncaptured')), eb('token_consumed_at', 'is', null), eb.or([eb('capture_expires_at', 'is', null), eb('capture_expires_at', '>', now)])]);

/**
 * Whether a rail's swipe may take an approval by rule 1 (DECISIONS §17): still usable, and not
 * already a payment. A mandate's approval is one (its token pays), and so is a rail's own approval
 * (captured at once): matched by a swipe, one approval would pay twice. A swipe that was held is
 * no payment (it was declined): once a reviewer approves it, the agent's retry takes it.
 */
export const railMatchable =
  (now: Date) =>
  (eb: ExpressionBuilder<DB, 'decisions'>) =>
    eb.and([stillUsable(now)(eb), eb('mandate', 'is', null), eb.or([eb('rail_type', 'is', null), eb('original_decision', '=', sql.lit('held'))])]);
