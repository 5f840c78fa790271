/**
 * Attack: someone replays a decided presentation to read its answer (it holds a `gca_` token). A
 * replay is the mandate's answer, so any key allowed to verify the mandate gets it (the account's
 * admin keys, its agent's keys), but a key of another account, or of the other mode, is stopped at
 * step 2 (DECISIONS §20), before the replay lookup of step 3: it never sees the stored answer.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { agentApiKey, mandateFixture } from '../support/mandates.js';
import { presenting } from '../support/mandate-presenting.js';

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

test("the first answer to the agent's key and another admin key; never to another account's or mode's key", async () => {
  const fx = await mandateFixture(a.test);
  const presentation = await p.close(fx);
  const first = await p.verify(a.test, fx, presentation);
  expect(first.body.status).toBe('Success');

  const secondAdmin = await a.test.post('/v1/api-keys', { name: 'second admin', role: 'admin' });
  for (const caller of [await agentApiKey(ctx, a.test, fx.agentId), ctx.client(secondAdmin.body.key)]) {
    const again = await p.verify(caller, fx, presentation);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  }
  for (const caller of [b.test, a.live!, await agentApiKey(ctx, a.test, (await mandateFixture(a.test)).agentId)]) {
    const res = await p.verify(caller, fx, presentation);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(res.body).toMatchObject({ status: 'Error', error: 'invalid_credential', decision_id: null });
    expect(res.text).not.toContain(first.body.authorization_token);
  }
});
