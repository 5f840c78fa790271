/**
 * End-to-end tests of `spend-auth mcp`: the SDK's own Client over a real stdio transport spawns
 * `node bin/spend-auth.js mcp`, which calls the real app this process runs (createTestContext).
 * Held requests are resolved through the fake inline workflow engine, as in the approvals tests.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { findDecisionById } from '../../src/decisions/decisions.repository.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { markOutboxDone } from '../../src/outbox/outbox.repository.js';
import { createTestContext, policyBody, UNREACHABLE_ENGINE_PORT, type TestAccount, type TestContext } from '../support/context.js';
import { FakeInlineGateway } from '../support/fake-gateway.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'spend-auth.js');
// tsx adds about a second per process; other test files share the cores.
const SPAWN_TIMEOUT = 60_000;

interface Connected {
  client: Client;
  stderr(): string;
  close(): Promise<void>;
}

async function connect(env: Record<string, string>): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp'],
    cwd: ROOT,
    env: { ...getDefaultEnvironment(), ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'spend-auth-e2e', version: '0.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

const call = async (c: Connected, name: string, args: Record<string, unknown>) => (await c.client.callTool({ name, arguments: args })) as CallToolResult;
const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

let ctx: TestContext;
let acct: TestAccount;
let admin: Connected;
let agentId: string;

beforeAll(async () => {
  ctx = await createTestContext({ gateway: (deps) => new FakeInlineGateway(deps) });
  acct = await ctx.account('growth');
  const policy = await acct.test.post('/v1/policies', policyBody({ require_approval_above: 5_000, vendor_denylist: ['casino.example'] }));
  agentId = (await acct.test.post('/v1/agents', { name: 'mcp-agent', policy_id: policy.body.id })).body.id;
  admin = await connect({ SPEND_AUTH_BASE_URL: `${ctx.baseUrl}/v1`, SPEND_AUTH_API_KEY: acct.test.key });
}, SPAWN_TIMEOUT);
afterAll(async () => {
  await admin?.close();
  await ctx?.close();
});

describe('spend-auth mcp over stdio', () => {
  test('lists authorize_spend and get_decision with their input and output schemas', async () => {
    const { tools } = await admin.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['authorize_spend', 'get_decision']);
    const authorize = tools.find((t) => t.name === 'authorize_spend')!;
    expect(Object.keys(authorize.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['agent_id', 'amount', 'currency', 'vendor', 'category', 'metadata']),
    );
    expect(authorize.inputSchema.required?.sort()).toEqual(['amount', 'currency', 'vendor']);
    expect(authorize.outputSchema?.properties).toHaveProperty('authorization_token');
    expect(authorize.outputSchema?.required).toEqual(expect.arrayContaining(['decision', 'decision_id']));
    // stderr is its own pipe: its line may arrive after the protocol's first answer.
    await vi.waitFor(() => expect(admin.stderr()).toContain('spend-auth mcp: tools authorize_spend and get_decision'));
  });

  test('an approved call returns the decision as text and structured content, with the gca_ token', async () => {
    const r = await call(admin, 'authorize_spend', { agent_id: agentId, amount: 1_999, currency: 'USD', vendor: 'openai.com', category: 'SaaS', metadata: { invoice: 'INV-7' } });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ decision: 'approved', status: 'approved', reason_code: null, agent_id: agentId, amount: 1_999, currency: 'USD', vendor: 'openai.com' });
    const sc = r.structuredContent as Record<string, string>;
    expect(sc.decision_id).toMatch(/^dec_/);
    expect(sc.authorization_token).toMatch(/^gca_/);
    expect(sc).not.toHaveProperty('reason');
    expect(text(r)).toMatch(/^Approved: 19\.99 USD at openai\.com/);
    expect(text(r)).toContain(sc.authorization_token);
    // The service recorded it like any /v1 decision.
    const stored = await acct.test.get(`/v1/decisions/${sc.decision_id}`);
    expect(stored.body).toMatchObject({ decision: 'approved', category: 'saas', metadata: { invoice: 'INV-7' } });
  });

  test('a denied call says why and carries no token', async () => {
    const r = await call(admin, 'authorize_spend', { agent_id: agentId, amount: 100, currency: 'USD', vendor: 'casino.example' });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ decision: 'denied', status: 'denied', reason_code: 'policy_denied' });
    expect(r.structuredContent).not.toHaveProperty('authorization_token');
    expect((r.structuredContent as { reason: string }).reason).toContain('denylist');
    expect(text(r)).toMatch(/^Denied \(policy_denied\): .*denylist.* Do not make this purchase/);
  });

  test('API errors come back as tool errors with code and message, and the server keeps serving', async () => {
    const unknown = await call(admin, 'authorize_spend', { agent_id: 'agt_doesnotexist', amount: 100, currency: 'USD', vendor: 'openai.com' });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toBe('not_found: No such agent.');
    expect(unknown.structuredContent).toBeUndefined();

    const badInput = await call(admin, 'authorize_spend', { agent_id: agentId, amount: 12.5, currency: 'USD', vendor: 'openai.com' });
    expect(badInput.isError).toBe(true);
    expect(text(badInput)).toMatch(/amount/);

    const noAgent = await call(admin, 'authorize_spend', { amount: 100, currency: 'USD', vendor: 'openai.com' });
    expect(noAgent.isError).toBe(true);
    expect(text(noAgent)).toBe('invalid_request: agent_id is required: this API key (role admin) is not bound to one agent.');

    const missing = await call(admin, 'get_decision', { decision_id: 'dec_nope' });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toBe('not_found: No such decision.');

    const after = await call(admin, 'authorize_spend', { agent_id: agentId, amount: 100, currency: 'USD', vendor: 'openai.com' });
    expect(after.structuredContent).toMatchObject({ decision: 'approved' });
  });

  test('a held call tells the model to wait and how to check; get_decision follows it to approval', async () => {
    const held = await call(admin, 'authorize_spend', { agent_id: agentId, amount: 7_500, currency: 'USD', vendor: 'aws.amazon.com' });
    expect(held.isError).toBeFalsy();
    expect(held.structuredContent).toMatchObject({ decision: 'held', status: 'pending', reason_code: 'approval_required' });
    const id = (held.structuredContent as { decision_id: string }).decision_id;
    expect(held.structuredContent).not.toHaveProperty('authorization_token');
    expect((held.structuredContent as { expires_at: string }).expires_at).toEqual(expect.any(String));
    expect(text(held)).toMatch(/^Held for human review \(approval_required\)/);
    expect(text(held)).toContain('above the approval threshold of 50.00 USD');
    expect(text(held)).not.toContain('minor units');
    expect(text(held)).toContain('Do not charge yet');
    expect(text(held)).toContain(`get_decision tool (decision_id "${id}"`);

    // What the worker's outbox relay does before a reviewer can act: start the hold's workflow (here
    // the fake inline engine) and mark its outbox row done. Only this row: on a shared database
    // other test files' rows are theirs.
    const outboxRow = await ctx.database.db.selectFrom('outbox').select('id').where('topic', '=', 'held_decision').where('ref_id', '=', id).executeTakeFirstOrThrow();
    await ctx.gateway.startHeld((await findDecisionById(ctx.database.db, id))!);
    await markOutboxDone(ctx.database.db, Number(outboxRow.id), new Date());

    const pending = await call(admin, 'get_decision', { decision_id: id });
    expect(pending.structuredContent).toMatchObject({ decision: 'held', status: 'pending', decision_id: id });

    // A long-poll that a reviewer's approval ends early.
    const waiting = call(admin, 'get_decision', { decision_id: id, wait_seconds: 20 });
    await new Promise((r) => setTimeout(r, 300));
    const approved = await acct.test.post(`/v1/approvals/${id}/approve`, { note: 'expected invoice' });
    expect(approved.status).toBe(200);
    const started = Date.now();
    const resolved = await waiting;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(resolved.structuredContent).toMatchObject({ decision: 'approved', status: 'approved', decision_id: id });
    expect((resolved.structuredContent as { authorization_token: string }).authorization_token).toMatch(/^gca_/);
  });
});

describe('configuration', () => {
  test('a base address without /v1 gets it appended; an agent-role key may omit agent_id', async () => {
    const key = (await acct.test.post('/v1/api-keys', { name: 'mcp', role: 'agent', agent_id: agentId })).body.key;
    const agent = await connect({ SPEND_AUTH_BASE_URL: `${ctx.baseUrl}/`, SPEND_AUTH_API_KEY: key });
    try {
      await vi.waitFor(() => expect(agent.stderr()).toContain(`calling ${ctx.baseUrl}/v1\n`));
      const r = await call(agent, 'authorize_spend', { amount: 250, currency: 'USD', vendor: 'openai.com' });
      expect(r.structuredContent).toMatchObject({ decision: 'approved', agent_id: agentId });
      const other = await call(agent, 'authorize_spend', { agent_id: 'agt_someoneelse', amount: 250, currency: 'USD', vendor: 'openai.com' });
      expect(text(other)).toBe('not_found: No such agent.');
    } finally {
      await agent.close();
    }
  }, SPAWN_TIMEOUT);

  test('a revoked key and an unreachable service are tool errors, not crashes', async () => {
    const created = (await acct.test.post('/v1/api-keys', { name: 'gone', role: 'admin' })).body;
    await acct.test.delete(`/v1/api-keys/${created.id}`);
    const revoked = await connect({ SPEND_AUTH_BASE_URL: ctx.baseUrl, SPEND_AUTH_API_KEY: created.key });
    const nowhere = await connect({ SPEND_AUTH_BASE_URL: `http://127.0.0.1:${UNREACHABLE_ENGINE_PORT}`, SPEND_AUTH_API_KEY: acct.test.key });
    try {
      const r = await call(revoked, 'authorize_spend', { agent_id: agentId, amount: 1, currency: 'USD', vendor: 'x' });
      expect(r.isError).toBe(true);
      expect(text(r)).toBe('unauthorized: Invalid API key provided.');
      const n = await call(nowhere, 'get_decision', { decision_id: 'dec_x' });
      expect(n.isError).toBe(true);
      expect(text(n)).toMatch(/^network_error: Could not reach the spend authorization service at http:\/\/127\.0\.0\.1:1\/v1/);
      expect((await nowhere.client.listTools()).tools).toHaveLength(2);
    } finally {
      await revoked.close();
      await nowhere.close();
    }
  }, SPAWN_TIMEOUT);

  // Every message is covered by test/unit/mcp-config.test.ts; these check the process's behaviour.
  test.each([
    [{}, /Missing SPEND_AUTH_BASE_URL and SPEND_AUTH_API_KEY/],
    [{ SPEND_AUTH_BASE_URL: 'http://localhost:3000' }, /Missing SPEND_AUTH_API_KEY\./],
    [{ SPEND_AUTH_BASE_URL: 'localhost:3000', SPEND_AUTH_API_KEY: `gc_test_${'a'.repeat(40)}` }, /SPEND_AUTH_BASE_URL: must be an http/],
  ])('missing or bad configuration %j: exit code 1, a message on stderr, nothing on stdout', async (vars, message) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...vars };
    for (const name of ['SPEND_AUTH_BASE_URL', 'SPEND_AUTH_API_KEY'] as const) if (!(name in vars)) delete env[name];
    const res = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [BIN, 'mcp'], { cwd: ROOT, env, timeout: SPAWN_TIMEOUT - 5_000 }, (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
      });
      child.stdin?.end();
    });
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/^spend-auth mcp: /);
    expect(res.stderr).toMatch(message);
  }, SPAWN_TIMEOUT);
});

describe('answers that are not the API envelope (a fake service in this process: a proxy or a broken deploy)', () => {
  /** The tool server in this process, in front of a fake service that answers `res` to every call. */
  async function through(res: () => Response): Promise<{ client: Client; seen: Request[] }> {
    const seen: Request[] = [];
    const server = createMcpServer({ baseUrl: 'http://service.test/v1', apiKey: `gc_test_${'a'.repeat(40)}` }, async (req) => {
      seen.push(req);
      return res();
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'fake-service', version: '0.0.0' });
    await Promise.all([server.connect(a), client.connect(b)]);
    return { client, seen };
  }
  const authorize = (client: Client) => client.callTool({ name: 'authorize_spend', arguments: { agent_id: 'agt_1', amount: 100, currency: 'USD', vendor: 'a.example' } }) as Promise<CallToolResult>;

  test.each([
    ['a 200 whose body is not JSON', () => new Response('<html>ok</html>', { status: 200, headers: { 'content-type': 'text/html' } }), /^unexpected_response: The service answered HTTP 200 with a body that is not JSON\.$/],
    ['a 502 whose body is not JSON', () => new Response('Bad gateway', { status: 502 }), /^unexpected_response: The service answered HTTP 502 with a body that is not JSON\.$/],
    ['a 500 with JSON but no error object', () => Response.json({ oops: true }, { status: 500 }), /^unexpected_response: The service answered HTTP 500 without an error object\.$/],
    ['a 200 with an empty body', () => new Response(null, { status: 200, headers: { 'content-length': '0' } }), /^unexpected_response: The service answered HTTP 200 with an empty body\.$/],
  ])('%s is a tool error naming what came back', async (_name, res, message) => {
    const { client, seen } = await through(res);
    const result = await authorize(client);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(message);
    // The generated client's path, under the configured base, with the key.
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(['POST http://service.test/v1/authorize']);
    expect(seen[0]!.headers.get('authorization')).toBe(`Bearer gc_test_${'a'.repeat(40)}`);
    await client.close();
  });
});
