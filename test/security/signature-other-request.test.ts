/**
 * Attack: a valid signature moved to another request (DECISIONS §19 steps 5 and 7). A signature
 * for one decision used on another, an authorize signature sent to capture, another query string,
 * another method, another authority: each is `signature_invalid`, and nothing is decided.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { send, sendSigned, signWebBotAuth, signingAgent, spendOf, type SigningAgent, type Unsigned } from '../support/agent-signing.js';

let ctx: TestContext;
let agent: SigningAgent;
let decA: string;
let decB: string;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  const acct = await ctx.account();
  agent = await signingAgent(ctx.database.db, acct.test);
  const make = async () => {
    const res = await sendSigned(ctx.baseUrl, agent.bearer, { method: 'POST', path: '/v1/authorize', body: spendOf(agent.agentId) }, (u) => signWebBotAuth(u, agent.ed));
    if (res.status !== 200) throw new Error(`authorize: ${res.status} ${res.text}`);
    return res.body.decision_id as string;
  };
  decA = await make();
  decB = await make();
}, 240_000);
afterAll(() => ctx?.close());

/** Signs `signedAs` and sends the same headers (and body) as `sentAs`. */
async function moved(signedAs: { method: string; path: string; body?: unknown; url?: string }, sentAs: { method: string; path: string }) {
  const body = signedAs.body === undefined ? undefined : Buffer.from(JSON.stringify(signedAs.body));
  const u: Unsigned = { method: signedAs.method, url: signedAs.url ?? ctx.baseUrl + signedAs.path, headers: body ? { 'content-type': 'application/json' } : {}, body };
  const headers = await signWebBotAuth(u, agent.ed);
  return send(ctx.baseUrl, agent.bearer, { method: sentAs.method, path: sentAs.path, headers, body });
}

const decisionCount = async () => (await ctx.database.db.selectFrom('decisions').select('id').where('agent_id', '=', agent.agentId).execute()).length;

test.each([
  ['a read of one decision used on another', () => moved({ method: 'GET', path: `/v1/decisions/${decA}` }, { method: 'GET', path: `/v1/decisions/${decB}` })],
  ['an authorize signature sent to capture', () => moved({ method: 'POST', path: '/v1/authorize', body: { amount: 100 } }, { method: 'POST', path: `/v1/decisions/${decA}/capture` })],
  ['another query string', () => moved({ method: 'GET', path: `/v1/decisions/${decA}?wait=0` }, { method: 'GET', path: `/v1/decisions/${decA}?wait=1` })],
  ['another method', () => moved({ method: 'POST', path: `/v1/decisions/${decA}/void`, body: {} }, { method: 'PATCH', path: `/v1/decisions/${decA}/void` })],
  ['another authority', () => moved({ method: 'GET', path: `/v1/decisions/${decA}`, url: `http://api.other.example/v1/decisions/${decA}` }, { method: 'GET', path: `/v1/decisions/${decA}` })],
])('%s → signature_invalid', async (_name, attempt) => {
  const before = await decisionCount();
  const res = await attempt();
  expect(res.status, res.text).toBe(401);
  expect(res.body.error).toMatchObject({ code: 'signature_invalid', param: 'Signature-Input' });
  expect(await decisionCount()).toBe(before);
});

test('the same signature on the request it was made for passes (the attempts above fail for what they moved)', async () => {
  const res = await moved({ method: 'GET', path: `/v1/decisions/${decA}?wait=0` }, { method: 'GET', path: `/v1/decisions/${decA}?wait=0` });
  expect(res.status, res.text).toBe(200);
});
