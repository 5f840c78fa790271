import type { Selectable, AgentsTable, AgentStatus, DbOrTrx } from '../db/database.js';
import { afterRow } from '../db/pagination.js';
import { inScope } from '../db/scope.js';

export type AgentRow = Selectable<AgentsTable>;

export async function insertAgent(db: DbOrTrx, row: Omit<AgentRow, 'decision_seq'>) {
  return db
    .insertInto('agents')
    .values({ ...row, metadata: JSON.stringify(row.metadata) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findAgentInScope(db: DbOrTrx, accountId: string, livemode: boolean, id: string, forUpdate = false) {
  let q = db
    .selectFrom('agents')
    .selectAll()
    .where('id', '=', id)
    .$call(inScope({ accountId, livemode }));
  if (forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

export interface AgentUpdate {
  name?: string;
  policy_id?: string;
  status?: AgentStatus;
  kyc_status?: AgentRow['kyc_status'];
  metadata?: Record<string, unknown>;
}

export async function updateAgent(db: DbOrTrx, id: string, update: AgentUpdate): Promise<AgentRow> {
  const { metadata, ...rest } = update;
  return db
    .updateTable('agents')
    .set({ ...rest, ...(metadata ? { metadata: JSON.stringify(metadata) } : {}), updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function listAgents(
  db: DbOrTrx,
  scope: { accountId: string; livemode: boolean; status?: AgentStatus | undefined; policyId?: string | undefined },
  limit: number,
  cursorId?: string,
) {
  let q = db
    .selectFrom('agents')
    .selectAll()
    .$call(inScope(scope));
  if (scope.status) q = q.where('status', '=', scope.status);
  if (scope.policyId) q = q.where('policy_id', '=', scope.policyId);
  if (cursorId) q = q.where(afterRow('agents', cursorId, scope));
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}
