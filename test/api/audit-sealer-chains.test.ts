// The sealer finds the chains with unsealed records by probing the unsealed-records index chain by
// chain, never by reading the whole audit table (which it did, 4 times a second, once the
// planner's statistics said many records were unsealed).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { auditInsert, auditRecord, CHAINS_WITH_UNSEALED, sealAllChains } from '../../src/audit/audit.repository.js';
import { createTestContext, type TestContext } from '../support/context.js';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx?.close());

const write = (accountId: string, livemode: boolean, n = 1) =>
  ctx.database.db.transaction().execute(async (trx) => {
    for (let i = 0; i < n; i++) await auditInsert(trx, auditRecord({ accountId, livemode, type: 'test.sealer', actor: { type: 'system', id: null } })).execute();
  });

describe('the sealer', () => {
  test('seals every chain that has unsealed records, in both modes, and none twice', async () => {
    const [a, b, c] = [await ctx.account('growth'), await ctx.account('growth'), await ctx.account('growth')];
    // What creating the accounts recorded is sealed first.
    await sealAllChains(ctx.database.db);
    await write(a.id, false, 3);
    await write(a.id, true, 2);
    await write(b.id, false, 1);
    await write(c.id, true, 4);
    // Other test files may write to the same database meanwhile: only these accounts' chains are looked at.
    const ours = new Set([a.id, b.id, c.id]);
    const chainsOfOurs = async () =>
      (await CHAINS_WITH_UNSEALED.execute(ctx.database.db)).rows.filter((r) => ours.has(r.account_id)).map((r) => `${r.account_id}:${r.livemode}`);
    expect((await chainsOfOurs()).sort()).toEqual([`${a.id}:false`, `${a.id}:true`, `${b.id}:false`, `${c.id}:true`].sort());
    await sealAllChains(ctx.database.db);
    expect(await chainsOfOurs()).toEqual([]);
    const unsealed = await sql<{ n: number }>`SELECT count(*)::int AS n FROM audit_records WHERE account_id IN (${sql.join([...ours])}) AND hash IS NULL`.execute(ctx.database.db);
    expect(unsealed.rows[0]!.n).toBe(0);
    for (const acct of [a, b]) expect((await acct.test.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true });
    expect((await c.live!.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true });
  });

  test('finding the chains reads the unsealed-records index, not the table, even when the statistics are stale', async () => {
    const a = await ctx.account('growth');
    await write(a.id, false, 2_000);
    // The statistics now say thousands of records are unsealed; sealing them does not update them.
    await sql`ANALYZE audit_records`.execute(ctx.database.db);
    await sealAllChains(ctx.database.db);
    await write(a.id, false, 1);
    const plan = (await sql<{ 'QUERY PLAN': string }>`EXPLAIN ${CHAINS_WITH_UNSEALED}`.execute(ctx.database.db)).rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toContain('audit_records_unsealed_idx');
    expect(plan).not.toMatch(/Seq Scan on audit_records/);
    await sealAllChains(ctx.database.db);
    const unsealed = await sql<{ n: number }>`SELECT count(*)::int AS n FROM audit_records WHERE account_id = ${a.id} AND hash IS NULL`.execute(ctx.database.db);
    expect(unsealed.rows[0]!.n).toBe(0);
  });
});
