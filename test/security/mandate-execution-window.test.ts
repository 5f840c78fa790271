/**
 * Attack: the agent opens a mandate's execution window itself. The payment and its `gca_` token are
 * issued at verification, yet an `execution_date` the agent writes into its closed mandate was what
 * the window was checked against: a window that closed on 2026-01-01 paid today with
 * `execution_date: 2025-12-31`, and one opening 2027-06-01 paid months early with a date inside
 * it. DECISIONS §20 step 7: now must lie in the window, and a given `execution_date` must be within
 * 300 s of now.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { mandateFixture } from '../support/mandates.js';
import { decisionCount, presenting } from '../support/mandate-presenting.js';

let ctx: TestContext;
let acct: TestAccount;
let p: ReturnType<typeof presenting>;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 10_000 });
  acct = await ctx.account('growth');
  p = presenting(ctx);
});
afterAll(() => ctx?.close());

const refusedAsWindow = (body: any) => {
  expect(body).toMatchObject({ status: 'Error', error: 'invalid_mandate' });
  expect(body.error_description).toMatch(/^payment\.execution_date: /);
  expect(body.authorization_token).toBeUndefined();
};

test('a window that has closed is not reopened by a date inside it', async () => {
  const fx = await mandateFixture(acct.test, { mandate: { execution_window: { not_before: '2025-01-01T00:00:00Z', not_after: '2026-01-01T00:00:00Z' } } });
  const res = await p.verify(acct.test, fx, await p.close(fx, { execution_date: '2025-12-31T00:00:00Z' }));
  refusedAsWindow(res.body);
  expect((await acct.test.get(`/v1/decisions/${res.body.decision_id}`)).body).toMatchObject({ decision: 'denied', reason_code: 'mandate_constraint_failed' });
});

test('a window not yet open is not opened early by a date inside it', async () => {
  const fx = await mandateFixture(acct.test, { mandate: { execution_window: { not_before: '2027-06-01T00:00:00Z' }, expires_in: 31_622_400 } });
  refusedAsWindow((await p.verify(acct.test, fx, await p.close(fx, { execution_date: '2027-06-02T00:00:00Z' }))).body);
  refusedAsWindow((await p.verify(acct.test, fx, await p.close(fx))).body);
  expect(await decisionCount(ctx, fx.agentId)).toBe(2);
});

test('inside an open window, a date far from now is refused and now (or none) pays', async () => {
  const fx = await mandateFixture(acct.test, {
    mandate: { execution_window: { not_before: '2020-01-01T00:00:00Z', not_after: '2099-01-01T00:00:00Z' }, recurrence: { frequency: 'ON_DEMAND' }, budget: 100_000 },
  });
  refusedAsWindow((await p.verify(acct.test, fx, await p.close(fx, { execution_date: new Date(Date.now() + 3_600_000).toISOString() }))).body);
  const now = await p.verify(acct.test, fx, await p.close(fx, { execution_date: new Date().toISOString() }));
  expect(now.body, now.text).toMatchObject({ status: 'Success' });
  const none = await p.verify(acct.test, fx, await p.close(fx));
  expect(none.body).toMatchObject({ status: 'Success' });
});
