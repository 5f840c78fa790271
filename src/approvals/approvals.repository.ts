import type { DbOrTrx, DecisionStatus } from '../db/database.js';
import { afterRow } from '../db/pagination.js';
import type { DecisionRow } from '../decisions/decision.view.js';
import { inScope } from '../db/scope.js';

/**
 * The agent's and the policy's names of a hold, for the engine's view of it (null when not found).
 * Read when its workflow is started, not kept in the outbox row: the start stays keyed by the
 * workflow id alone, and a repeated start (USE_EXISTING) changes nothing whatever the names are.
 */
export async function findHoldNames(db: DbOrTrx, decision: Pick<DecisionRow, 'agent_id' | 'policy_id'>): Promise<{ agentName: string | null; policyName: string | null }> {
  const row = await db
    .selectNoFrom((eb) => [
      eb.selectFrom('agents').select('name').where('id', '=', decision.agent_id).as('agent_name'),
      eb.selectFrom('policies').select('name').where('id', '=', decision.policy_id ?? '').as('policy_name'),
    ])
    .executeTakeFirst();
  return { agentName: row?.agent_name ?? null, policyName: row?.policy_name ?? null };
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
    .$call(inScope(scope))
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
