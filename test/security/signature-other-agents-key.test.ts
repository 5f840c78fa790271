/**
 * Attack: signing with a key that is not the calling agent's (DECISIONS §19 step 3). Agent B's key
 * with agent A's bearer key, a key of another account, a key of the other mode: each is
 * `signature_key_unknown`, even with a signature that verifies under that key.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { newAgentKey, registerKeyDirect, sendSigned, signWebBotAuth, signingAgent, spendOf, type SigningAgent, type TestAgentKey } from '../support/agent-signing.js';

let ctx: TestContext;
let acct: TestAccount;
let a: SigningAgent;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  acct = await ctx.account();
  a = await signingAgent(ctx.database.db, acct.test);
}, 240_000);
afterAll(() => ctx?.close());

const authorizeAs = (agent: SigningAgent, key: TestAgentKey) =>
  sendSigned(ctx.baseUrl, agent.bearer, { method: 'POST', path: '/v1/authorize', body: spendOf(agent.agentId) }, (u) => signWebBotAuth(u, key));

const expectUnknown = (res: { status: number; body: any }) => {
  expect(res.status).toBe(401);
  expect(res.body.error).toMatchObject({ code: 'signature_key_unknown', param: 'Signature-Input' });
};

test("agent B's key with agent A's bearer key", async () => {
  const b = await signingAgent(ctx.database.db, acct.test);
  expect((await authorizeAs(b, b.ed)).status).toBe(200);
  expectUnknown(await authorizeAs(a, b.ed));
});

test("a key of another account's agent", async () => {
  const other = await ctx.account();
  const theirs = await signingAgent(ctx.database.db, other.test);
  expectUnknown(await authorizeAs(a, theirs.ed));
});

test('a key registered for the same agent id in the other mode is not found (keys are read in the caller’s mode)', async () => {
  const key = await newAgentKey();
  const { id } = await registerKeyDirect(ctx.database.db, a.agentId, key);
  // Moved to live mode behind the API's back: the agent's test-mode key list no longer holds it.
  await ctx.database.db.deleteFrom('agent_keys').where('id', '=', id).execute();
  await ctx.database.db
    .insertInto('agent_keys')
    .values({ id, account_id: (await ctx.database.db.selectFrom('agents').select('account_id').where('id', '=', a.agentId).executeTakeFirstOrThrow()).account_id, livemode: true, agent_id: a.agentId, name: null, alg: 'ed25519', jwk: JSON.stringify(key.publicJwk), thumbprint: key.thumbprint, directory_id: null, status: 'active', last_used_at: null, revoked_at: null, created_at: new Date() })
    .execute();
  expectUnknown(await authorizeAs(a, key));
});
