/**
 * Which test files run on both databases. CI runs the whole suite on PostgreSQL, then on the
 * embedded PGlite engine (what `npm start` runs) every file whose behaviour can depend on storage;
 * pure logic runs once. The rule reads each file's source, so a new test is placed by what it
 * does, never by a list kept by hand (docs/testing.md, "Which tests run on both databases").
 *
 * A file depends on storage when it reaches a database (a test context, a database of its own,
 * the service's processes) and does one of the things the two engines can answer differently:
 * transactions, locks and rows read or written behind the API's back; requests at once (locks,
 * group commit, idempotency races); group commit; migrations; the outbox; the audit chain;
 * idempotency keys; or the embedded engine's own code and `npm start`'s path.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface StorageReason {
  name: string;
  pattern: RegExp;
}

/** What reaches a database: the test context, a database opened or spawned here, the service's processes. */
const REACHES_DATABASE =
  /support\/(context|embedded-template|engine-stack|serve-process|killable-serve|pg-cluster|older-account|worker-process|card-budget|waiting-holds|resolve-held|mandates|mandate-presenting)\.js|src\/db\/|connectDatabase|openEmbeddedDatabase|bin\/spend-auth|DATABASE_URL/;

/** True when the file opens a database, directly, through a support module, or in a process it starts. */
export const reachesDatabase = (source: string): boolean => REACHES_DATABASE.test(source);

/** The storage behaviours a file may exercise, each with what shows it in the file's source. */
export const STORAGE_REASONS: readonly StorageReason[] = [
  { name: 'transactions, locks and rows behind the API', pattern: /\.transaction\(|\bsql`|\.(selectFrom|updateTable|insertInto|deleteFrom)\(|\bFOR (UPDATE|SHARE)\b|advisory/i },
  { name: 'requests at once', pattern: /Promise\.(all|allSettled)\(|fc\.(asyncProperty|scheduler)/ },
  { name: 'group commit', pattern: /authorizeBatch|group.commit|batch/i },
  { name: 'migrations', pattern: /migrat/i },
  { name: 'the outbox', pattern: /outbox/i },
  { name: 'the audit chain', pattern: /audit-logs\/verify|audit_records|audit.chain|verifyAudit|checkpoint/i },
  { name: 'idempotency', pattern: /idempoten/i },
  { name: "the embedded engine and npm start's path", pattern: /pglite|embedded|DATA_DIR|dataDir|'dev'|npm start/i },
];

/** Why a file runs on both databases, or [] when it runs once (on PostgreSQL in CI). */
export function storageReasons(source: string): string[] {
  if (!reachesDatabase(source)) return [];
  return STORAGE_REASONS.filter((r) => r.pattern.test(source)).map((r) => r.name);
}

export const dependsOnStorage = (file: string): boolean => storageReasons(readFileSync(file, 'utf8')).length > 0;

/** Every test file (`*.test.ts`) under `dir`, as paths from the working directory. */
export function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? testFiles(join(dir, e.name)) : e.name.endsWith('.test.ts') ? [join(dir, e.name)] : []));
}
