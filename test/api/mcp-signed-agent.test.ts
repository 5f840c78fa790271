/**
 * The MCP tool used by a signed agent against the real service (DECISIONS §19): with the policy's
 * `require_signed_requests` on and the agent's public key registered through the API, the tool
 * server given SPEND_AUTH_SIGNING_KEY's key gets its decision (carrying the signature); without it
 * the tool answers the service's `signature_required`.
 */
import { generateKeyPairSync } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createMcpServer } from '../../src/mcp/server.js';
import { createTestContext, policyBody, type TestContext } from '../support/context.js';

let ctx: TestContext;
let agentId: string;
let apiKey: string;
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });

beforeAll(async () => {
  ctx = await createTestContext();
  const acct = await ctx.account();
  const policy = await acct.test.post('/v1/policies', { ...policyBody(), require_signed_requests: true });
  agentId = (await acct.test.post('/v1/agents', { name: 'mcp signer', policy_id: policy.body.id })).body.id;
  expect((await acct.test.post(`/v1/agents/${agentId}/keys`, { jwk: publicKey.export({ format: 'jwk' }) })).status).toBe(201);
  apiKey = (await acct.test.post('/v1/api-keys', { name: 'mcp', role: 'agent', agent_id: agentId })).body.key;
});
afterAll(() => ctx?.close());

async function authorizeThroughTool(signing?: { privateJwk: Record<string, string> }) {
  const server = createMcpServer({ baseUrl: `${ctx.baseUrl}/v1`, apiKey, ...(signing ? { signing } : {}) });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'signed-agent', version: '1' });
  await Promise.all([server.connect(a), client.connect(b)]);
  try {
    return await client.callTool({ name: 'authorize_spend', arguments: { agent_id: agentId, amount: 1999, currency: 'USD', vendor: 'openai.com' } });
  } finally {
    await client.close();
  }
}

const textOf = (r: Awaited<ReturnType<typeof authorizeThroughTool>>) => (r.content as { type: string; text: string }[]).map((c) => c.text).join('\n');

test('with the signing key: approved, and the decision carries the signature', async () => {
  const result = await authorizeThroughTool({ privateJwk: privateKey.export({ format: 'jwk' }) as Record<string, string> });
  expect(result.isError ?? false, textOf(result)).toBe(false);
  const decisionId = /dec_[0-9A-Za-z]+/.exec(textOf(result))?.[0];
  expect(decisionId).toBeDefined();
  const row = await ctx.database.db.selectFrom('decisions').select(['decision', 'signature']).where('id', '=', decisionId!).executeTakeFirstOrThrow();
  expect(row.decision).toBe('approved');
  expect(row.signature).toMatchObject({ alg: 'ecdsa-p256-sha256', signature_agent: null });
});

test('without it: the tool answers signature_required, nothing decided', async () => {
  const before = await ctx.database.db.selectFrom('decisions').select((eb) => eb.fn.countAll<string>().as('n')).where('agent_id', '=', agentId).executeTakeFirstOrThrow();
  const result = await authorizeThroughTool();
  expect(result.isError).toBe(true);
  expect(textOf(result)).toContain('signature_required');
  const after = await ctx.database.db.selectFrom('decisions').select((eb) => eb.fn.countAll<string>().as('n')).where('agent_id', '=', agentId).executeTakeFirstOrThrow();
  expect(Number(after.n)).toBe(Number(before.n));
});
