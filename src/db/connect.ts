import fs from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { DB, Db } from './database.js';
import { lockDataDir } from './data-dir-lock.js';

const INT8_OID = 20;
const NUMERIC_OID = 1700;

export interface Database {
  db: Db;
  /** `postgres` for a server reached through DATABASE_URL, `embedded` for PGlite. */
  kind: 'postgres' | 'embedded';
  close(): Promise<void>;
}

export interface ConnectOptions {
  databaseUrl?: string | undefined;
  /** Directory for the embedded database; `memory://` keeps it in memory (tests). */
  dataDir?: string;
  poolSize?: number;
  /** How long a query waits for a pooled connection before failing (503 to the client). */
  connectTimeoutMs?: number;
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
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: 'postgres', close: () => db.destroy() };
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
    });
  } catch (err) {
    unlock();
    throw err;
  }
  const db = new Kysely<DB>({ dialect: new PGliteDialect(client) });
  return {
    db,
    kind: 'embedded',
    close: async () => {
      try {
        await db.destroy();
      } finally {
        unlock();
      }
    },
  };
}
