import { actorOf, ADMIN, requireRole, STAFF, type Caller } from '../kernel/caller.js';
import type { Db, DbOrTrx } from '../db/database.js';
import { listPage, type Page } from '../db/pagination.js';
import { appendAudit } from '../audit/audit.repository.js';
import { notFound } from '../kernel/errors.js';
import { newId } from '../kernel/ids.js';
import type { ResponseCipher } from '../idempotency/response-cipher.js';
import {
  findRailConnection,
  insertRailConnection,
  listRailConnections as listRows,
  markRailConnectionDeleted,
  notifyRailConnectionChanged,
} from './rail-connections.repository.js';
import type { RailConnectionCache } from './rail-connection-cache.js';
import { DEFAULT_STRIPE_VERSION, type CreateRailConnectionInput, type ListRailConnectionsQuery } from './rail-connections.schemas.js';
import { toRailConnectionView, type DeletedRailConnectionView, type RailConnectionRow, type RailConnectionView } from './rail-connection.view.js';
import { secretScope } from './signing-secret.js';

export type { EndpointConnection } from './rail-connection-cache.js';

export interface RailConnectionDeps {
  db: Db;
  /** Seals signing secrets at rest (signing-secret.ts). */
  secrets: ResponseCipher;
  /** This process's cache of connections for the rail endpoint: a deletion drops its entry at once. */
  cache?: RailConnectionCache;
}

const audit = (trx: DbOrTrx, caller: Caller, type: string, row: RailConnectionRow) =>
  appendAudit(trx, {
    accountId: caller.accountId,
    livemode: caller.livemode,
    type,
    actor: actorOf(caller),
    metadata: { rail_connection_id: row.id, rail_type: row.type, stripe_version: row.stripe_version, on_timeout: row.on_timeout },
  });

export async function createRailConnection(deps: RailConnectionDeps, caller: Caller, input: CreateRailConnectionInput, baseUrl: string): Promise<RailConnectionView> {
  requireRole(caller, ADMIN);
  const id = newId('rail');
  return deps.db.transaction().execute(async (trx) => {
    const row = await insertRailConnection(trx, {
      id,
      account_id: caller.accountId,
      livemode: caller.livemode,
      type: input.type,
      signing_secret_sealed: deps.secrets.seal(input.signing_secret, secretScope({ id, account_id: caller.accountId })),
      stripe_version: input.stripe_version ?? DEFAULT_STRIPE_VERSION,
      on_timeout: input.on_timeout ?? 'decline',
      created_at: new Date(),
      deleted_at: null,
    });
    await audit(trx, caller, 'rail_connection.created', row);
    return toRailConnectionView(row, baseUrl);
  });
}

export async function getRailConnection(deps: RailConnectionDeps, caller: Caller, id: string, baseUrl: string): Promise<RailConnectionView> {
  requireRole(caller, STAFF);
  const row = await findRailConnection(deps.db, caller, id);
  if (!row) throw notFound('rail connection', 'id');
  return toRailConnectionView(row, baseUrl);
}

export async function listRailConnections(deps: RailConnectionDeps, caller: Caller, q: ListRailConnectionsQuery, baseUrl: string): Promise<Page<RailConnectionView>> {
  requireRole(caller, STAFF);
  return listPage(q, (limit, after) => listRows(deps.db, caller, limit, after), (r) => toRailConnectionView(r, baseUrl));
}

/**
 * From now on its endpoint refuses every request; its past answers and decisions stay. Every API
 * process is notified on commit, and the endpoint's queries check that the connection is live, so
 * a request that arrives after this answered is refused in every process (rail-connection-cache.ts).
 */
export async function deleteRailConnection(deps: RailConnectionDeps, caller: Caller, id: string): Promise<DeletedRailConnectionView> {
  requireRole(caller, ADMIN);
  await deps.db.transaction().execute(async (trx) => {
    const row = await findRailConnection(trx, caller, id, true);
    if (!row) throw notFound('rail connection', 'id');
    await markRailConnectionDeleted(trx, id, new Date());
    await audit(trx, caller, 'rail_connection.deleted', row);
    await notifyRailConnectionChanged(trx, id);
  });
  deps.cache?.drop(id);
  return { id, object: 'rail_connection', deleted: true };
}
