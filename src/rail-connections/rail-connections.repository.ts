import { sql } from 'kysely';
import type { DbOrTrx, Plan } from '../db/database.js';
import { afterRow } from '../db/pagination.js';
import { inScope, type Scope } from '../db/scope.js';
import type { RailConnectionRow } from './rail-connection.view.js';

/**
 * The channel a transaction that changes or deletes a connection notifies (`pg_notify`, delivered
 * on commit only) with its id: every API process listens on it and drops the connection from its
 * cache (rail-connection-cache.ts).
 */
export const RAIL_CONNECTION_CHANGED_CHANNEL = 'rail_connection_changed';

/** Tells every API process, once (and only if) the transaction commits, that the connection changed. */
export async function notifyRailConnectionChanged(db: DbOrTrx, id: string): Promise<void> {
  await sql`SELECT pg_notify(${RAIL_CONNECTION_CHANGED_CHANNEL}, ${id})`.execute(db);
}

export async function insertRailConnection(db: DbOrTrx, row: RailConnectionRow): Promise<RailConnectionRow> {
  return db.insertInto('rail_connections').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findRailConnection(db: DbOrTrx, scope: Scope, id: string, forUpdate = false): Promise<RailConnectionRow | undefined> {
  let q = db
    .selectFrom('rail_connections')
    .selectAll()
    .where('id', '=', id)
    .$call(inScope(scope))
    .where('deleted_at', 'is', null);
  if (forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function listRailConnections(db: DbOrTrx, scope: Scope, limit: number, cursorId?: string): Promise<RailConnectionRow[]> {
  let q = db
    .selectFrom('rail_connections')
    .selectAll()
    .$call(inScope(scope))
    .where('deleted_at', 'is', null);
  if (cursorId) q = q.where(afterRow('rail_connections', cursorId, scope));
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export async function markRailConnectionDeleted(db: DbOrTrx, id: string, now: Date): Promise<void> {
  await db.updateTable('rail_connections').set({ deleted_at: now }).where('id', '=', id).execute();
}

/** A live (not deleted) connection by id alone, with its account's plan and limit: what the rail's endpoint needs. */
export async function findRailConnectionForEndpoint(
  db: DbOrTrx,
  id: string,
): Promise<(RailConnectionRow & { plan: Plan; rate_limit: number | null }) | undefined> {
  return db
    .selectFrom('rail_connections as c')
    .innerJoin('accounts as a', 'a.id', 'c.account_id')
    .selectAll('c')
    .select(['a.plan', 'a.rate_limit'])
    .where('c.id', '=', id)
    .where('c.deleted_at', 'is', null)
    .executeTakeFirst();
}
