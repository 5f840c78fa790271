/**
 * Attack: a mandate's presentation reaches the service through a key that has no business with it:
 * another account's admin key, the same account's key of the other mode (live for a test-mode
 * mandate), or an agent key of another agent of the account. Each gets `invalid_credential` at
 * step 2 (DECISIONS §20), with exactly the text an unknown `jti` gets: no existence oracle. Nothing
 * is decided, in either account.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { agentApiKey, mandateFixture } from '../support/mandates.js';
import { decisionCount, presenting } from '../support/mandate-presenting.js';
import { reissue } from '../support/mandate-forge.js';

let ctx: TestContext;
let a: TestAccount;
let b: TestAccount;
let p: ReturnType<typeof presenting>;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 10_000 });
  a = await ctx.account('growth');
  b = await ctx.account('growth');
  p = presenting(ctx);
});
afterAll(() => ctx?.close());

test("B's admin key, A's live key, another agent's key: invalid_credential, the text of an unknown jti", async () => {
  const fx = await mandateFixture(a.test);
  const presentation = await p.close(fx);
  const unknown = await p.verify(a.test, fx, await p.close(fx, {}, reissue(fx.mandate.credential, ctx.mandateKeys.current.privateKey, { payload: (x) => ({ ...x, jti: 'mdt_0000000000000000000000000' }) })));
  expect(unknown.body).toMatchObject({ status: 'Error', error: 'invalid_credential', mandate_id: null });

  const sibling = await mandateFixture(a.test);
  const callers = [b.test, a.live!, await agentApiKey(ctx, a.test, sibling.agentId)];
  for (const caller of callers) {
    const res = await p.verify(caller, fx, presentation);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'Error', error: 'invalid_credential', mandate_id: null, decision_id: null, error_description: unknown.body.error_description });
  }
  expect(await decisionCount(ctx, fx.agentId)).toBe(0);
  expect(await decisionCount(ctx, sibling.agentId)).toBe(0);
  // The mandate is still good where it belongs.
  expect((await p.verify(a.test, fx, presentation)).body.status).toBe('Success');
});
