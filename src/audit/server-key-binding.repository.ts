import { sql } from 'kysely';
import type { DbOrTrx } from '../db/database.js';

/** Records whose links a key is checked against before it is first bound to a database that already has some. */
export const KEY_CHECK_SAMPLE = 100;

/** Whether the relation exists yet: the binding runs before migrations too, on any schema version. */
const relationExists = async (db: DbOrTrx, name: string) =>
  (await sql<{ present: boolean }>`SELECT to_regclass(${name}) IS NOT NULL AS present`.execute(db)).rows[0]!.present;

/** The stored fingerprints by setting; undefined before migration 019 created their table. */
export async function storedFingerprints(db: DbOrTrx): Promise<Map<string, string> | undefined> {
  if (!(await relationExists(db, 'server_key_fingerprints'))) return undefined;
  const rows = await db.selectFrom('server_key_fingerprints').select(['setting', 'fingerprint']).execute();
  return new Map(rows.map((r) => [r.setting, r.fingerprint]));
}

/**
 * Stores the fingerprints not there already (a concurrent first start): the first start's stay.
 * One statement, rows in one order: a second process's insert waits on the first's first row and
 * then stores none of its own, where one statement per setting let two processes each store one
 * fingerprint and both be refused.
 */
export async function storeFingerprints(db: DbOrTrx, entries: ReadonlyArray<{ setting: string; fingerprint: string }>): Promise<void> {
  if (entries.length === 0) return;
  await db
    .insertInto('server_key_fingerprints')
    .values([...entries].sort((a, b) => (a.setting < b.setting ? -1 : a.setting > b.setting ? 1 : 0)))
    .onConflict((oc) => oc.column('setting').doNothing())
    .execute();
}

/**
 * The newest sealed audit records' links (the sealer computed them with the audit key), to check a
 * key against before it is first bound; empty before there is anything to check against.
 */
export async function newestSealedLinks(db: DbOrTrx): Promise<Array<{ sequence: number; prev_hash: string; hash: string; mac: string | null }>> {
  if (!(await relationExists(db, 'audit_records'))) return [];
  const keyed = await sql<{ present: boolean }>`
    SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'audit_records' AND column_name = 'mac') AS present`.execute(db);
  // Before migration 011 the chain was not keyed: that migration re-seals it with the key.
  if (!keyed.rows[0]!.present) return [];
  const rows = await sql<{ sequence: number; prev_hash: string; hash: string; mac: string | null }>`
    SELECT sequence, prev_hash, hash, mac FROM audit_records WHERE hash IS NOT NULL ORDER BY insert_order DESC LIMIT ${KEY_CHECK_SAMPLE}`.execute(db);
  return rows.rows.map((r) => ({ ...r, sequence: Number(r.sequence) }));
}
