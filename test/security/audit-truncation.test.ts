/**
 * Attack: an insider with the database owner's rights (or a stolen superuser password), but not the
 * service's audit key, removes the newest audit records: disables the triggers, deletes the records
 * after sequence N, moves the chain head back to N and enables the triggers again; or deletes a
 * whole chain, head row included. Before, verify answered `valid: true` (`records: 0` for a deleted
 * chain) and the service kept writing on the shortened chain. Runs on the embedded database and, with
 * DATABASE_URL, on PostgreSQL (the insider's SQL in one transaction, so other test files sharing the
 * database never see the triggers off).
 */
import { decodeProtectedHeader, decodeJwt } from 'jose';
import { sql, type Transaction } from 'kysely';
import type { DB } from '../../src/db/database.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startAuditSealer } from '../../src/audit/audit-sealer.js';
import { agentWithPolicy, createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';
import { until } from '../support/wait.js';

let ctx: TestContext;

beforeAll(async () => {
  // A database of this file's own on PostgreSQL: the sealers of other test processes must not be
  // the ones that find (and report) the cuts made here.
  ctx = await createTestContext({ ownDatabase: true });
});
afterAll(() => ctx?.close());

const db = () => ctx.database.db;

/** An account whose test-mode chain holds its first key, a policy, an agent, three decisions (4–6) and two policy updates (8 records). */
async function accountWithHistory(): Promise<{ a: TestAccount; decisionIds: string[]; policyId: string }> {
  const a = await ctx.account();
  const { agentId, policyId } = await agentWithPolicy(a.test);
  const decisionIds: string[] = [];
  for (const amount of [100, 200, 300]) {
    const res = await a.test.post('/v1/authorize', { agent_id: agentId, amount, currency: 'USD', vendor: 'shop.example' });
    expect(res.body.decision).toBe('approved');
    decisionIds.push(res.body.decision_id);
  }
  for (const name of ['renamed once', 'renamed twice']) expect((await a.test.patch(`/v1/policies/${policyId}`, { name })).status).toBe(200);
  const verify = await a.test.get('/v1/audit-logs/verify');
  expect(verify.body).toMatchObject({ valid: true, records: 8 });
  return { a, decisionIds, policyId };
}

const hashAt = async (accountId: string, sequence: number) =>
  (await sql<{ hash: string }>`SELECT hash FROM audit_records WHERE account_id = ${accountId} AND livemode = false AND sequence = ${sequence}`.execute(db())).rows[0]!.hash;

/** The insider's SQL, as the table owner: triggers off, `change`, triggers on; one transaction. */
async function asInsider(change: (trx: Transaction<DB>) => Promise<void>) {
  await db()
    .transaction()
    .execute(async (trx) => {
      // Heads first, as the sealer locks them: taken the other way round, a running sealer deadlocks with it.
      await sql`ALTER TABLE audit_chains DISABLE TRIGGER USER`.execute(trx);
      await sql`ALTER TABLE audit_records DISABLE TRIGGER USER`.execute(trx);
      await change(trx);
      await sql`ALTER TABLE audit_chains ENABLE TRIGGER USER`.execute(trx);
      await sql`ALTER TABLE audit_records ENABLE TRIGGER USER`.execute(trx);
    });
}

/** Deletes the chain's records after `n` and moves its head back to record `n`. */
const truncateAfter = (accountId: string, n: number) =>
  asInsider(async (trx) => {
    await sql`DELETE FROM audit_records WHERE account_id = ${accountId} AND livemode = false AND sequence > ${n}`.execute(trx);
    await sql`UPDATE audit_chains SET sequence = ${n}, head_hash = (SELECT hash FROM audit_records WHERE account_id = ${accountId} AND livemode = false AND sequence = ${n})
      WHERE account_id = ${accountId} AND livemode = false`.execute(trx);
  });

describe('the newest records deleted and the chain head moved back', () => {
  test('verify answers invalid, names the last record left, and a checkpoint kept from before answers mismatched', async () => {
    const { a } = await accountWithHistory();
    const kept = (await a.test.get('/v1/audit-logs/verify')).body.checkpoint as string;
    const hash8 = await hashAt(a.id, 8);

    // The two policy updates go: no decision loses its record, so only the head and the checkpoint can tell.
    await truncateAfter(a.id, 6);

    const res = await a.test.get('/v1/audit-logs/verify');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: false, records: 6, head_hash: await hashAt(a.id, 6), first_invalid: { sequence: 6 }, decisions_without_record: 0, checkpoint_check: null });
    expect(decodeJwt(kept)).toMatchObject({ aud: a.id, livemode: false, sequence: 8, head_hash: hash8 });
    const checked = await a.test.get(`/v1/audit-logs/verify?checkpoint=${kept}`);
    expect(checked.body).toMatchObject({ valid: false, checkpoint_check: 'mismatched' });
    // The new checkpoint states only what still verifies.
    expect(decodeJwt(checked.body.checkpoint)).toMatchObject({ sequence: 6, head_hash: await hashAt(a.id, 6) });
  });

  test('the service does not write on silently: the chain is marked where it was cut, stays invalid, and the sealer says so', async () => {
    const { a, policyId } = await accountWithHistory();
    const kept = (await a.test.get('/v1/audit-logs/verify')).body.checkpoint as string;
    const said: Array<Record<string, unknown>> = [];
    const log = { error: (o: Record<string, unknown>) => said.push(o), warn: () => {}, info: () => {} };
    const stopSealer = startAuditSealer(db(), log as never, 50);
    try {
      await truncateAfter(a.id, 6);
      expect((await a.test.patch(`/v1/policies/${policyId}`, { name: 'after the cut' })).status).toBe(200);
      const cut = await until('the sealer to report the cut', () => said.find((o) => o.account_id === a.id));
      expect(cut).toMatchObject({ livemode: false, head_sequence: 6, first_time: true });
    } finally {
      await stopSealer();
    }
    const head = await db().selectFrom('audit_chains').selectAll().where('account_id', '=', a.id).where('livemode', '=', false).executeTakeFirstOrThrow();
    expect(head.tampered_at).not.toBeNull();
    expect(Number(head.tampered_sequence)).toBe(6);
    expect(Number(head.sequence)).toBe(7);

    // Written on after the mark (sequence 7 again, another record): still invalid, for good.
    const res = await a.test.get('/v1/audit-logs/verify');
    expect(res.body).toMatchObject({ valid: false, records: 7, first_invalid: { sequence: 6 } });
    expect((await a.test.get(`/v1/audit-logs/verify?checkpoint=${kept}`)).body).toMatchObject({ valid: false, checkpoint_check: 'mismatched' });
    // Clearing the mark needs the triggers off again: the head only moves forward.
    await expect(sql`UPDATE audit_chains SET tampered_at = NULL, tampered_sequence = NULL WHERE account_id = ${a.id} AND livemode = false`.execute(db())).rejects.toThrow(/forward only/);
    await expect(sql`UPDATE audit_chains SET sequence = 3 WHERE account_id = ${a.id} AND livemode = false`.execute(db())).rejects.toThrow(/forward only/);
    await expect(sql`DELETE FROM audit_chains WHERE account_id = ${a.id} AND livemode = false`.execute(db())).rejects.toThrow(/forward only/);
  });

  test('decision records among the deleted ones are counted as decisions without a record', async () => {
    const { a } = await accountWithHistory();
    await truncateAfter(a.id, 4);
    const res = await a.test.get('/v1/audit-logs/verify');
    expect(res.body).toMatchObject({ valid: false, records: 4, decisions_without_record: 2 });
  });

  test('a head row saved beforehand and put back as it was passes the head check, but not a checkpoint kept since', async () => {
    const { a, policyId } = await accountWithHistory();
    const saved = await db().selectFrom('audit_chains').selectAll().where('account_id', '=', a.id).where('livemode', '=', false).executeTakeFirstOrThrow();
    expect((await a.test.patch(`/v1/policies/${policyId}`, { name: 'the change to hide' })).status).toBe(200);
    const kept = (await a.test.get('/v1/audit-logs/verify')).body.checkpoint as string;

    await asInsider(async (trx) => {
      await sql`DELETE FROM audit_records WHERE account_id = ${a.id} AND livemode = false AND sequence > 8`.execute(trx);
      await sql`UPDATE audit_chains SET sequence = ${saved.sequence}, head_hash = ${saved.head_hash}, head_mac = ${saved.head_mac} WHERE account_id = ${a.id} AND livemode = false`.execute(trx);
    });

    // What the database alone can no longer tell (docs/security.md): only the kept checkpoint shows it.
    expect((await a.test.get(`/v1/audit-logs/verify?checkpoint=${kept}`)).body).toMatchObject({ valid: false, checkpoint_check: 'mismatched' });
    expect(decodeJwt(kept)).toMatchObject({ sequence: 9 });
    expect((await a.test.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true, records: 8 });
  });
});

describe('a whole chain deleted, head row included', () => {
  test('verify no longer answers valid with 0 records: the decisions are still there without theirs', async () => {
    const { a, decisionIds } = await accountWithHistory();
    const kept = (await a.test.get('/v1/audit-logs/verify')).body.checkpoint as string;
    await asInsider(async (trx) => {
      await sql`DELETE FROM audit_records WHERE account_id = ${a.id} AND livemode = false`.execute(trx);
      await sql`DELETE FROM audit_chains WHERE account_id = ${a.id} AND livemode = false`.execute(trx);
    });

    const res = await a.test.get('/v1/audit-logs/verify');
    expect(res.body).toMatchObject({ valid: false, records: 0 });
    expect(res.body).toMatchObject({ decisions_without_record: decisionIds.length });
    expect(decodeJwt(res.body.checkpoint)).toMatchObject({ sequence: 0 });
    expect((await a.test.get(`/v1/audit-logs/verify?checkpoint=${kept}`)).body).toMatchObject({ valid: false, checkpoint_check: 'mismatched' });

    // A new chain begins with the next record; the missing decisions keep it invalid.
    expect((await a.test.post('/v1/policies', policyBody({ name: 'fresh start' }))).status).toBe(201);
    expect((await a.test.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: false, records: 1, decisions_without_record: decisionIds.length });
  });

  test('records left behind a deleted head row: the new head is marked tampered', async () => {
    const { a, policyId } = await accountWithHistory();
    await asInsider(async (trx) => {
      await sql`DELETE FROM audit_chains WHERE account_id = ${a.id} AND livemode = false`.execute(trx);
    });
    expect((await a.test.patch(`/v1/policies/${policyId}`, { name: 'after' })).status).toBe(200);
    const res = await a.test.get('/v1/audit-logs/verify');
    expect(res.body).toMatchObject({ valid: false });
    const head = await db().selectFrom('audit_chains').select(['tampered_at', 'tampered_sequence']).where('account_id', '=', a.id).where('livemode', '=', false).executeTakeFirstOrThrow();
    expect(head.tampered_at).not.toBeNull();
  });
});

describe('the checkpoint itself', () => {
  test('is a JWS of the token-signing key with typ audit-checkpoint+jwt, and an untouched chain matches it', async () => {
    const { a } = await accountWithHistory();
    const first = (await a.test.get('/v1/audit-logs/verify')).body;
    expect(first).toMatchObject({ valid: true, decisions_without_record: 0, checkpoint_check: null });
    const kept = first.checkpoint as string;
    expect(decodeProtectedHeader(kept)).toEqual({ alg: 'EdDSA', kid: ctx.signer.keys.current.kid, typ: 'audit-checkpoint+jwt' });
    expect((await a.test.post('/v1/policies', policyBody({ name: 'later' }))).status).toBe(201);
    expect((await a.test.get(`/v1/audit-logs/verify?checkpoint=${kept}`)).body).toMatchObject({ valid: true, records: 9, checkpoint_check: 'matched' });
  });
});

describe('a head moved by anything but a current sealer', () => {
  test("a sealer of the version before (no head MAC), still running during a deploy, moves no head: its records wait for a current sealer", async () => {
    const { a } = await accountWithHistory();
    // What that sealer ran: an upsert of the head without its MAC, then the head moved without a new one.
    await expect(sql`INSERT INTO audit_chains (account_id, livemode, sequence, head_hash) VALUES (${a.id}, false, 0, ${'0'.repeat(64)})
      ON CONFLICT (account_id, livemode) DO UPDATE SET sequence = audit_chains.sequence`.execute(db())).rejects.toThrow(/head_mac/);
    await expect(sql`UPDATE audit_chains SET sequence = sequence + 1, head_hash = ${'a'.repeat(64)} WHERE account_id = ${a.id} AND livemode = false`.execute(db())).rejects.toThrow(/forward only/);
    expect((await a.test.post('/v1/policies', policyBody({ name: 'during the deploy' }))).status).toBe(201);
    expect((await a.test.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true, records: 9 });
  });
});
