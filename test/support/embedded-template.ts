/**
 * The embedded database every test file starts from. Opening an empty PGlite runs initdb (3–8 s on
 * a busy 2-core machine) and then every migration; the global setup does that once, in a data
 * directory of its own (PGlite on the real file system), closes it cleanly and names it in an
 * environment variable the test processes inherit. Each database a file opens is a copy of that
 * directory, so files still share nothing.
 *
 * A copy rather than a dumpDataDir tarball loaded into memory (what this did before): loading the
 * 41 MB tarball into PGlite's in-memory file system cost about 0.4 s of CPU per file, and PostgreSQL
 * then reads only the few pages it needs from the copy instead (the copy costs about 0.1 s). The
 * directories live on tmpfs where there is one: they are written a lot and never needed after.
 */
import { accessSync, appendFileSync, constants, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import { connectDatabase, type ConnectOptions, type Database } from '../../src/db/connect.js';
import type { DB } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { isAlive } from '../../src/db/data-dir-lock.js';
import { useTestAuditKey } from './server-keys.js';

export const EMBEDDED_TEMPLATE_ENV = 'SPEND_AUTH_TEST_EMBEDDED_TEMPLATE';

const RUN_DIR_PREFIX = 'spend-auth-embedded-';
/** Names the run (the global setup's pid) that owns a run directory. */
const OWNER_FILE = 'owner.pid';

/** tmpfs when the machine has one (Linux: /dev/shm), else the temporary directory. */
function scratchRoot(): string {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}

/** A killed run leaves its directory (on tmpfs: memory until reboot); the next run removes those whose run is gone. */
function removeDirsOfDeadRuns(root: string): void {
  for (const name of readdirSync(root)) {
    if (!name.startsWith(RUN_DIR_PREFIX)) continue;
    const dir = join(root, name);
    try {
      const pid = Number(readFileSync(join(dir, OWNER_FILE), 'utf8'));
      if (Number.isSafeInteger(pid) && pid > 0 && !isAlive(pid)) rmSync(dir, { recursive: true, force: true });
    } catch {
      // No owner file (an older run's tarball, or one being made this instant): not ours to judge.
    }
  }
}

/** Makes the migrated template and names it in the environment; returns what removes it. */
export async function makeEmbeddedTemplate(): Promise<() => void> {
  useTestAuditKey();
  const root = scratchRoot();
  removeDirsOfDeadRuns(root);
  const dir = mkdtempSync(join(root, RUN_DIR_PREFIX));
  writeFileSync(join(dir, OWNER_FILE), String(process.pid));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  const template = join(dir, 'template');
  try {
    mkdirSync(template);
    // The layout connectDatabase gives a data directory (`<dir>/pgdata`), so a copy opens as one.
    const db = new Kysely<DB>({ dialect: new PGliteDialect(await PGlite.create(join(template, 'pgdata'))) });
    try {
      await migrateToLatest(db);
    } finally {
      // Closes PGlite: a clean shutdown, so each copy starts without crash recovery.
      await db.destroy();
    }
    // PostgreSQL zeroes its shared buffers at every start: 128 MB of them cost each copy ~0.15 s of
    // CPU. 32 MB still holds a test file's whole database (the template's is 23 MB).
    appendFileSync(join(template, 'pgdata', 'postgresql.conf'), '\nshared_buffers = 32MB\n');
  } catch (err) {
    remove();
    throw err;
  }
  process.env[EMBEDDED_TEMPLATE_ENV] = template;
  return remove;
}

/** A new database of this process at the latest migration: a copy of the template when there is one, else an in-memory one migrated here. */
export async function openEmbeddedDatabase(hooks: Pick<ConnectOptions, 'onQuery' | 'wrapDriver'> = {}): Promise<Database> {
  const template = process.env[EMBEDDED_TEMPLATE_ENV];
  if (!template) {
    const database = await connectDatabase({ dataDir: 'memory://', ...hooks });
    await migrateToLatest(database.db);
    return database;
  }
  // Beside the template, so the run's teardown removes a copy a killed test process left.
  const copy = mkdtempSync(join(dirname(template), `db-${process.pid}-`));
  const remove = () => rmSync(copy, { recursive: true, force: true });
  process.once('exit', remove);
  let database: Database;
  try {
    cpSync(template, copy, { recursive: true });
    database = await connectDatabase({ dataDir: copy, ...hooks });
  } catch (err) {
    process.off('exit', remove);
    remove();
    throw err;
  }
  return {
    ...database,
    async close() {
      try {
        await database.close();
      } finally {
        process.off('exit', remove);
        remove();
      }
    },
  };
}
