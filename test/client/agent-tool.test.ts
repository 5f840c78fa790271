/**
 * `authorizeSpendTool` as the OpenAI Agents SDK builds it (`tool()` of `@openai/agents`, JSON
 * Schema parameters, strict false): the tool object's schema is ours and has the input shape of the
 * MCP tool `authorize_spend`, and invoking the tool object (as the SDK's runner does with the
 * model's arguments) decides against the real service on 127.0.0.1. No model, no network beyond
 * 127.0.0.1 (tracing off). The engine is the FAKE inline gateway (test/support/fake-gateway.ts).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { RunContext, setTracingDisabled, tool } from '@openai/agents';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { authorizeSpendTool, SpendAuth, AUTHORIZE_SPEND_PARAMETERS } from '../../src/client/index.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { agentWithPolicy, createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { FakeInlineGateway } from '../support/fake-gateway.js';

let ctx: TestContext;
let acct: TestAccount;
let agentId: string;
let agentKey: string;

beforeAll(async () => {
  setTracingDisabled(true);
  ctx = await createTestContext({ gateway: (deps) => new FakeInlineGateway(deps), testModeRateLimit: 10_000 });
  acct = await ctx.account();
  ({ agentId } = await agentWithPolicy(acct.test, { require_approval_above: 1_000 }));
  agentKey = (await acct.test.post('/v1/api-keys', { name: 'agent', role: 'agent', agent_id: agentId })).body.key;
});
afterAll(() => ctx?.close());

/** What a developer writes: the SDK's tool from our definition. */
function agentsSdkTool(key: string, wait?: number) {
  const spend = authorizeSpendTool(new SpendAuth({ baseUrl: `${ctx.baseUrl}/v1`, apiKey: key }), wait === undefined ? {} : { wait });
  return tool({ name: spend.name, description: spend.description, parameters: spend.parameters, strict: false, execute: (input) => spend.invoke(input) });
}

/** The SDK calls a function tool with the model's arguments as JSON text. */
const call = async (t: ReturnType<typeof agentsSdkTool>, args: Record<string, unknown>) => JSON.parse(String(await t.invoke(new RunContext(), JSON.stringify(args))));

describe('the tool object the OpenAI Agents SDK builds', () => {
  test('is a non-strict function tool named authorize_spend whose JSON Schema is ours; its description says what each outcome means', () => {
    const t = agentsSdkTool(agentKey, 30);
    expect(t).toMatchObject({ type: 'function', name: 'authorize_spend', strict: false });
    expect(t.parameters).toEqual(AUTHORIZE_SPEND_PARAMETERS);
    expect(JSON.parse(JSON.stringify(t.parameters))).toEqual(t.parameters);
    for (const word of ['approved', 'denied', 'held', 'authorization_token', 'minor units', 'waits up to 30 s']) expect(t.description).toContain(word);
  });

  test("has the input shape of the MCP tool authorize_spend: the same members, required ones and types", async () => {
    const server = createMcpServer({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: agentKey });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'shape-check', version: '0.0.0' });
    await Promise.all([server.connect(a), client.connect(b)]);
    const mcp = (await client.listTools()).tools.find((t) => t.name === 'authorize_spend')!.inputSchema as { properties: Record<string, { type?: string }>; required?: string[] };
    await client.close();
    const ours = agentsSdkTool(agentKey).parameters as unknown as typeof AUTHORIZE_SPEND_PARAMETERS;
    expect(Object.keys(ours.properties).sort()).toEqual(Object.keys(mcp.properties).sort());
    expect([...ours.required].sort()).toEqual([...(mcp.required ?? [])].sort());
    for (const [name, schema] of Object.entries(ours.properties)) expect(schema.type, name).toBe(mcp.properties[name]!.type);
  });
});

describe('invoking it', () => {
  test('approved: the decision object as JSON, with its token', async () => {
    const d = await call(agentsSdkTool(agentKey), { agent_id: agentId, amount: 500, currency: 'USD', vendor: 'openai.com', category: 'saas', metadata: { ticket: 'T-1' } });
    expect(d).toMatchObject({ object: 'decision', decision: 'approved', agent_id: agentId, amount: 500, metadata: { ticket: 'T-1' } });
    expect(d.authorization_token).toMatch(/^gca_/);
  });

  test('an agent key may omit agent_id: its own agent', async () => {
    const d = await call(agentsSdkTool(agentKey), { amount: 200, currency: 'USD', vendor: 'openai.com' });
    expect(d).toMatchObject({ decision: 'approved', agent_id: agentId });
  });

  test('held, waited for, and approved meanwhile: answers approved', async () => {
    const t = agentsSdkTool(agentKey, 20);
    const answer = call(t, { agent_id: agentId, amount: 4_200, currency: 'USD', vendor: 'hotel.example', idempotency_key: 'trip-42' });
    let id: string | undefined;
    for (let i = 0; i < 100 && !id; i++) {
      const pending = await acct.test.get(`/v1/approvals?status=pending&agent_id=${agentId}`);
      id = (pending.body.data as { decision_id: string; amount: number }[]).find((d) => d.amount === 4_200)?.decision_id;
      if (!id) await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 200));
    expect((await acct.test.post(`/v1/approvals/${id}/approve`)).status).toBe(200);
    expect(await answer).toMatchObject({ decision_id: id, decision: 'approved' });
    // The idempotency_key given is the call's Idempotency-Key: the same purchase again is the same decision.
    expect(await call(t, { agent_id: agentId, amount: 4_200, currency: 'USD', vendor: 'hotel.example', idempotency_key: 'trip-42' })).toMatchObject({ decision_id: id });
  });

  test('without a wait given, the tool waits up to 60 s for a held decision (a model rarely wants held at once); wait 0 answers held', async () => {
    const t = agentsSdkTool(agentKey);
    expect(t.description).toContain('waits up to 60 s');
    const answer = call(t, { agent_id: agentId, amount: 4_300, currency: 'USD', vendor: 'hotel.example' });
    let id: string | undefined;
    for (let i = 0; i < 100 && !id; i++) {
      const pending = await acct.test.get(`/v1/approvals?status=pending&agent_id=${agentId}`);
      id = (pending.body.data as { decision_id: string; amount: number }[]).find((d) => d.amount === 4_300)?.decision_id;
      if (!id) await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await acct.test.post(`/v1/approvals/${id}/approve`)).status).toBe(200);
    expect(await answer).toMatchObject({ decision_id: id, decision: 'approved' });
    expect(await call(agentsSdkTool(agentKey, 0), { agent_id: agentId, amount: 4_400, currency: 'USD', vendor: 'hotel.example' })).toMatchObject({ decision: 'held' });
  });

  test('an invalid argument: an error object the model can read (code, message, param, request_id), not a throw', async () => {
    const e = await call(agentsSdkTool(agentKey), { agent_id: agentId, amount: 12.5, currency: 'USD', vendor: 'openai.com' });
    expect(e).toEqual({ error: { code: 'invalid_request', message: expect.any(String), param: 'amount', request_id: expect.stringMatching(/^req_/) } });
    const admin = await call(agentsSdkTool(acct.test.key), { amount: 1, currency: 'USD', vendor: 'a.example' });
    expect(admin.error).toMatchObject({ code: 'invalid_request', param: 'agent_id' });
  });
});
