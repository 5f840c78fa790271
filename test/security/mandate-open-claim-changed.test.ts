/**
 * Attack: the agent's closed mandate departs from what the person signed: a payee other than the
 * open mandate's preset `payee`, or constraints of its own smuggled into the closed mandate (a
 * looser amount range) in the hope that they replace the open ones. A changed open claim is
 * `mandate_mismatch` (DECISIONS §20 step 6); only the open mandate's constraints count, so the
 * smuggled ones change nothing.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { DEFAULT_PAYEE, mandateFixture } from '../support/mandates.js';
import { presenting } from '../support/mandate-presenting.js';
import { keyOfJwk, reclose, reissue } from '../support/mandate-forge.js';

let ctx: TestContext;
let acct: TestAccount;
let p: ReturnType<typeof presenting>;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 10_000 });
  acct = await ctx.account('growth');
  p = presenting(ctx);
});
afterAll(() => ctx?.close());

test("a payee other than the open mandate's preset → mandate_mismatch, a denied decision", async () => {
  const fx = await mandateFixture(acct.test, { mandate: { payees: [DEFAULT_PAYEE, { id: 'merchant-2', name: 'Dog Store' }] } });
  // An open mandate with a preset payee, signed with the service's key (as an issuer that presets one would).
  const credential = reissue(fx.mandate.credential, ctx.mandateKeys.current.privateKey, { delegate: (d) => ({ ...d, payee: DEFAULT_PAYEE }) });
  const res = await p.verify(acct.test, fx, await p.close(fx, { payee: { id: 'merchant-2', name: 'Dog Store' } }, credential));
  expect(res.body).toMatchObject({ status: 'Error', error: 'invalid_mandate' });
  expect((await acct.test.get(`/v1/decisions/${res.body.decision_id}`)).body).toMatchObject({ decision: 'denied', reason_code: 'mandate_mismatch' });
});

test('constraints smuggled into the closed mandate are ignored: the open amount range still refuses', async () => {
  const fx = await mandateFixture(acct.test, { mandate: { amount_max: 500 } });
  const loose = [{ type: 'payment.amount_range', currency: 'USD', max: 1_000_000 }];
  const presentation = reclose(await p.close(fx), keyOfJwk(fx.privateJwk), { delegate: (d) => ({ ...d, constraints: loose }), payload: (b) => ({ ...b, constraints: loose }) });
  const res = await p.verify(acct.test, fx, presentation);
  expect(res.body).toMatchObject({ status: 'Error', error: 'invalid_mandate' });
  expect(res.body.error_description).toMatch(/^payment\.amount_range: /);
});
