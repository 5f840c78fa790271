import fs from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect, type KyselyConfig } from 'kysely';
import pg from 'pg';
import type { DB, Db } from './database.js';

const INT8_OID = 20;
const NUMERIC_OID = 1700;

export interface Database {
  db: Db;
  /** `postgres` for a server reached through DATABASE_URL, `embedded` for PGlite. */
  kind: 'postgres' | 'embedded';
  /**
   * LISTENs on `channel` for the process: `onMessage` gets each committed notification's payload.
   * On PostgreSQL one dedicated connection (not a pooled one) listens and is re-opened when lost,
   * after which `onReconnect` is called (notifications sent meanwhile are gone). Returns the stop
   * function; stop before `close`.
   */
  listen(channel: string, onMessage: (payload: string) => void, onReconnect?: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** How long a lost listening connection waits before it is opened again. */
export const LISTEN_RETRY_MS = 1_000;

/** The first connection is awaited (bounded), so the process listens before it serves; a failure is retried in the background. */
const LISTEN_CONNECT_TIMEOUT_MS = 5_000;

async function listenOnPostgres(connectionString: string, channel: string, onMessage: (payload: string) => void, onReconnect?: () => void): Promise<() => Promise<void>> {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const open = async (again: boolean) => {
    const c = new pg.Client({ connectionString, connectionTimeoutMillis: LISTEN_CONNECT_TIMEOUT_MS });
    c.on('notification', (n) => {
      if (n.channel === channel && n.payload) onMessage(n.payload);
    });
    // A lost connection ends the client: 'end' schedules the next one.
    c.on('error', () => {});
    c.on('end', () => {
      if (client === c) client = undefined;
      if (!stopped) schedule();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${c.escapeIdentifier(channel)}`);
    } catch {
      await c.end().catch(() => {});
      if (!stopped) schedule();
      return;
    }
    if (stopped) return void (await c.end().catch(() => {}));
    client = c;
    if (again) onReconnect?.();
  };
  const schedule = () => {
    clearTimeout(retry);
    retry = setTimeout(() => void open(true), LISTEN_RETRY_MS);
    retry.unref();
  };
  await open(false);
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}

export interface ConnectOptions {
  databaseUrl?: string | undefined;
  /** Directory for the embedded database; `memory://` keeps it in memory (tests). */
  dataDir?: string;
  poolSize?: number;
  /** How long a query waits for a pooled connection before failing (503 to the client). */
  connectTimeoutMs?: number;
  /** Told of every query sent (tests count them); absent, nothing is added to the query path. */
  onQuery?: (sql: string) => void;
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
      max: opts.poolSize ?? 20,
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
    pool.on('connect', (client) => client.on('error', () => {}));
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }), log: queryLog(opts) });
    const databaseUrl = opts.databaseUrl;
    return {
      db,
      kind: 'postgres',
      listen: (channel, onMessage, onReconnect) => listenOnPostgres(databaseUrl, channel, onMessage, onReconnect),
      close: () => db.destroy(),
    };
  }

  const { PGlite, types } = await import('@electric-sql/pglite');
  const { PGliteDialect } = await import('kysely-pglite-dialect');
  const dataDir = opts.dataDir ?? './.data';
  let location = dataDir;
  if (!dataDir.startsWith('memory://')) {
    location = path.join(dataDir, 'pgdata');
    fs.mkdirSync(location, { recursive: true });
  }
  const toNumber = (v: string) => Number(v);
  const client = await PGlite.create(location, {
    parsers: { [types.INT8]: toNumber, [types.NUMERIC]: toNumber },
  });
  const db = new Kysely<DB>({ dialect: new PGliteDialect(client), log: queryLog(opts) });
  return {
    db,
    kind: 'embedded',
    // One process owns the embedded database, and PGlite delivers a notification on commit.
    listen: (channel, onMessage) => client.listen(channel, onMessage),
    close: () => db.destroy(),
  };
}
