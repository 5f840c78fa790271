/**
 * The authorize path's statements run as named prepared statements on PostgreSQL
 * (src/db/prepared.ts). A migration that changes a table under them (a column added to agents,
 * as a rolling deploy does while the old API still serves) must not break the statements already
 * prepared on pooled connections.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { agentWithPolicy, createTestContext, type TestContext } from '../support/context.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ ownDatabase: true });
});
afterAll(() => ctx?.close());

describe.skipIf(!process.env.DATABASE_URL)('prepared statements on PostgreSQL', () => {
  test('a column added under prepared statements: authorizations go on answering 200', async () => {
    const acct = await ctx.account('growth');
    const { agentId } = await agentWithPolicy(acct.test, { budget_monthly: 10_000_000 });
    const authorize = () => acct.test.post('/v1/authorize', { agent_id: agentId, amount: 100, currency: 'USD', vendor: 'shop.example' });

    // Prepared on several pooled connections.
    const before = await Promise.all(Array.from({ length: 8 }, authorize));
    expect(before.map((r) => r.status)).toEqual(Array(8).fill(200));

    await sql`ALTER TABLE agents ADD COLUMN prepared_probe text`.execute(ctx.database.db);
    await sql`ALTER TABLE agent_spend ADD COLUMN prepared_probe text`.execute(ctx.database.db);

    const after = [];
    for (let i = 0; i < 8; i++) after.push(await authorize());
    after.push(...(await Promise.all(Array.from({ length: 8 }, authorize))));
    after.push(...(await Promise.all(Array.from({ length: 8 }, authorize))));
    expect(after.map((r) => r.status)).toEqual(Array(24).fill(200));
    expect(after.every((r) => r.body.decision === 'approved')).toBe(true);
  });
});
