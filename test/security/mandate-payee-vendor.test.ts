/**
 * Attack: the agent keeps an allowed payee's id but writes another website (or name) into its
 * closed mandate. The payment's vendor, what the policy's lists check and the `gca_` token names,
 * is derived from those fields, so the agent would choose the vendor it is judged as: a payee the
 * policy denylisted after issuance would be paid under another host's name.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { DEFAULT_PAYEE, mandateFixture } from '../support/mandates.js';
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

test("an allowed payee's id under another website or name is refused, and the honest one meets the policy", async () => {
  const fx = await mandateFixture(acct.test, { mandate: { recurrence: { frequency: 'ON_DEMAND' }, budget: 100_000 } });
  expect((await acct.test.patch(`/v1/policies/${fx.policyId}`, { vendor_denylist: ['cats.example'] })).status).toBe(200);

  for (const payee of [{ ...DEFAULT_PAYEE, website: 'https://dogs.example' }, { id: DEFAULT_PAYEE.id, name: 'dogs.example' }]) {
    const res = await p.verify(acct.test, fx, await p.close(fx, { payee }));
    expect(res.body).toMatchObject({ status: 'Error', error: 'invalid_mandate' });
    expect(res.body.error_description).toMatch(/^payment\.allowed_payees: /);
    expect(res.body.authorization_token).toBeUndefined();
  }
  const honest = await p.verify(acct.test, fx, await p.close(fx));
  expect(honest.body).toMatchObject({ status: 'Error', error: 'invalid_mandate' });
  const decision = (await acct.test.get(`/v1/decisions/${honest.body.decision_id}`)).body;
  expect(decision).toMatchObject({ decision: 'denied', reason_code: 'policy_denied', vendor: 'cats.example' });
  expect(await decisionCount(ctx, fx.agentId)).toBe(3);
});
