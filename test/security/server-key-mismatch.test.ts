/**
 * Attack (or accident): a process comes to the database with other server keys than the ones it was
 * first used with (another DATA_DIR, a mistyped secret, a replaced key file) and would write audit
 * records nobody can verify, or responses nobody can read. The keys are bound to the database by
 * fingerprint; the other process is refused with one line naming the setting. In process here (the
 * binding itself, on PGlite or PostgreSQL); the spawned `spend-auth` processes are in
 * audit-key-per-data-dir.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterEach, describe, expect, test } from 'vitest';
import { chainHash, GENESIS_HASH } from '../../src/audit/audit-chain.js';
import { auditHmacKey, useAuditHmacKey } from '../../src/kernel/audit-key.js';
import { ConfigError } from '../../src/kernel/config.js';
import { connectDatabase, type Database } from '../../src/db/connect.js';
import type { Db } from '../../src/db/database.js';
import { createAccountOnOlderSchema } from '../support/older-account.js';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import { bindServerKeys, keyFingerprint, type ServerKeys } from '../../src/server-keys.js';
import { createScratchDatabase } from '../support/context.js';
import { TEST_AUDIT_HMAC_KEY, useTestAuditKey } from '../support/server-keys.js';

/** Each test migrates a database of its own (several seconds on the embedded engine, more on a busy machine). */
const OWN_DATABASE_TIMEOUT = 120_000;

const keys = (): ServerKeys => ({ auditHmac: randomBytes(32), idempotency: randomBytes(32) });

const opened: Array<() => Promise<void>> = [];
afterEach(async () => {
  useTestAuditKey();
  for (const close of opened.splice(0)) await close();
});

/** A database of this test's own: a scratch one on PostgreSQL, an in-memory PGlite otherwise. */
async function ownDatabase(): Promise<Database> {
  const url = process.env.DATABASE_URL;
  const scratch = url ? await createScratchDatabase(url) : undefined;
  const database = await connectDatabase(scratch ? { databaseUrl: scratch.url, poolSize: 3 } : { dataDir: 'memory://' });
  opened.push(async () => {
    await database.close();
    await scratch?.drop();
  });
  return database;
}

async function refusal(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  const message = (err as Error).message;
  expect(message.split('\n')).toHaveLength(1);
  return message;
}

/** Seals an account's records the way the service did before migration 018 (no head MAC), with `key`. */
async function sealAsBefore(db: Db, key: Buffer, accountId: string) {
  for (const livemode of [false, true]) {
    const rows = (await sql<{ id: string; mac: string }>`SELECT id, mac FROM audit_records WHERE account_id = ${accountId} AND livemode = ${livemode} AND hash IS NULL ORDER BY insert_order`.execute(db)).rows;
    let prev = GENESIS_HASH;
    let sequence = 0;
    for (const r of rows) {
      sequence += 1;
      const hash = chainHash(key, prev, sequence, r.mac);
      await sql`UPDATE audit_records SET sequence = ${sequence}, prev_hash = ${prev}, hash = ${hash} WHERE id = ${r.id}`.execute(db);
      prev = hash;
    }
    if (sequence > 0) await sql`INSERT INTO audit_chains (account_id, livemode, sequence, head_hash) VALUES (${accountId}, ${livemode}, ${sequence}, ${prev})`.execute(db);
  }
}

describe('a database used for the first time', () => {
  test('stores a fingerprint of each key, never the key; the same keys are accepted again', async () => {
    const { db } = await ownDatabase();
    await migrateToLatest(db);
    const k = keys();
    await bindServerKeys(db, k);
    await bindServerKeys(db, k);
    const rows = await db.selectFrom('server_key_fingerprints').select(['setting', 'fingerprint']).orderBy('setting').execute();
    expect(rows).toEqual([
      { setting: 'AUDIT_HMAC_KEY', fingerprint: keyFingerprint(k.auditHmac, 'AUDIT_HMAC_KEY') },
      { setting: 'IDEMPOTENCY_ENCRYPTION_KEY', fingerprint: keyFingerprint(k.idempotency, 'IDEMPOTENCY_ENCRYPTION_KEY') },
    ]);
    const stored = JSON.stringify(rows);
    for (const key of [k.auditHmac, k.idempotency]) for (const form of ['hex', 'base64', 'base64url'] as const) expect(stored).not.toContain(key.toString(form));
  }, OWN_DATABASE_TIMEOUT);

  test.each([
    ['AUDIT_HMAC_KEY', (k: ServerKeys) => ({ ...k, auditHmac: randomBytes(32) })],
    ['IDEMPOTENCY_ENCRYPTION_KEY', (k: ServerKeys) => ({ ...k, idempotency: randomBytes(32) })],
    ['AUDIT_HMAC_KEY and IDEMPOTENCY_ENCRYPTION_KEY', () => keys()],
  ])('a process with another %s is refused with one line naming it, and nothing changes', async (names, other) => {
    const { db } = await ownDatabase();
    await migrateToLatest(db);
    const k = keys();
    await bindServerKeys(db, k);
    const message = await refusal(bindServerKeys(db, other(k)));
    expect(message).toMatch(new RegExp(`^${names}: not the keys? this database was first used with`));
    if (!names.includes('IDEMPOTENCY')) expect(message).not.toContain('IDEMPOTENCY_ENCRYPTION_KEY');
    expect(message).not.toContain(k.auditHmac.toString('hex'));
    await bindServerKeys(db, k);
  }, OWN_DATABASE_TIMEOUT);

  test('two processes starting at once with different keys: the first keeps the database, the other is refused', async () => {
    const { db } = await ownDatabase();
    await migrateToLatest(db);
    const [k1, k2] = [keys(), keys()];
    const outcomes = await Promise.allSettled([bindServerKeys(db, k1), bindServerKeys(db, k2)]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect((outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(ConfigError);
  }, OWN_DATABASE_TIMEOUT);
});

describe('a database migrated before the keys were bound', () => {
  /** At migration 017 with an account whose records were written and sealed with `key`. */
  async function olderDatabase(key: Buffer): Promise<{ db: Db; accountId: string }> {
    const { db } = await ownDatabase();
    await migrateTo(db, '017_trigger_conditions');
    useAuditHmacKey(key);
    const { account } = await createAccountOnOlderSchema(db, { name: 'before', plan: 'growth' });
    await sealAsBefore(db, key, account.id);
    return { db, accountId: account.id };
  }

  test('a key that did not seal its audit records is refused before it is bound, also after migrating', async () => {
    const k = keys();
    const { db } = await olderDatabase(k.auditHmac);
    const other = keys();
    expect(await refusal(bindServerKeys(db, other))).toMatch(/^AUDIT_HMAC_KEY: not the key that sealed this database's audit records \(it links 0 of the newest 2\)/);
    useAuditHmacKey(k.auditHmac);
    await migrateToLatest(db);
    expect(await refusal(bindServerKeys(db, other))).toMatch(/^AUDIT_HMAC_KEY: not the key that sealed/);
    expect(await db.selectFrom('server_key_fingerprints').selectAll().execute()).toEqual([]);
  }, OWN_DATABASE_TIMEOUT);

  test('the key that sealed them is bound when first started with, and from then on only it', async () => {
    const k = keys();
    const { db } = await olderDatabase(k.auditHmac);
    await bindServerKeys(db, k); // before migrating: checked, nothing to store in yet
    await migrateToLatest(db);
    await bindServerKeys(db, k);
    expect(await db.selectFrom('server_key_fingerprints').select('setting').orderBy('setting').execute()).toHaveLength(2);
    expect(await refusal(bindServerKeys(db, { ...k, auditHmac: randomBytes(32) }))).toMatch(/^AUDIT_HMAC_KEY: not the key this database was first used with/);
    // The idempotency key has no records to be checked against: the first one given is bound.
    expect(await refusal(bindServerKeys(db, { ...k, idempotency: randomBytes(32) }))).toMatch(/^IDEMPOTENCY_ENCRYPTION_KEY:/);
  }, OWN_DATABASE_TIMEOUT);

  test('migration 018, run with another audit key, stops before signing any chain head with it', async () => {
    const k = keys();
    const { db } = await olderDatabase(k.auditHmac);
    useAuditHmacKey(randomBytes(32));
    await expect(migrateToLatest(db)).rejects.toThrow(/AUDIT_HMAC_KEY is not the key that sealed the existing audit chains/);
    expect(auditHmacKey()).not.toEqual(TEST_AUDIT_HMAC_KEY);
    useAuditHmacKey(k.auditHmac);
    await migrateToLatest(db);
  }, OWN_DATABASE_TIMEOUT);
});
