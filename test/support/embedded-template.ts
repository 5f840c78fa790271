/**
 * The embedded database every test file starts from. Opening an empty PGlite runs initdb (3–8 s on
 * a busy 2-core machine) and then every migration; the global setup does that once, saves the
 * migrated data directory with PGlite's dumpDataDir to a temporary file, and names the file in an
 * environment variable the test processes inherit. Each file then loads its own copy (about 1 s
 * plus compiling PGlite), so files still share nothing.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import { connectDatabase, type ConnectOptions, type Database } from '../../src/db/connect.js';
import type { DB } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { useTestAuditKey } from './server-keys.js';

export const EMBEDDED_TEMPLATE_ENV = 'SPEND_AUTH_TEST_EMBEDDED_TEMPLATE';

/** Makes the migrated template and names it in the environment; returns what removes it. */
export async function makeEmbeddedTemplate(): Promise<() => void> {
  useTestAuditKey();
  const pglite = await PGlite.create('memory://');
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
  const dir = mkdtempSync(join(tmpdir(), 'spend-auth-embedded-'));
  try {
    await migrateToLatest(db);
    const dump = await pglite.dumpDataDir('none');
    writeFileSync(join(dir, 'pgdata.tar'), Buffer.from(await dump.arrayBuffer()));
  } finally {
    await db.destroy();
  }
  process.env[EMBEDDED_TEMPLATE_ENV] = join(dir, 'pgdata.tar');
  return () => rmSync(dir, { recursive: true, force: true });
}

let template: Blob | undefined;

/** The template to start an embedded database from, or undefined (no global setup made one). */
function embeddedTemplate(): Blob | undefined {
  const file = process.env[EMBEDDED_TEMPLATE_ENV];
  if (!file) return undefined;
  template ??= new Blob([readFileSync(file)]);
  return template;
}

/** A new in-memory database at the latest migration: a copy of the template when there is one, else migrated here. */
export async function openEmbeddedDatabase(hooks: Pick<ConnectOptions, 'onQuery' | 'wrapDriver'> = {}): Promise<Database> {
  const template = embeddedTemplate();
  const database = await connectDatabase({ dataDir: 'memory://', ...hooks, ...(template ? { loadDataDir: template } : {}) });
  if (!template) await migrateToLatest(database.db);
  return database;
}
