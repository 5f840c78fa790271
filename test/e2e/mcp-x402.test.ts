/**
 * The MCP tool `fetch_paid_resource` end to end: the SDK's own Client over a real stdio transport
 * spawns `node bin/spend-auth.js mcp` with the x402 variables, and the tool pays paywalled
 * endpoints (`@x402/express` on 127.0.0.1, settling through the local facilitator) only as the
 * agent's policy in the real app allows. Held requests are resolved through the fake inline
 * workflow engine, as in the approvals tests.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { findDecisionById } from '../../src/decisions/decisions.repository.js';
import { markOutboxDone } from '../../src/outbox/outbox.repository.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';
import { FakeInlineGateway } from '../support/fake-gateway.js';
import { startFacilitator, type LocalFacilitator } from '../support/x402-facilitator.js';
import { startMerchant, TEST_NETWORK, type Merchant } from '../support/x402-merchant.js';
import { TEST_PRIVATE_KEY } from '../support/x402-payer.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'spend-auth.js');
const SPAWN_TIMEOUT = 60_000;
const PAY_TO = '0x1111111111111111111111111111111111111111';

interface Connected {
  client: Client;
  stderr(): string;
  close(): Promise<void>;
}

async function connect(env: Record<string, string>): Promise<Connected> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd: ROOT, env: { ...getDefaultEnvironment(), ...env }, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'spend-auth-x402-e2e', version: '0.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

const fetchPaid = async (c: Connected, args: Record<string, unknown>) => (await c.client.callTool({ name: 'fetch_paid_resource', arguments: args })) as CallToolResult;
const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

let ctx: TestContext;
let acct: TestAccount;
let facilitator: LocalFacilitator;
let agentId: string;
let agentKey: string;
let cheap: Merchant;
let costly: Merchant;
let reviewed: Merchant;
let impostor: Merchant;
let on: Connected;

beforeAll(async () => {
  ctx = await createTestContext({ gateway: (deps) => new FakeInlineGateway(deps), testModeRateLimit: 100_000 });
  acct = await ctx.account('growth');
  // Up to 2 cents approved; more held; more than 5 cents denied.
  const policy = await acct.test.post('/v1/policies', policyBody({ require_approval_above: 2, budget_single_max: 5 }));
  agentId = (await acct.test.post('/v1/agents', { name: 'mcp-x402', policy_id: policy.body.id })).body.id;
  agentKey = (await acct.test.post('/v1/api-keys', { name: 'mcp-x402', role: 'agent', agent_id: agentId })).body.key;
  facilitator = await startFacilitator({ networks: [TEST_NETWORK] });
  const merchant = (price: string, resource?: string) =>
    startMerchant({ facilitatorUrl: facilitator.url, price: () => price, payTo: () => PAY_TO, ...(resource ? { resource } : {}) });
  [cheap, costly, reviewed, impostor] = await Promise.all([merchant('$0.01'), merchant('$0.10'), merchant('$0.03'), merchant('$0.01', 'https://trusted.example/report')]);
  on = await connect({ SPEND_AUTH_BASE_URL: `${ctx.baseUrl}/v1`, SPEND_AUTH_API_KEY: agentKey, SPEND_AUTH_X402_PRIVATE_KEY: TEST_PRIVATE_KEY, SPEND_AUTH_X402_ALLOW_PRIVATE_URLS: 'true' });
}, SPAWN_TIMEOUT);
afterAll(async () => {
  await on?.close();
  for (const m of [cheap, costly, reviewed, impostor]) await m?.close();
  await facilitator?.close();
  await ctx?.close();
});

const payments = () => facilitator.calls.filter((c) => c.path !== '/supported');

describe('fetch_paid_resource', () => {
  test('is listed with its schemas when SPEND_AUTH_X402_PRIVATE_KEY is set', async () => {
    const { tools } = await on.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['authorize_spend', 'fetch_paid_resource', 'get_decision']);
    const tool = tools.find((t) => t.name === 'fetch_paid_resource')!;
    expect(Object.keys(tool.inputSchema.properties ?? {}).sort()).toEqual(['body', 'method', 'url']);
    expect(tool.inputSchema.required).toEqual(['url']);
    expect(tool.outputSchema?.properties).toHaveProperty('payment');
    await vi.waitFor(() => expect(on.stderr()).toContain('spend-auth mcp: tools authorize_spend, get_decision and fetch_paid_resource'));
  });

  test('approved: pays once, returns the resource and what was paid (decision, amount, transaction)', async () => {
    const before = payments().length;
    const r = await fetchPaid(on, { url: `${cheap.url}/report` });
    expect(r.isError, text(r)).toBeFalsy();
    const sc = r.structuredContent as { status: number; body: string; payment: Record<string, unknown> };
    expect(sc).toMatchObject({ status: 200, content_type: expect.stringContaining('application/json'), truncated: false });
    expect(JSON.parse(sc.body)).toEqual({ report: 'the paid content' });
    expect(sc.payment).toMatchObject({ decision_id: expect.stringMatching(/^dec_/), amount: 1, currency: 'USD', status: 'captured', network: TEST_NETWORK, transaction: expect.stringMatching(/^0x/) });
    expect(text(r)).toMatch(/^Paid 0\.01 USD for http:\/\/127\.0\.0\.1:\d+\/report \(decision dec_\w+, transaction 0x[0-9a-f]{64}\)\. HTTP 200\./);
    expect(payments().slice(before).map((c) => c.path)).toEqual(['/verify', '/settle']);
    const d = (await acct.test.get(`/v1/decisions/${sc.payment.decision_id}`)).body;
    expect(d).toMatchObject({ agent_id: agentId, category: 'x402', capture: { status: 'captured', metadata: { transaction: sc.payment.transaction } } });
  });

  test('denied: a tool error with the decision reason; the merchant never sees a payment', async () => {
    const before = payments().length;
    const r = await fetchPaid(on, { url: `${costly.url}/report` });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^spend authorization denied \(budget_exceeded\): .*\(decision dec_\w+\)\. No payment was made\.$/);
    expect(costly.requests.every((q) => q.paymentSignature === undefined)).toBe(true);
    expect(payments().length).toBe(before);
  });

  test('held: a tool error naming the decision; once a reviewer approves, calling again pays under that decision', async () => {
    const held = await fetchPaid(on, { url: `${reviewed.url}/report` });
    expect(held.isError).toBe(true);
    const id = /decision (dec_\w+) awaits a reviewer/.exec(text(held))?.[1];
    expect(id, text(held)).toBeDefined();
    const outbox = await ctx.database.db.selectFrom('outbox').select('id').where('topic', '=', 'held_decision').where('ref_id', '=', id!).executeTakeFirstOrThrow();
    await ctx.gateway.startHeld((await findDecisionById(ctx.database.db, id!))!);
    await markOutboxDone(ctx.database.db, Number(outbox.id), new Date());
    expect((await acct.test.post(`/v1/approvals/${id}/approve`, {})).status).toBe(200);

    const paid = await fetchPaid(on, { url: `${reviewed.url}/report` });
    expect(paid.isError, text(paid)).toBeFalsy();
    expect((paid.structuredContent as { payment: { decision_id: string; status: string } }).payment).toMatchObject({ decision_id: id, status: 'captured', amount: 3 });
  });

  test('a payment declared for another host than the URL fetched is refused before anything is authorized', async () => {
    const r = await fetchPaid(on, { url: `${impostor.url}/report` });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/refused: the payment is declared for trusted\.example, but 127\.0\.0\.1:\d+ was requested\. No payment was made\./);
    expect(impostor.served).toEqual([]);
  });

  test('bad input: another scheme, a GET with a body → tool errors, nothing fetched', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://example.com/x', '/report']) {
      expect(text(await fetchPaid(on, { url }))).toBe('invalid_request: url must be an absolute http:// or https:// URL');
    }
    expect(text(await fetchPaid(on, { url: `${cheap.url}/report`, body: '{}' }))).toMatch(/^invalid_request: a GET request has no body/);
  });
});

describe('configuration', () => {
  test('without SPEND_AUTH_X402_PRIVATE_KEY the tool is not listed', async () => {
    const off = await connect({ SPEND_AUTH_BASE_URL: `${ctx.baseUrl}/v1`, SPEND_AUTH_API_KEY: agentKey });
    try {
      expect((await off.client.listTools()).tools.map((t) => t.name).sort()).toEqual(['authorize_spend', 'get_decision']);
    } finally {
      await off.close();
    }
  }, SPAWN_TIMEOUT);

  test('loopback, private and link-local addresses are refused unless SPEND_AUTH_X402_ALLOW_PRIVATE_URLS is set', async () => {
    const strict = await connect({ SPEND_AUTH_BASE_URL: `${ctx.baseUrl}/v1`, SPEND_AUTH_API_KEY: agentKey, SPEND_AUTH_X402_PRIVATE_KEY: TEST_PRIVATE_KEY, SPEND_AUTH_X402_AGENT_ID: agentId });
    try {
      const before = cheap.requests.length;
      for (const url of [`${cheap.url}/report`, 'http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/x', 'http://[::1]/x']) {
        const r = await fetchPaid(strict, { url });
        expect(r.isError, url).toBe(true);
        expect(text(r)).toMatch(/^invalid_request: url host .* resolves to a refused (loopback|linkLocal|private) address/);
      }
      expect(cheap.requests.length).toBe(before);
    } finally {
      await strict.close();
    }
  }, SPAWN_TIMEOUT);
});
