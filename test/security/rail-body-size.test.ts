/**
 * Attack: a body over the size limit at a rail's endpoint (64 KiB, as everywhere): refused with
 * 413 before the signature is computed over it, nothing recorded.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { accountWithRail, postToRail, requestEvent } from '../support/stripe-issuing.js';

let ctx: TestContext;
let acct: TestAccount;
let rail: { id: string; secret: string };
let agentId: string;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  ({ acct, rail, agentId } = await accountWithRail(ctx));
});
afterAll(() => ctx?.close());

test('a signed event padded past 64 KiB → 413 invalid_request (body), nothing recorded', async () => {
  const event = requestEvent({ agentId, amount: 100 });
  (event.data.object as any).metadata = { padding: 'x'.repeat(70 * 1024) };
  const res = await postToRail(ctx, rail.id, event, { secret: rail.secret });
  expect(res.status).toBe(413);
  expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'body' });
  expect(await ctx.database.db.selectFrom('rail_authorizations').select('authorization_id').where('connection_id', '=', rail.id).execute()).toEqual([]);
});

test('just under the limit is read and verified', async () => {
  const event = requestEvent({ agentId, amount: 100 });
  const base = JSON.stringify(event).length;
  (event.data.object as any).metadata = { padding: 'x'.repeat(64 * 1024 - base - 100) };
  const res = await postToRail(ctx, rail.id, event, { secret: rail.secret });
  expect(res.status, res.text).toBe(200);
});

test('an unsigned body over the limit on an unknown connection is 413 too (the size is checked first)', async () => {
  const res = await postToRail(ctx, 'rail_doesnotexist00000000000', 'x'.repeat(65 * 1024 + 1), { header: null });
  expect(res.status).toBe(413);
});
