import type { Insertable } from 'kysely';
import type { DbOrTrx, MandatesTable, Selectable } from '../db/database.js';
import { afterRow } from '../db/pagination.js';
import { inScope, type Scope } from '../db/scope.js';
import { MANDATE_CLOCK_SKEW_SECONDS } from './mandate-deps.js';

/**
 * The mandates' own SQL (DECISIONS §20). A leaf: it imports the database layer only, so the
 * revocation hooks of agent keys and agents can use it without a cycle among features.
 */

export type MandateRow = Selectable<MandatesTable>;
/** What a list filters on: a stored status, or `expired` (active past `expires_at`, read at `now`). */
export type MandateListStatus = 'active' | 'used' | 'revoked' | 'expired';

export async function insertMandate(db: DbOrTrx, row: Insertable<MandatesTable>): Promise<MandateRow> {
  return db.insertInto('mandates').values(row).returningAll().executeTakeFirstOrThrow();
}

/** One mandate of the scope (and of `agentId` when given); `forUpdate` locks its row. */
export async function findMandate(db: DbOrTrx, scope: Scope, id: string, opts: { agentId?: string | null | undefined; forUpdate?: boolean } = {}): Promise<MandateRow | undefined> {
  let q = db.selectFrom('mandates').selectAll().where('id', '=', id).$call(inScope(scope));
  if (opts.agentId) q = q.where('agent_id', '=', opts.agentId);
  if (opts.forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

/** Mandates of the scope, newest first, by agent and status (`expired` and `active` split at `now`). */
export async function listMandates(
  db: DbOrTrx,
  scope: Scope,
  filter: { agentId?: string | undefined; status?: MandateListStatus | undefined; now: Date },
  limit: number,
  cursorId?: string,
): Promise<MandateRow[]> {
  let q = db.selectFrom('mandates').selectAll().$call(inScope(scope));
  if (filter.agentId) q = q.where('agent_id', '=', filter.agentId);
  switch (filter.status) {
    case 'active':
      q = q.where('status', '=', 'active').where('expires_at', '>', filter.now);
      break;
    case 'expired':
      q = q.where('status', '=', 'active').where('expires_at', '<=', filter.now);
      break;
    case 'used':
    case 'revoked':
      q = q.where('status', '=', filter.status);
      break;
    default:
      break;
  }
  if (cursorId) q = q.where(afterRow('mandates', cursorId, scope));
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** The revoked rows: what a revocation changed, for its audit records. */
export type RevokedMandate = Pick<MandateRow, 'id' | 'account_id' | 'livemode' | 'agent_id' | 'agent_key_id'>;

/**
 * Revokes the mandates `which` selects that are still live at `at`: active, and not expired by more
 * than the clock skew a presentation's `exp` is allowed (DECISIONS §20 step 4), since until then one
 * may still be accepted. Used, revoked and long-expired ones have nothing left to revoke and stay as
 * they are. The rows are locked in id order first, so two revocations sweeping the same mandates
 * never deadlock.
 */
async function revokeLive(db: DbOrTrx, which: { id?: string; agentKeyId?: string; agentId?: string }, at: Date): Promise<RevokedMandate[]> {
  const presentableSince = new Date(at.getTime() - MANDATE_CLOCK_SKEW_SECONDS * 1000);
  let live = db.selectFrom('mandates').select('id').where('status', '=', 'active').where('expires_at', '>', presentableSince);
  if (which.id) live = live.where('id', '=', which.id);
  if (which.agentKeyId) live = live.where('agent_key_id', '=', which.agentKeyId);
  if (which.agentId) live = live.where('agent_id', '=', which.agentId);
  const locked = await live.orderBy('id').forUpdate().execute();
  if (locked.length === 0) return [];
  return db
    .updateTable('mandates')
    .set({ status: 'revoked', revoked_at: at })
    .where(
      'id',
      'in',
      locked.map((r) => r.id),
    )
    .where('status', '=', 'active')
    .returning(['id', 'account_id', 'livemode', 'agent_id', 'agent_key_id'])
    .execute()
    .then((rows) => rows.sort((a, b) => (a.id < b.id ? -1 : 1)));
}

/** One mandate, if still live; undefined when it was not (nothing changed). */
export async function revokeMandateRow(db: DbOrTrx, id: string, at: Date): Promise<RevokedMandate | undefined> {
  return (await revokeLive(db, { id }, at))[0];
}

/** Every live mandate whose `cnf` is this agent key. */
export const revokeMandatesOfKeyRows = (db: DbOrTrx, agentKeyId: string, at: Date) => revokeLive(db, { agentKeyId }, at);

/** Every live mandate of this agent. */
export const revokeMandatesOfAgentRows = (db: DbOrTrx, agentId: string, at: Date) => revokeLive(db, { agentId }, at);

/** The agent's active P-256 keys (the ones a mandate's `cnf` may be), oldest first. */
export async function activeP256Keys(db: DbOrTrx, scope: Scope, agentId: string, forShare = false) {
  let q = db
    .selectFrom('agent_keys')
    .select(['id', 'jwk'])
    .where('agent_id', '=', agentId)
    .where('status', '=', 'active')
    .where('alg', '=', 'ecdsa-p256-sha256')
    .$call(inScope(scope));
  if (forShare) q = q.forShare();
  return q.orderBy('created_at').orderBy('id').execute();
}

/** An agent key of the scope as a mandate needs it (any agent, any status: the caller checks). */
export async function findKeyForMandate(db: DbOrTrx, scope: Scope, keyId: string, forShare = false) {
  let q = db.selectFrom('agent_keys').select(['id', 'agent_id', 'alg', 'status', 'jwk']).where('id', '=', keyId).$call(inScope(scope));
  if (forShare) q = q.forShare();
  return q.executeTakeFirst();
}
