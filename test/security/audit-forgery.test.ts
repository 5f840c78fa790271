/**
 * Attack: someone who can write to the database (but does not hold the server's audit key) adds a
 * record to an account's audit log, either unsealed (for the sealer to chain) or already chained
 * with a hash of their own, and hopes `GET /v1/audit-logs/verify` still answers valid.
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { canonicalJson } from '../../src/audit/audit-chain.js';
import { verifyAuditChain } from '../../src/audit/audit.service.js';
import { newId } from '../../src/kernel/ids.js';
import { connectDatabase, type Database } from '../../src/db/connect.js';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import { createScratchDatabase, createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx?.close());

async function accountWithRecords(): Promise<{ a: TestAccount; head: { hash: string; sequence: number } }> {
  const a = await ctx.account();
  expect((await a.test.post('/v1/policies', policyBody())).status).toBe(201);
  const verify = await a.test.get('/v1/audit-logs/verify');
  expect(verify.body).toMatchObject({ valid: true, records: 2 });
  return { a, head: { hash: verify.body.head_hash, sequence: 2 } };
}

const forgedFields = (accountId: string, id: string, createdAt: Date) => ({
  id,
  account_id: accountId,
  livemode: false,
  type: 'api_key.revoked',
  actor_type: 'api_key',
  actor_id: 'key_forged',
  agent_id: null,
  decision_id: null,
  decision: null,
  amount: null,
  currency: null,
  vendor: null,
  category: null,
  policy_id: null,
  reason: 'covering tracks',
  metadata: { api_key_id: 'key_forged' },
  created_at: createdAt,
});

async function hashOfSequence(accountId: string, sequence: number): Promise<string> {
  const row = await ctx.database.db.selectFrom('audit_records').select('hash').where('account_id', '=', accountId).where('livemode', '=', false).where('sequence', '=', sequence).executeTakeFirstOrThrow();
  return row.hash!;
}

describe('a record written into the table by hand', () => {
  test('unsealed, left for the sealer: verification fails at it, names it, and the head is the last record that verifies', async () => {
    const { a, head } = await accountWithRecords();
    const id = newId('aud');
    const f = forgedFields(a.id, id, new Date());
    await sql`INSERT INTO audit_records (id, account_id, livemode, type, actor_type, actor_id, reason, metadata, created_at)
      VALUES (${f.id}, ${f.account_id}, false, ${f.type}, ${f.actor_type}, ${f.actor_id}, ${f.reason}, ${JSON.stringify(f.metadata)}, ${f.created_at})`.execute(ctx.database.db);
    // The service keeps writing after it.
    expect((await a.test.post('/v1/policies', policyBody({ name: 'after' }))).status).toBe(201);

    const res = await a.test.get('/v1/audit-logs/verify');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: false, records: 4, first_invalid: { id, sequence: 3 }, first_invalid_sequence: 3 });
    expect(res.body.head_hash).toBe(head.hash);
    expect(res.body.head_hash).toBe(await hashOfSequence(a.id, 2));
  });

  test('already chained with a plain SHA-256 link and the chain head moved to it: verification fails at it', async () => {
    const { a, head } = await accountWithRecords();
    const id = newId('aud');
    const f = forgedFields(a.id, id, new Date(Math.floor(Date.now() / 1000) * 1000));
    const canonical = canonicalJson({ ...f, sequence: 3, created_at: f.created_at.toISOString() });
    const hash = createHash('sha256').update(head.hash + canonical).digest('hex');
    await sql`INSERT INTO audit_records (id, account_id, livemode, sequence, type, actor_type, actor_id, reason, metadata, created_at, prev_hash, hash)
      VALUES (${f.id}, ${f.account_id}, false, 3, ${f.type}, ${f.actor_type}, ${f.actor_id}, ${f.reason}, ${JSON.stringify(f.metadata)}, ${f.created_at}, ${head.hash}, ${hash})`.execute(ctx.database.db);
    // The head moves only with a new MAC, and without the key any MAC is a guess.
    await expect(sql`UPDATE audit_chains SET sequence = 3, head_hash = ${hash} WHERE account_id = ${a.id} AND livemode = false`.execute(ctx.database.db)).rejects.toThrow(/forward only/);
    await sql`UPDATE audit_chains SET sequence = 3, head_hash = ${hash}, head_mac = ${createHash('sha256').update(hash).digest('hex')} WHERE account_id = ${a.id} AND livemode = false`.execute(ctx.database.db);

    const res = await a.test.get('/v1/audit-logs/verify');
    expect(res.body).toMatchObject({ valid: false, records: 3, first_invalid: { id, sequence: 3 } });
    expect(res.body.head_hash).toBe(head.hash);

    // The service is not wedged by the intruder's sequence number: it keeps writing and sealing.
    expect((await a.test.post('/v1/policies', policyBody({ name: 'after' }))).status).toBe(201);
    const again = await a.test.get('/v1/audit-logs/verify');
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ valid: false, records: 4, first_invalid: { id, sequence: 3 } });
    const list = await a.test.get('/v1/audit-logs?limit=10');
    expect(list.status).toBe(200);
    expect(list.body.data.map((r: { sequence: number }) => r.sequence)).toEqual([4, 3, 2, 1]);
  });

  test('a valid chain answers first_invalid null', async () => {
    const { a } = await accountWithRecords();
    expect((await a.test.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true, first_invalid: null, first_invalid_sequence: null });
  });
});

describe('the one-time re-seal of chains written before the key (migration 011_audit_hmac)', () => {
  const legacyLink = (prev: string, r: ReturnType<typeof forgedFields> & { sequence: number }) =>
    createHash('sha256').update(prev + canonicalJson({ ...r, created_at: r.created_at.toISOString() })).digest('hex');

  async function oldSchemaDatabase(): Promise<{ database: Database; drop(): Promise<void> }> {
    const url = process.env.DATABASE_URL;
    const scratch = url ? await createScratchDatabase(url) : undefined;
    const database = await connectDatabase(scratch ? { databaseUrl: scratch.url, poolSize: 2 } : { dataDir: 'memory://' });
    await migrateTo(database.db, '010_audit_insert_order');
    return { database, drop: async () => { await database.close(); await scratch?.drop(); } };
  }

  test('without the audit key loaded it refuses to re-seal, naming AUDIT_HMAC_KEY, and leaves the schema as it was', async () => {
    const { database, drop } = await oldSchemaDatabase();
    try {
      const db = database.db;
      await sql`INSERT INTO accounts (id, name, plan) VALUES ('acct_nokey', 'no key', 'growth')`.execute(db);
      await sql`INSERT INTO audit_records (id, account_id, livemode, type, actor_type, created_at) VALUES ('aud_nokey', 'acct_nokey', false, 'agent.created', 'system', now())`.execute(db);
      // A process that never loaded its key: the migrator and the key holder as freshly imported.
      vi.resetModules();
      const fresh = await import('../../src/db/migrate.js');
      await expect(fresh.migrateToLatest(db)).rejects.toThrow(/011_audit_hmac re-seals the existing audit chains with AUDIT_HMAC_KEY/);
      const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM information_schema.columns WHERE table_name = 'audit_records' AND column_name = 'mac'`.execute(db);
      expect(Number(rows[0]!.n)).toBe(0);
    } finally {
      await drop();
    }
  });

  test('re-seals a chain as far as its old SHA-256 chain verifies: a row forged into the old chain is not blessed', async () => {
    const { database, drop } = await oldSchemaDatabase();
    try {
      const db = database.db;
      await sql`INSERT INTO accounts (id, name, plan) VALUES ('acct_legacy', 'legacy', 'growth')`.execute(db);
      const at = new Date(Math.floor(Date.now() / 1000) * 1000);
      // Test mode: three honest records, then one the old service wrote but had not sealed yet.
      // Live mode: the second record was forged with a wrong link.
      for (const livemode of [false, true]) {
        let prev = '0'.repeat(64);
        for (let sequence = 1; sequence <= 3; sequence++) {
          const r = { ...forgedFields('acct_legacy', `aud_legacy${livemode ? 'l' : 't'}${sequence}`, at), livemode, type: 'policy.created', sequence };
          const hash = livemode && sequence === 2 ? 'f'.repeat(64) : legacyLink(prev, r);
          await sql`INSERT INTO audit_records (id, account_id, livemode, sequence, type, actor_type, actor_id, reason, metadata, created_at, prev_hash, hash)
            VALUES (${r.id}, 'acct_legacy', ${livemode}, ${sequence}, ${r.type}, ${r.actor_type}, ${r.actor_id}, ${r.reason}, ${JSON.stringify(r.metadata)}, ${at}, ${prev}, ${hash})`.execute(db);
          prev = hash;
        }
        await sql`INSERT INTO audit_chains (account_id, livemode, sequence, head_hash) VALUES ('acct_legacy', ${livemode}, 3, ${prev})`.execute(db);
      }
      await sql`INSERT INTO audit_records (id, account_id, livemode, type, actor_type, created_at) VALUES ('aud_legacyunsealed', 'acct_legacy', false, 'agent.created', 'system', ${at})`.execute(db);

      await migrateToLatest(db);

      expect(await verifyAuditChain(db, 'acct_legacy', false)).toMatchObject({ valid: true, records: 4, first_invalid: null });
      const live = await verifyAuditChain(db, 'acct_legacy', true);
      expect(live).toMatchObject({ valid: false, records: 3, first_invalid: { id: 'aud_legacyl2', sequence: 2 } });
      const first = await db.selectFrom('audit_records').select('hash').where('id', '=', 'aud_legacyl1').executeTakeFirstOrThrow();
      expect(live.head_hash).toBe(first.hash);
      // The re-seal window is closed again: a MAC cannot be added to the forged row afterwards.
      await expect(sql`UPDATE audit_records SET mac = ${'0'.repeat(64)} WHERE id = 'aud_legacyl2'`.execute(db)).rejects.toThrow(/append-only/);
    } finally {
      await drop();
    }
  });
});
