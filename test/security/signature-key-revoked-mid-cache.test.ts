/**
 * Attack: using a key revoked in another process while this one still has it cached (DECISIONS
 * §19 step 9, docs/api.md). The revocation is a direct UPDATE, as another process's looks to this
 * one: no cache is told. The very next request, with the key still in the 5 s cache, is refused
 * `signature_key_unknown` by the nonce statement, which re-reads the key, and nothing is decided.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { revokeKeyDirect, sendSigned, signWebBotAuth, signingAgent, spendOf } from '../support/agent-signing.js';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
}, 240_000);
afterAll(() => ctx?.close());

test('revoked behind the cache: the next signed request is signature_key_unknown, and no nonce or decision is written', async () => {
  const acct = await ctx.account();
  const agent = await signingAgent(ctx.database.db, acct.test);
  const authorize = () => sendSigned(ctx.baseUrl, agent.bearer, { method: 'POST', path: '/v1/authorize', body: spendOf(agent.agentId) }, (u) => signWebBotAuth(u, agent.ed));
  expect((await authorize()).status).toBe(200); // the agent's keys are now cached
  const count = async (table: 'decisions' | 'signature_nonces') =>
    table === 'decisions'
      ? (await ctx.database.db.selectFrom('decisions').select('id').where('agent_id', '=', agent.agentId).execute()).length
      : (await ctx.database.db.selectFrom('signature_nonces').select('nonce').where('agent_key_id', '=', agent.edId).execute()).length;
  const before = { decisions: await count('decisions'), nonces: await count('signature_nonces') };
  await revokeKeyDirect(ctx.database.db, agent.edId);
  const res = await authorize();
  expect(res.status).toBe(401);
  expect(res.body.error).toMatchObject({ code: 'signature_key_unknown', param: 'Signature-Input' });
  expect({ decisions: await count('decisions'), nonces: await count('signature_nonces') }).toEqual(before);
  // And from then on (the cache dropped the agent), still refused.
  expect((await authorize()).body.error.code).toBe('signature_key_unknown');
});
