/**
 * Spent signature nonces (DECISIONS §19, step 9) are kept until their signature's `expires` + 30 s,
 * which their `expires_at` already holds; housekeeping deletes them a minute after that, so the
 * table holds only what can still be replayed.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { NONCE_PURGE_MARGIN_MS, purgeExpiredNonces } from '../../src/agent-keys/nonce-purge.js';
import { createTestContext, type TestContext } from '../support/context.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ ownDatabase: true });
});
afterAll(() => ctx?.close());

test('nonces are deleted once their expiry is more than a minute past, and not before', async () => {
  const now = new Date('2030-01-01T00:00:00Z');
  const at = (offsetMs: number) => new Date(now.getTime() + offsetMs);
  const rows = [
    ['long-gone', at(-3_600_000)],
    ['just-past-the-margin', at(-NONCE_PURGE_MARGIN_MS - 1)],
    ['at-the-margin', at(-NONCE_PURGE_MARGIN_MS)],
    ['expired-within-the-margin', at(-1_000)],
    ['live', at(300_000)],
  ] as const;
  await ctx.database.db
    .insertInto('signature_nonces')
    .values(rows.map(([nonce, expires]) => ({ thumbprint: 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k', nonce: `${nonce}-0123456789`, agent_key_id: 'akey_x', expires_at: expires })))
    .execute();
  expect(await purgeExpiredNonces(ctx.database.db, now)).toBe(2);
  const left = await ctx.database.db.selectFrom('signature_nonces').select('nonce').orderBy('expires_at').execute();
  expect(left.map((r) => r.nonce.replace(/-0123456789$/, ''))).toEqual(['at-the-margin', 'expired-within-the-margin', 'live']);
  expect(await purgeExpiredNonces(ctx.database.db, now)).toBe(0);
});
