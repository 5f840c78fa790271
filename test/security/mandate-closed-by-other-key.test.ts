/**
 * Attack: a mandate is closed with a key that is not its `cnf`: another agent's P-256 key (a
 * compromised sibling agent spending this agent's mandate), or another key of the same agent (one
 * the mandate was not bound to). Only the open mandate's `cnf.jwk` may sign the closed part
 * (DECISIONS §20 step 2): `invalid_credential`, nothing recorded.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { mandateAgent, mandateFixture, registerP256Key } from '../support/mandates.js';
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

test("closed with another agent's P-256 key → invalid_credential", async () => {
  const fx = await mandateFixture(acct.test);
  const other = await mandateAgent(acct.test);
  const res = await p.verify(acct.test, fx, await p.close({ ...fx, privateJwk: other.privateJwk }));
  expect(res.body).toMatchObject({ status: 'Error', error: 'invalid_credential', decision_id: null, mandate_id: null });
  expect(await decisionCount(ctx, fx.agentId)).toBe(0);
});

test('closed with a key of the same agent that is not the mandate\'s cnf → invalid_credential', async () => {
  const fx = await mandateFixture(acct.test);
  const second = await registerP256Key(acct.test, fx.agentId);
  const res = await p.verify(acct.test, fx, await p.close({ ...fx, privateJwk: second.key.privateJwk }));
  expect(res.body).toMatchObject({ status: 'Error', error: 'invalid_credential', decision_id: null });
  expect(await decisionCount(ctx, fx.agentId)).toBe(0);
  expect((await p.verify(acct.test, fx, await p.close(fx))).body.status).toBe('Success');
});
