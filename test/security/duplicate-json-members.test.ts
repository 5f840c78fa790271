/**
 * Attack: a body whose reader and whose decider see different requests. JSON.parse keeps the last
 * of two members with one name, while a proxy, firewall or log that reads the first sees another
 * amount: `"amount":100,"amount":9999999` is logged as 100 and would be decided on 9,999,999. And
 * `__proto__` / `constructor` member names, which a merge or spread could turn into prototype
 * changes (today one inside metadata is silently dropped). Bodies are I-JSON: every such body is a
 * 400 `invalid_request` naming the member's path, and nothing is decided, written or billed.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestContext, policyBody, type ApiResponse, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;
let agentId: string;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  acct = await ctx.account('growth');
  const policy = await acct.test.post('/v1/policies', policyBody({ budget_single_max: 10_000_000, budget_monthly: 100_000_000 }));
  agentId = (await acct.test.post('/v1/agents', { name: 'buyer', policy_id: policy.body.id })).body.id;
});
afterAll(() => ctx?.close());

/** Sends the body text exactly as written (a client's JSON.stringify could never repeat a name). */
function sendRaw(path: string, text: string, headers: Record<string, string> = {}, method = 'POST'): Promise<ApiResponse> {
  return ctx.raw(path, { method, headers: { authorization: `Bearer ${acct.test.key}`, 'content-type': 'application/json', ...headers }, body: text });
}

const decisionsOf = async (agent: string) => (await ctx.database.db.selectFrom('decisions').select('id').where('agent_id', '=', agent).execute()).length;

function expectRefused(res: ApiResponse, param: string): void {
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
}

const authorizeText = (members: string) => `{"agent_id":"${agentId}","currency":"USD","vendor":"shop.example",${members}}`;

describe('a member name repeated in one object', () => {
  test.each([
    ['the amount twice', authorizeText('"amount":100,"amount":9999999'), 'amount'],
    ['the amount twice, the second spelled with an escape', authorizeText('"amount":100,"\\u0061mount":9999999'), 'amount'],
    ['the vendor twice, with whitespace around the names', `{ "agent_id" : "AGENT" , "amount" : 100 , "currency":"USD", "vendor" : "shop.example" , "vendor" : "evil.example" }`, 'vendor'],
    ['a metadata key twice', authorizeText('"amount":100,"metadata":{"po":"A-1","po":"B-2"}'), 'metadata.po'],
    ['a metadata key twice after a value that looks like members', authorizeText('"amount":100,"metadata":{"note":"a\\":1,\\"note\\":2","note":"x"}'), 'metadata.note'],
  ])('authorize with %s → 400 naming it; no decision', async (_what, text, param) => {
    const before = await decisionsOf(agentId);
    expectRefused(await sendRaw('/v1/authorize', text.replace('AGENT', agentId)), param);
    expect(await decisionsOf(agentId)).toBe(before);
  });

  test('the same name in different objects is fine (a metadata key called amount)', async () => {
    const res = await sendRaw('/v1/authorize', authorizeText('"amount":100,"metadata":{"amount":5,"vendor":"x"}'));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ amount: 100, vendor: 'shop.example', metadata: { amount: 5, vendor: 'x' } });
  });

  test('at any depth: inside an array of a simulation', async () => {
    const text = `{"policy":${JSON.stringify(policyBody())},"requests":[{"agent_id":"${agentId}","amount":1,"currency":"USD","vendor":"a.example"},{"agent_id":"${agentId}","amount":1,"amount":2,"currency":"USD","vendor":"a.example"}]}`;
    expectRefused(await sendRaw('/v1/policies/simulate', text), 'requests.1.amount');
  });

  test('on every surface: a PATCH, a policy, the quick-start authorize', async () => {
    expectRefused(await sendRaw(`/v1/agents/${agentId}`, '{"name":"a","name":"b"}', {}, 'PATCH'), 'name');
    expectRefused(await sendRaw('/v1/policies', `{"name":"p","budget_monthly":1,"budget_monthly":2,"budget_single_max":1}`), 'budget_monthly');
    expectRefused(await sendRaw('/authorize', '{"token":"dlt_x","amount":1,"amount":2,"merchant_name":"m","merchant_category":"c"}'), 'amount');
    expect((await acct.test.get(`/v1/agents/${agentId}`)).body.name).toBe('buyer');
  });

  test('a refused body does not bind its Idempotency-Key: the same key with a proper body is decided once', async () => {
    const key = `dup-${Math.random()}`;
    expectRefused(await sendRaw('/v1/authorize', authorizeText('"amount":100,"amount":9999999'), { 'idempotency-key': key }), 'amount');
    const ok = await sendRaw('/v1/authorize', authorizeText('"amount":100'), { 'idempotency-key': key });
    expect(ok.status).toBe(200);
    expect(ok.body.amount).toBe(100);
  });
});

describe('__proto__ and constructor as member names', () => {
  test.each([
    ['__proto__ at the top', authorizeText('"amount":100,"__proto__":{"admin":true}'), '__proto__'],
    ['__proto__ inside metadata (silently dropped before)', authorizeText('"amount":100,"metadata":{"__proto__":{"x":1}}'), 'metadata.__proto__'],
    ['__proto__ spelled with an escape', authorizeText('"amount":100,"metadata":{"\\u005f_proto__":"x"}'), 'metadata.__proto__'],
    ['constructor at the top', authorizeText('"amount":100,"constructor":{"prototype":{"x":1}}'), 'constructor'],
    ['constructor inside metadata', authorizeText('"amount":100,"metadata":{"constructor":"x"}'), 'metadata.constructor'],
  ])('%s → 400 naming it; no decision', async (_what, text, param) => {
    const before = await decisionsOf(agentId);
    const res = await sendRaw('/v1/authorize', text);
    expectRefused(res, param);
    expect(res.body.error.message).toMatch(/not allowed as a member name/);
    expect(await decisionsOf(agentId)).toBe(before);
  });

  test('deep inside an array', async () => {
    expectRefused(await sendRaw('/v1/policies/simulate', `{"policy_id":"pol_x","requests":[{"metadata":{"a":[{"constructor":1}]}}]}`), 'requests.0.metadata.a.0.constructor');
  });

  test('as a string value it is just text', async () => {
    const res = await sendRaw('/v1/authorize', authorizeText('"amount":100,"metadata":{"note":"__proto__ constructor"}'));
    expect(res.status).toBe(200);
    expect(res.body.metadata).toEqual({ note: '__proto__ constructor' });
  });
});

describe('a body nested as deep as 64 KiB allows', () => {
  const depth = 30_000;
  test.each([
    ['a repeated name at the bottom', '{"a":1,"a":2}', `${Array(depth).fill('0').join('.')}.a`],
    ['__proto__ at the bottom', '{"__proto__":1}', `${Array(depth).fill('0').join('.')}.__proto__`],
    ['a lone surrogate at the bottom', '"\\ud800"', Array(depth).fill('0').join('.')],
  ])('%s: 400 naming its path, never a 500', async (_what, inner, param) => {
    const res = await ctx.raw('/v1/policies/simulate', {
      method: 'POST',
      headers: { authorization: `Bearer ${acct.test.key}`, 'content-type': 'application/json' },
      body: `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`,
    });
    expectRefused(res, param);
  });
});

describe('what is not JSON is refused as before', () => {
  test.each(['{"amount":', '"just a string"', '42', 'null', '{"a":1}x'])('%s → 400 param body', async (text) => {
    expectRefused(await sendRaw('/v1/authorize', text), 'body');
  });

  test('a NUL escaped in a metadata key is still refused, naming its object', async () => {
    expectRefused(await sendRaw('/v1/authorize', authorizeText('"amount":100,"metadata":{"a\\u0000b":"x"}')), 'metadata');
  });
});
