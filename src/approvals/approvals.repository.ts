import { sql } from 'kysely';
import type { DbOrTrx, DecisionStatus } from '../db/database.js';
import { afterRow } from '../db/pagination.js';
import type { DecisionRow } from '../authorization/decision.view.js';
import { DECISION_RESOLVED_CHANNEL } from '../authorization/decision-waiter.js';

/** The decision row locked for the transaction, whatever its state. */
export async function lockDecision(db: DbOrTrx, id: string): Promise<DecisionRow | undefined> {
  return db.selectFrom('decisions').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function findDecisionById(db: DbOrTrx, id: string): Promise<DecisionRow | undefined> {
  return db.selectFrom('decisions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateDecision(db: DbOrTrx, id: string, set: Partial<Omit<DecisionRow, 'id' | 'metadata' | 'capture_metadata'>>): Promise<DecisionRow> {
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

export async function pendingDecisionIdsOfAgent(db: DbOrTrx, agentId: string): Promise<string[]> {
  const rows = await db.selectFrom('decisions').select('id').where('agent_id', '=', agentId).where('status', '=', 'pending').execute();
  return rows.map((r) => r.id);
}

/** Pending holds whose `expires_at` is before `cutoff`, the longest overdue first. */
export async function overdueHoldIds(db: DbOrTrx, cutoff: Date, limit: number, accountId?: string): Promise<string[]> {
  let q = db.selectFrom('decisions').select('id').where('status', '=', 'pending').where('expires_at', '<', cutoff);
  if (accountId) q = q.where('account_id', '=', accountId);
  const rows = await q.orderBy('expires_at').limit(limit).execute();
  return rows.map((r) => r.id);
}

/** Held requests (every decision that was ever held), newest first. */
export async function listHeld(
  db: DbOrTrx,
  scope: { accountId: string; livemode: boolean; status?: DecisionStatus | undefined; agentId?: string | undefined },
  limit: number,
  cursorId?: string,
): Promise<DecisionRow[]> {
  let q = db
    .selectFrom('decisions')
    .selectAll()
    .where('account_id', '=', scope.accountId)
    .where('livemode', '=', scope.livemode)
    .where('expires_at', 'is not', null);
  if (scope.status) q = q.where('status', '=', scope.status);
  if (scope.agentId) q = q.where('agent_id', '=', scope.agentId);
  if (cursorId) q = q.where(afterRow('decisions', cursorId, scope));
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/**
 * Holds still pending that were created before `createdBefore` (younger ones are the relay's
 * business), oldest first, across accounts: what the reconciler compares with the engine.
 */
export async function pendingHoldsToReconcile(db: DbOrTrx, createdBefore: Date, limit: number): Promise<DecisionRow[]> {
  return db
    .selectFrom('decisions')
    .selectAll()
    .where('status', '=', 'pending')
    .where('expires_at', 'is not', null)
    .where('created_at', '<', createdBefore)
    .orderBy('created_at')
    .limit(limit)
    .execute();
}
