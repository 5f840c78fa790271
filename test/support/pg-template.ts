/**
 * One migrated PostgreSQL template database per run, cloned by each file that needs a database of
 * its own (CREATE DATABASE … TEMPLATE): a clone is a file copy on the server, where creating a
 * database and running every migration on it took seconds per file.
 *
 * The global setup makes it and names it in an environment variable the test processes inherit;
 * `createScratchDatabase(url, { migrated: true })` (context.ts) clones it. Its name is unique to
 * the run, so a run that was killed before dropping it leaves a database nobody clones again
 * (and the next run sweeps templates older than a day).
 */
import pg from 'pg';
import { connectDatabase } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { bindServerKeys } from '../../src/server-keys.js';
import { TEST_AUDIT_HMAC_KEY, TEST_IDEMPOTENCY_KEY, useTestAuditKey } from './server-keys.js';

export const PG_TEMPLATE_ENV = 'SPEND_AUTH_TEST_PG_TEMPLATE';

/** Templates of runs that died before dropping theirs are this old before a later run drops them (no run lasts a day). */
const STALE_TEMPLATE_MS = 24 * 60 * 60 * 1000;
/** PostgreSQL refuses to clone a database another session is connected to: how long a clone keeps trying. */
const CLONE_RETRY_MS = 30_000;

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** A database name derived from the shared one: `<shared>_<tag>…`, within PostgreSQL's 63 bytes. */
export function derivedName(sharedUrl: string, tag: string): string {
  return `${new URL(sharedUrl).pathname.slice(1) || 'spend_auth'}`.slice(0, 30).replace(/[^a-z0-9_]/gi, '_') + `_${tag}`;
}

/** The URL of database `name` on the server (and with the credentials) of `sharedUrl`. */
export function databaseUrl(sharedUrl: string, name: string): string {
  const url = new URL(sharedUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs statements on one short-lived connection to the shared database (never to the template). */
export async function adminQuery<R extends pg.QueryResultRow = pg.QueryResultRow>(sharedUrl: string, statement: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
  const client = new pg.Client({ connectionString: sharedUrl });
  client.on('error', () => {});
  await client.connect();
  try {
    return await client.query<R>(statement, values);
  } finally {
    await client.end();
  }
}

/** What every migrated test database holds: every migration, and the test keys bound as `spend-auth migrate` binds them. */
export async function migrateAndBindTestKeys(url: string): Promise<void> {
  useTestAuditKey();
  const database = await connectDatabase({ databaseUrl: url, poolSize: 1 });
  try {
    await migrateToLatest(database.db);
    await bindServerKeys(database.db, { auditHmac: TEST_AUDIT_HMAC_KEY, idempotency: TEST_IDEMPOTENCY_KEY });
  } finally {
    // No connection may stay open to a template: PostgreSQL refuses to clone it while one does.
    await database.close();
  }
}

const TEMPLATE_TAG = /_tpl_([0-9a-z]+)_[0-9a-z]+$/;

export async function makePgTemplate(sharedUrl: string): Promise<() => Promise<void>> {
  await dropStaleTemplates(sharedUrl);
  const name = derivedName(sharedUrl, `tpl_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`);
  await adminQuery(sharedUrl, `CREATE DATABASE ${quote(name)}`);
  const drop = () => dropDatabase(sharedUrl, name);
  try {
    await migrateAndBindTestKeys(databaseUrl(sharedUrl, name));
  } catch (err) {
    await drop().catch(() => {});
    throw err;
  }
  process.env[PG_TEMPLATE_ENV] = name;
  return async () => {
    delete process.env[PG_TEMPLATE_ENV];
    await drop();
  };
}

/** Drops a database even while a session of a killed test still holds it (FORCE, PostgreSQL 13+). */
export async function dropDatabase(sharedUrl: string, name: string): Promise<void> {
  await adminQuery(sharedUrl, `DROP DATABASE IF EXISTS ${quote(name)} WITH (FORCE)`).catch(() => adminQuery(sharedUrl, `DROP DATABASE IF EXISTS ${quote(name)}`));
}

/** Templates a killed run left: only ones older than any run, so a run going on beside this one keeps its own. */
async function dropStaleTemplates(sharedUrl: string): Promise<void> {
  const prefix = derivedName(sharedUrl, 'tpl_');
  const { rows } = await adminQuery<{ datname: string }>(sharedUrl, `SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, [prefix]);
  for (const { datname } of rows) {
    const made = parseInt(TEMPLATE_TAG.exec(datname)?.[1] ?? '', 36);
    if (Number.isFinite(made) && Date.now() - made > STALE_TEMPLATE_MS) await dropDatabase(sharedUrl, datname).catch(() => {});
  }
}

/** Creates `name` as a copy of this run's template; false when the run made none (no global setup). */
export async function cloneTemplate(sharedUrl: string, name: string): Promise<boolean> {
  const template = process.env[PG_TEMPLATE_ENV];
  if (!template) return false;
  const deadline = Date.now() + CLONE_RETRY_MS;
  for (let wait = 50; ; wait = Math.min(wait * 2, 1_000)) {
    try {
      await adminQuery(sharedUrl, `CREATE DATABASE ${quote(name)} TEMPLATE ${quote(template)}`);
      return true;
    } catch (err) {
      // 55006: a session is connected to the template (none of ours stays; an autovacuum worker may).
      if ((err as { code?: string }).code !== '55006' || Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
