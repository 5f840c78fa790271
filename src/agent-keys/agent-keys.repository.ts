import { sql } from 'kysely';
import type { AgentKeysTable, DbOrTrx, Selectable } from '../db/database.js';
import { afterRow } from '../db/pagination.js';
import { inScope, type Scope } from '../db/scope.js';

/** An agent key as read: its row, and the origin of the directory it is tied to (null when none). */
export type AgentKeyRow = Selectable<AgentKeysTable> & { directory_url: string | null };
export type AgentKeyStatus = AgentKeyRow['status'];

export type NewAgentKey = Omit<Selectable<AgentKeysTable>, 'status' | 'last_used_at' | 'revoked_at'>;

/** Inserts an active key; a thumbprint already active in the account and mode fails with 23505 (agent_keys_active_thumbprint). */
export async function insertAgentKey(db: DbOrTrx, row: NewAgentKey, directoryUrl: string | null): Promise<AgentKeyRow> {
  const inserted = await db
    .insertInto('agent_keys')
    .values({ ...row, jwk: JSON.stringify(row.jwk), status: 'active', last_used_at: null, revoked_at: null })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { ...inserted, directory_url: directoryUrl };
}

const withDirectory = (db: DbOrTrx) =>
  db
    .selectFrom('agent_keys')
    .leftJoin('agent_key_directories as d', 'd.id', 'agent_keys.directory_id')
    .selectAll('agent_keys')
    .select('d.origin as directory_url');

/** One key of one agent, in scope; `forUpdate` locks the key's row. */
export async function findAgentKey(db: DbOrTrx, scope: Scope, agentId: string, id: string, forUpdate = false): Promise<AgentKeyRow | undefined> {
  let q = withDirectory(db).where('agent_keys.id', '=', id).where('agent_keys.agent_id', '=', agentId).$call(inScope(scope, 'agent_keys'));
  if (forUpdate) q = q.forUpdate('agent_keys');
  return q.executeTakeFirst();
}

/** An agent's keys, newest first (the agent_keys_by_agent index), `status` optional. */
export async function listAgentKeys(db: DbOrTrx, scope: Scope, agentId: string, status: AgentKeyStatus | undefined, limit: number, cursorId?: string): Promise<AgentKeyRow[]> {
  let q = withDirectory(db).where('agent_keys.agent_id', '=', agentId).$call(inScope(scope, 'agent_keys'));
  if (status) q = q.where('agent_keys.status', '=', status);
  if (cursorId) q = q.where(afterRow('agent_keys', cursorId, scope));
  return q.orderBy('agent_keys.created_at', 'desc').orderBy('agent_keys.id', 'desc').limit(limit).execute();
}

export async function countActiveAgentKeys(db: DbOrTrx, agentId: string): Promise<number> {
  const row = await db
    .selectFrom('agent_keys')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('agent_id', '=', agentId)
    .where('status', '=', 'active')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Whether a thumbprint is active on any agent of the scope (the partial unique index decides races). */
export async function thumbprintActive(db: DbOrTrx, scope: Scope, thumbprint: string): Promise<boolean> {
  const row = await db
    .selectFrom('agent_keys')
    .select(sql<number>`1`.as('one'))
    .where('thumbprint', '=', thumbprint)
    .where('status', '=', 'active')
    .$call(inScope(scope))
    .executeTakeFirst();
  return row !== undefined;
}

/** Moves an active key to revoked; undefined when it was revoked already (a revoked key's row never changes again). */
export async function revokeAgentKey(db: DbOrTrx, id: string, at: Date): Promise<Selectable<AgentKeysTable> | undefined> {
  return db.updateTable('agent_keys').set({ status: 'revoked', revoked_at: at }).where('id', '=', id).where('status', '=', 'active').returningAll().executeTakeFirst();
}
