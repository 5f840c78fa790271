import fs from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect, sql, type Dialect, type Driver, type KyselyConfig } from 'kysely';
import pg from 'pg';
import type { DB, Db } from './database.js';
import { lockDataDir } from './data-dir-lock.js';
import { usePreparedStatements } from './prepared.js';

/**
 * Pooled PostgreSQL connections of an API process (`serve`). Few: every connection is a server
 * process, and past a few per PostgreSQL core they add context switches and lock traffic, not
 * throughput (8 against 20 on a 2-core machine: 12% more decisions a second, 17% less PostgreSQL
 * CPU per decision).
 */
export const API_DATABASE_POOL_SIZE = 8;
/** `worker` and `dev` (and the CLI's commands): the worker's 18 activity slots each get a connection. */
export const DEFAULT_DATABASE_POOL_SIZE = 20;

const INT8_OID = 20;
const NUMERIC_OID = 1700;

export interface Database {
  db: Db;
  /** `postgres` for a server reached through DATABASE_URL, `embedded` for PGlite. */
  kind: 'postgres' | 'embedded';
  /**
   * LISTENs on `channel` for the process: `onMessage` gets each committed notification's payload.
   * On PostgreSQL one dedicated connection (not a pooled one) listens on every channel asked for
   * and is re-opened when lost, after which each `onReconnect` is called (notifications sent
   * meanwhile are gone). Returns the stop function; stop before `close`.
   */
  listen(channel: string, onMessage: (payload: string) => void, onReconnect?: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** How long a lost listening connection waits before it is opened again. */
export const LISTEN_RETRY_MS = 1_000;

/** The first connection is awaited (bounded), so the process listens before it serves; a failure is retried in the background. */
const LISTEN_CONNECT_TIMEOUT_MS = 5_000;

interface Subscription {
  channel: string;
  onMessage: (payload: string) => void;
  onReconnect: (() => void) | undefined;
}

/**
 * The process's one listening connection on PostgreSQL, shared by every channel asked for: it
 * LISTENs on each in the order they were first asked for, and is opened again, on all of them,
 * when lost. Closed when the last subscription stops.
 */
function postgresListener(connectionString: string): Database['listen'] {
  const subscriptions = new Set<Subscription>();
  let client: pg.Client | undefined;
  /** The channels `client` LISTENs on. */
  let listening = new Set<string>();
  let opening: Promise<void> | undefined;
  let retry: NodeJS.Timeout | undefined;
  let active = false;
  const channels = () => [...new Set([...subscriptions].map((s) => s.channel))];

  const open = async (again: boolean) => {
    const c = new pg.Client({ connectionString, connectionTimeoutMillis: LISTEN_CONNECT_TIMEOUT_MS });
    c.on('notification', (n) => {
      if (!n.payload) return;
      for (const s of subscriptions) if (s.channel === n.channel) s.onMessage(n.payload);
    });
    // A lost connection ends the client: 'end' schedules the next one.
    c.on('error', () => {});
    c.on('end', () => {
      if (client === c) {
        client = undefined;
        listening = new Set();
      }
      if (active) schedule();
    });
    const wanted = channels();
    try {
      await c.connect();
      for (const channel of wanted) await c.query(`LISTEN ${c.escapeIdentifier(channel)}`);
    } catch {
      await c.end().catch(() => {});
      if (active) schedule();
      return;
    }
    if (!active) return void (await c.end().catch(() => {}));
    client = c;
    listening = new Set(wanted);
    if (again) for (const s of [...subscriptions]) s.onReconnect?.();
  };
  const schedule = () => {
    clearTimeout(retry);
    retry = setTimeout(() => {
      retry = undefined;
      void open(true);
    }, LISTEN_RETRY_MS);
    retry.unref();
  };
  /** A channel first asked for once the connection is open; a failure means the connection is lost, and its reopening LISTENs on it. */
  const listenOn = async (channel: string) => {
    if (!client || listening.has(channel)) return;
    listening.add(channel);
    await client.query(`LISTEN ${client.escapeIdentifier(channel)}`).catch(() => {});
  };

  return async (channel, onMessage, onReconnect) => {
    const subscription: Subscription = { channel, onMessage, onReconnect };
    subscriptions.add(subscription);
    active = true;
    if (!client && !opening && !retry) {
      opening = open(false).finally(() => (opening = undefined));
    }
    if (opening) await opening;
    await listenOn(channel);
    return async () => {
      // A channel nobody asks for any more stays LISTENed; its notifications reach no one.
      subscriptions.delete(subscription);
      if (subscriptions.size > 0) return;
      active = false;
      clearTimeout(retry);
      retry = undefined;
      const c = client;
      client = undefined;
      listening = new Set();
      await c?.end().catch(() => {});
    };
  };
}

/** Resolves once the database answers a trivial query; throws when it does not (readiness probes). */
export async function pingDatabase(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}

export interface ConnectOptions {
  databaseUrl?: string | undefined;
  /** Directory for the embedded database; `memory://` keeps it in memory (tests). */
  dataDir?: string;
  /** PostgreSQL connections this process pools (DATABASE_POOL_SIZE); default DEFAULT_DATABASE_POOL_SIZE (`serve` asks for API_DATABASE_POOL_SIZE). */
  poolSize?: number;
  /** How long a query waits for a pooled connection before failing (503 to the client). */
  connectTimeoutMs?: number;
  /** Told of every query sent (tests count them); absent, nothing is added to the query path. */
  onQuery?: (sql: string) => void;
  /** Wraps the database driver (fault tests lose a COMMIT's answer with it); absent, nothing is added. */
  wrapDriver?: (driver: Driver) => Driver;
  /**
   * Embedded only: a data directory saved with PGlite's dumpDataDir to start from instead of an
   * empty one. The tests start each file's database from one migrated copy (starting one
   * empty costs a few seconds of initdb, then every migration).
   */
  loadDataDir?: Blob;
}

function withDriver(dialect: Dialect, wrap: ConnectOptions['wrapDriver']): Dialect {
  if (!wrap) return dialect;
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => wrap(dialect.createDriver()),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}

function queryLog(opts: ConnectOptions): KyselyConfig['log'] {
  const onQuery = opts.onQuery;
  return onQuery && ((event) => onQuery(event.query.sql));
}

/**
 * Money and counters are bigint columns holding safe integers (validated on the way in),
 * so they are read back as JS numbers.
 */
export async function connectDatabase(opts: ConnectOptions): Promise<Database> {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: opts.poolSize ?? DEFAULT_DATABASE_POOL_SIZE,
      connectionTimeoutMillis: opts.connectTimeoutMs ?? 5_000,
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === INT8_OID || oid === NUMERIC_OID
            ? (v: string) => Number(v)
            : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    });
    // A client that loses its server (idle in the pool, or checked out mid-transaction) must not
    // crash the process: the query in flight fails, the pool replaces the client.
    pool.on('error', () => {});
    pool.on('connect', (client) => {
      client.on('error', () => {});
      usePreparedStatements(client);
    });
    const db = new Kysely<DB>({ dialect: withDriver(new PostgresDialect({ pool }), opts.wrapDriver), log: queryLog(opts) });
    return {
      db,
      kind: 'postgres',
      listen: postgresListener(opts.databaseUrl),
      close: () => db.destroy(),
    };
  }

  const { PGlite, types } = await import('@electric-sql/pglite');
  const { PGliteDialect } = await import('kysely-pglite-dialect');
  const dataDir = opts.dataDir ?? './.data';
  let location = dataDir;
  let unlock = () => {};
  if (!dataDir.startsWith('memory://')) {
    location = path.join(dataDir, 'pgdata');
    fs.mkdirSync(location, { recursive: true });
    unlock = lockDataDir(dataDir);
  }
  const toNumber = (v: string) => Number(v);
  let client;
  try {
    client = await PGlite.create(location, {
      parsers: { [types.INT8]: toNumber, [types.NUMERIC]: toNumber },
      ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}),
    });
  } catch (err) {
    unlock();
    throw err;
  }
  const db = new Kysely<DB>({ dialect: withDriver(new PGliteDialect(client), opts.wrapDriver), log: queryLog(opts) });
  const pglite = client;
  return {
    db,
    kind: 'embedded',
    // One process owns the embedded database, and PGlite delivers a notification on commit.
    listen: (channel, onMessage) => pglite.listen(channel, onMessage),
    close: async () => {
      try {
        await db.destroy();
      } finally {
        unlock();
      }
    },
  };
}

/**
 * One line for an operator when PostgreSQL cannot be used at all (a CLI command or start-up), or
 * undefined for any other error. Never shows the password of the URL.
 */
export function describeDatabaseError(err: unknown, databaseUrl: string | undefined): string | undefined {
  if (!databaseUrl) return undefined;
  // pg reports a host with several addresses (localhost: ::1 and 127.0.0.1) as an AggregateError.
  const e = (err instanceof AggregateError && err.errors.length ? err.errors[0] : err) as { code?: string; message?: string } | undefined;
  if (!e) return undefined;
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return undefined;
  }
  const host = url.hostname || 'localhost';
  const port = url.port || '5432';
  const user = decodeURIComponent(url.username) || 'postgres';
  const name = decodeURIComponent(url.pathname.slice(1)) || user;
  const at = `${host}:${port}`;
  switch (e.code) {
    case '3D000':
      return `database "${name}" does not exist on ${at}: create it (createdb -h ${host} -p ${port} -U ${user} ${name}) or fix DATABASE_URL`;
    case '28P01':
      return `PostgreSQL at ${at} refused the password of user "${user}": fix DATABASE_URL`;
    case '28000':
      return `PostgreSQL at ${at} refused user "${user}" (${e.message}): fix DATABASE_URL or the server's pg_hba.conf`;
    case '57P03':
      return `PostgreSQL at ${at} is starting up or shutting down: retry shortly`;
    case 'ECONNREFUSED':
      return `cannot connect to PostgreSQL at ${at} (connection refused): is it running? Check DATABASE_URL`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot connect to PostgreSQL: host "${host}" not found; check DATABASE_URL`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `cannot connect to PostgreSQL at ${at} (${e.code}): check DATABASE_URL and the network`;
  }
  if (/timeout exceeded when trying to connect/i.test(e.message ?? '')) return `cannot connect to PostgreSQL at ${at}: no answer in time; check DATABASE_URL and the network`;
  if (/Connection terminated/i.test(e.message ?? '')) return `PostgreSQL at ${at} closed the connection: check the server and DATABASE_URL`;
  return undefined;
}
