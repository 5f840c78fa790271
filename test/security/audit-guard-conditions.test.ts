// The append-only guard decides in its trigger's WHEN condition (migration 017) which updates reach
// the refusing function: every change but sealing an unsealed record, touching nothing else, must.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { auditInsert, auditRecord, sealChain } from '../../src/audit/audit.repository.js';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;

beforeAll(async () => {
  ctx = await createTestContext();
  acct = await ctx.account('growth');
});
afterAll(() => ctx?.close());

/** A new unsealed record of the account, by the repository's own insert. */
async function unsealed(): Promise<string> {
  const row = auditRecord({ accountId: acct.id, livemode: false, type: 'test.guard', actor: { type: 'system', id: null }, metadata: { n: 1 } });
  await auditInsert(ctx.database.db, row).execute();
  return row.id;
}

const seal = (id: string, extra: ReturnType<typeof sql> = sql``) =>
  sql`UPDATE audit_records SET sequence = 1000000 + (random() * 1000000)::int, hash = repeat('a', 64), prev_hash = repeat('b', 64) ${extra} WHERE id = ${id}`.execute(ctx.database.db);

describe('updates of an unsealed record', () => {
  test.each([
    ['its content', sql`, reason = 'rewritten'`],
    ['its metadata', sql`, metadata = '{"n":2}'`],
    ['its amount', sql`, amount = 1`],
    ['its MAC', sql`, mac = repeat('c', 64)`],
    ['its time', sql`, created_at = now() - interval '1 day'`],
    ['its account', sql`, livemode = true`],
  ])('sealing it while changing %s is refused', async (_what, extra) => {
    const id = await unsealed();
    await expect(seal(id, extra)).rejects.toThrow(/append-only \(UPDATE refused\)/);
  });

  test('a sequence without a hash, or a hash without a sequence, is refused', async () => {
    const id = await unsealed();
    await expect(sql`UPDATE audit_records SET sequence = 5000000 WHERE id = ${id}`.execute(ctx.database.db)).rejects.toThrow(/append-only/);
    await expect(sql`UPDATE audit_records SET hash = repeat('a', 64) WHERE id = ${id}`.execute(ctx.database.db)).rejects.toThrow(/append-only/);
  });

  test('changing the content alone is refused; an update that changes nothing is refused too', async () => {
    const id = await unsealed();
    await expect(sql`UPDATE audit_records SET vendor = 'elsewhere.example' WHERE id = ${id}`.execute(ctx.database.db)).rejects.toThrow(/append-only/);
    await expect(sql`UPDATE audit_records SET reason = reason WHERE id = ${id}`.execute(ctx.database.db)).rejects.toThrow(/append-only/);
  });
});

describe('updates of a sealed record', () => {
  test('re-linking, unsealing or moving it is refused, and the chain still verifies', async () => {
    await unsealed();
    await sealChain(ctx.database.db, acct.id, false);
    const { id } = (await sql<{ id: string }>`SELECT id FROM audit_records WHERE account_id = ${acct.id} AND hash IS NOT NULL ORDER BY sequence DESC LIMIT 1`.execute(ctx.database.db)).rows[0]!;
    for (const change of [sql`hash = repeat('d', 64)`, sql`hash = NULL, sequence = NULL`, sql`sequence = sequence + 1000`, sql`prev_hash = repeat('e', 64)`]) {
      await expect(sql`UPDATE audit_records SET ${change} WHERE id = ${id}`.execute(ctx.database.db)).rejects.toThrow(/append-only/);
    }
    expect((await acct.test.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true });
  });

  test('deleting one record is refused by its own trigger', async () => {
    const id = await unsealed();
    await expect(sql`DELETE FROM audit_records WHERE id = ${id}`.execute(ctx.database.db)).rejects.toThrow(/append-only \(DELETE refused\)/);
  });
});

test('the sealer still seals: the one allowed change passes the condition', async () => {
  const ids = [await unsealed(), await unsealed()];
  expect(await sealChain(ctx.database.db, acct.id, false)).toBeGreaterThanOrEqual(2);
  const rows = (await sql<{ hash: string | null }>`SELECT hash FROM audit_records WHERE id IN (${sql.join(ids)})`.execute(ctx.database.db)).rows;
  expect(rows.every((r) => r.hash !== null)).toBe(true);
  expect((await acct.test.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true });
});
