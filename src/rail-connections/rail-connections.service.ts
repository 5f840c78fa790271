import { actorOf, ADMIN, requireRole, STAFF, type Caller } from '../kernel/caller.js';
import type { Db, DbOrTrx, Plan } from '../db/database.js';
import { listPage, type Page } from '../db/pagination.js';
import { appendAudit } from '../audit/audit.repository.js';
import { notFound } from '../kernel/errors.js';
import { newId } from '../kernel/ids.js';
import type { ResponseCipher } from '../idempotency/response-cipher.js';
import {
  findRailConnection,
  findRailConnectionForEndpoint,
  insertRailConnection,
  listRailConnections as listRows,
  markRailConnectionDeleted,
} from './rail-connections.repository.js';
import { DEFAULT_STRIPE_VERSION, type CreateRailConnectionInput, type ListRailConnectionsQuery, type OnTimeout } from './rail-connections.schemas.js';
import { toRailConnectionView, type DeletedRailConnectionView, type RailConnectionRow, type RailConnectionView } from './rail-connection.view.js';

export interface RailConnectionDeps {
  db: Db;
  /** Seals signing secrets at rest (signing-secret.ts). */
  secrets: ResponseCipher;
  /** The rail endpoint's cache of connections: a deletion drops its entry at once. */
  cache?: RailConnectionCache;
}

/** The authenticated data a sealed secret is bound to: its own connection. */
const secretScope = (row: Pick<RailConnectionRow, 'id' | 'account_id'>) => `rail_connection:${row.account_id}:${row.id}`;

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

/** From now on its endpoint refuses every request; its past answers and decisions stay. */
export async function deleteRailConnection(deps: RailConnectionDeps, caller: Caller, id: string): Promise<DeletedRailConnectionView> {
  requireRole(caller, ADMIN);
  await deps.db.transaction().execute(async (trx) => {
    const row = await findRailConnection(trx, caller, id, true);
    if (!row) throw notFound('rail connection', 'id');
    await markRailConnectionDeleted(trx, id, new Date());
    await audit(trx, caller, 'rail_connection.deleted', row);
  });
  deps.cache?.drop(id);
  return { id, object: 'rail_connection', deleted: true };
}

/** What the rail's endpoint knows of a connection, its secret opened. */
export interface EndpointConnection {
  id: string;
  accountId: string;
  livemode: boolean;
  signingSecret: string;
  stripeVersion: string;
  onTimeout: OnTimeout;
  plan: Plan;
  rateLimit: number | null;
}

/** Another process's deletion is honoured within this time; this process's at once. */
export const RAIL_CONNECTION_CACHE_TTL_MS = 5_000;
const MAX_CACHED_CONNECTIONS = 10_000;

/**
 * Connections as the rail's endpoint reads them, remembered briefly: a card swipe is answered
 * within the deadline even while the database is slow, as long as its connection was seen in the
 * last few seconds. Unknown ids are never remembered (a new connection works at once).
 */
export class RailConnectionCache {
  private readonly entries = new Map<string, { connection: EndpointConnection; expires: number }>();

  constructor(
    private readonly deps: Pick<RailConnectionDeps, 'db' | 'secrets'>,
    private readonly ttlMs = RAIL_CONNECTION_CACHE_TTL_MS,
  ) {}

  /** Undefined for an unknown or deleted connection, or one whose secret does not open (the server key changed). */
  async get(id: string): Promise<EndpointConnection | undefined> {
    const now = Date.now();
    const hit = this.entries.get(id);
    if (hit && hit.expires > now) return hit.connection;
    const row = await findRailConnectionForEndpoint(this.deps.db, id);
    const signingSecret = row && this.deps.secrets.open(row.signing_secret_sealed, secretScope(row));
    if (!row || !signingSecret) {
      this.entries.delete(id);
      return undefined;
    }
    const connection: EndpointConnection = {
      id: row.id,
      accountId: row.account_id,
      livemode: row.livemode,
      signingSecret,
      stripeVersion: row.stripe_version,
      onTimeout: row.on_timeout,
      plan: row.plan,
      rateLimit: row.rate_limit,
    };
    if (this.entries.size >= MAX_CACHED_CONNECTIONS) this.entries.clear();
    this.entries.set(id, { connection, expires: now + this.ttlMs });
    return connection;
  }

  drop(id: string): void {
    this.entries.delete(id);
  }
}
