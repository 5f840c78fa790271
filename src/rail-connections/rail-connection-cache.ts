import type { Database } from '../db/connect.js';
import type { Db, Plan } from '../db/database.js';
import type { ResponseCipher } from '../idempotency/response-cipher.js';
import { AppError } from '../kernel/errors.js';
import { findRailConnectionForEndpoint, RAIL_CONNECTION_CHANGED_CHANNEL } from './rail-connections.repository.js';
import type { OnTimeout } from './rail-connections.schemas.js';
import { secretScope } from './signing-secret.js';

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

/**
 * An unknown or deleted connection, wherever it is found out: the endpoint's refusal (400, `id`),
 * thrown also by the queries of a request whose cached connection was deleted meanwhile.
 */
export class RailConnectionGone extends AppError {
  constructor() {
    super('invalid_request', 'No such rail connection.', 'id');
  }
}

/**
 * A change to a connection reaches every process by notification before its request answers, and
 * the swipe's own queries check that it is live; this bounds what neither covers (an account's plan
 * or limit changed in the database by hand).
 */
export const RAIL_CONNECTION_CACHE_MAX_AGE_MS = 60_000;
/** Far above the connections one deployment has; the least recently used is forgotten first. */
export const MAX_CACHED_RAIL_CONNECTIONS = 5_000;

interface Entry {
  connection: EndpointConnection;
  expires: number;
}

/**
 * Connections as the rail's endpoint reads them, each read once per process: a swipe costs no
 * query and no decryption for its connection. Only connections that exist are remembered (an
 * unknown id costs its read each time, and no memory), at most MAX_CACHED_RAIL_CONNECTIONS of them.
 *
 * A deletion drops the connection in the deleting process at once and in every other through
 * RAIL_CONNECTION_CHANGED_CHANNEL (listenForRailConnectionChanges); a listening connection that was
 * lost empties the cache, as notifications may have been missed. Delivery is asynchronous, so the
 * swipe's first query and a card event's claim also check that the connection is live and throw
 * RailConnectionGone when it is not: a request that arrives after the DELETE answered is refused
 * whatever the cache holds.
 */
export class RailConnectionCache {
  /** In recency order: a hit moves its entry to the end, the first is the least recently used. */
  private readonly entries = new Map<string, Entry>();
  /** Reads under way: concurrent requests for a connection not yet cached share one. */
  private readonly loading = new Map<string, Promise<EndpointConnection | undefined>>();
  /** Connections dropped by a deletion, for requests that already hold them. */
  private readonly dropped = new WeakSet<EndpointConnection>();
  /** Moves on every drop and clear: a read that began before one is answered but not remembered. */
  private generation = 0;
  private readonly maxAgeMs: number;
  private readonly maxEntries: number;

  constructor(
    private readonly deps: { db: Db; secrets: ResponseCipher },
    opts: { maxAgeMs?: number; maxEntries?: number } = {},
  ) {
    this.maxAgeMs = opts.maxAgeMs ?? RAIL_CONNECTION_CACHE_MAX_AGE_MS;
    this.maxEntries = opts.maxEntries ?? MAX_CACHED_RAIL_CONNECTIONS;
  }

  /** Connections remembered now. */
  get size(): number {
    return this.entries.size;
  }

  /** Undefined for an unknown or deleted connection, or one whose secret does not open (the server key changed). */
  get(id: string): Promise<EndpointConnection | undefined> {
    const hit = this.entries.get(id);
    if (hit) {
      this.entries.delete(id);
      if (hit.expires > Date.now()) {
        this.entries.set(id, hit);
        return Promise.resolve(hit.connection);
      }
    }
    const under = this.loading.get(id);
    if (under) return under;
    const read = this.read(id).finally(() => {
      if (this.loading.get(id) === read) this.loading.delete(id);
    });
    this.loading.set(id, read);
    return read;
  }

  /** A deleted connection: forgotten, and marked for the requests that hold it. */
  drop(id: string): void {
    this.generation += 1;
    this.loading.delete(id);
    const entry = this.entries.get(id);
    if (!entry) return;
    this.dropped.add(entry.connection);
    this.entries.delete(id);
  }

  /** Everything forgotten (notifications may have been missed): each connection is read again. */
  clear(): void {
    this.generation += 1;
    this.loading.clear();
    this.entries.clear();
  }

  /** Whether a deletion dropped this connection since it was read. */
  isDropped(connection: EndpointConnection): boolean {
    return this.dropped.has(connection);
  }

  private async read(id: string): Promise<EndpointConnection | undefined> {
    const generation = this.generation;
    const row = await findRailConnectionForEndpoint(this.deps.db, id);
    const signingSecret = row && this.deps.secrets.open(row.signing_secret_sealed, secretScope(row));
    if (!row || !signingSecret) return undefined;
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
    // A drop or clear while the row was read may be this connection's deletion.
    if (generation !== this.generation) return connection;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(id, { connection, expires: Date.now() + this.maxAgeMs });
    return connection;
  }
}

/**
 * Feeds `cache` the connections changed in any process; returns the function that stops listening.
 * Awaited before the process serves, so no deletion committed after it began serving is missed.
 */
export function listenForRailConnectionChanges(database: Pick<Database, 'listen'>, cache: RailConnectionCache): Promise<() => Promise<void>> {
  return database.listen(RAIL_CONNECTION_CHANGED_CHANNEL, (id) => cache.drop(id), () => cache.clear());
}
