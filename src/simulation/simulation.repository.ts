import type { DbOrTrx } from '../db/database.js';
import { inScope, type Scope } from '../db/scope.js';

/** The identity check of each of these agents of the scope (others are left out). */
export async function agentKycStatuses(db: DbOrTrx, scope: Scope, agentIds: readonly string[]) {
  return db.selectFrom('agents').select(['id', 'kyc_status']).$call(inScope(scope)).where('id', 'in', agentIds).execute();
}

/** What the agents asked for in [from, to), oldest first: the state a replay starts from. */
export async function decisionsOfAgentsBetween(db: DbOrTrx, agentIds: readonly string[], from: Date, to: Date) {
  return db
    .selectFrom('decisions')
    .select(['agent_id', 'amount', 'currency', 'vendor', 'original_decision', 'status', 'resolved_at', 'created_at'])
    .where('agent_id', 'in', agentIds)
    .where('created_at', '>=', from)
    .where('created_at', '<', to)
    .orderBy('created_at')
    .execute();
}

/** The scope's recorded requests in [from, to), of one policy or agent when given, oldest first, at most `limit`. */
export async function recordedRequests(
  db: DbOrTrx,
  scope: Scope,
  f: { from: Date; to: Date; policyId?: string | undefined; agentId?: string | undefined },
  limit: number,
) {
  let q = db
    .selectFrom('decisions')
    .select(['id', 'agent_id', 'amount', 'currency', 'vendor', 'category', 'metadata', 'idempotency_key', 'created_at', 'original_decision', 'original_reason_code'])
    .$call(inScope(scope))
    .where('created_at', '>=', f.from)
    .where('created_at', '<', f.to);
  if (f.policyId) q = q.where('policy_id', '=', f.policyId);
  if (f.agentId) q = q.where('agent_id', '=', f.agentId);
  return q.orderBy('created_at').orderBy('id').limit(limit).execute();
}
