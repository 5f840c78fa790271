/** What the README tells a new user to type, checked against what the service needs. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { createMcpServer } from '../../src/mcp/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
/** The fenced code blocks of a markdown text. */
const codeBlocks = (markdown: string) => [...markdown.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, code: m[2]! }));

describe('README', () => {
  it('creates each PostgreSQL database (createdb) before a command that needs it', () => {
    const steps = codeBlocks(readme).filter((b) => /DATABASE_URL=postgres/.test(b.code));
    expect(steps.length).toBeGreaterThan(0);
    for (const { code } of steps) {
      const [database] = /DATABASE_URL=postgres:\/\/[^/\s]+\/(\w+)/.exec(code)!.slice(1);
      const created = code.split('\n').findIndex((l) => new RegExp(`^createdb .*\\b${database}$`).test(l.trim()));
      const used = code.split('\n').findIndex((l) => l.includes(`/${database}`));
      expect(created, `no createdb for ${database} in:\n${code}`).toBeGreaterThanOrEqual(0);
      expect(created).toBeLessThan(used);
    }
  });
});

describe('README, MCP tool server', () => {
  const start = readme.indexOf('### MCP tool server');
  const section = readme.slice(start, readme.indexOf('\n## ', start));

  /** The tool server in this process, calling a fake service that records what it was sent. */
  async function connect() {
    const sent: unknown[] = [];
    const fakeService = async (req: Request) => {
      const body = await req.json();
      sent.push(body);
      const decision = { object: 'decision', decision_id: 'dec_1', decision: 'approved', status: 'approved', authorization_token: 'gca_x', reason_code: null, policy_applied: 'pol_1', ...body };
      return new Response(JSON.stringify(decision), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const server = createMcpServer({ baseUrl: 'http://service.test/v1', apiKey: `gc_test_${'a'.repeat(40)}` }, fakeService);
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'readme', version: '1' });
    await Promise.all([server.connect(a), client.connect(b)]);
    return { client, sent };
  }

  it('says the tool needs a currency, and its example call is one the tool accepts', async () => {
    expect(section).toMatch(/`currency`[^.]*\brequired\b/);
    const example = codeBlocks(section).find((b) => b.code.includes('"authorize_spend"'));
    expect(example, 'no example call of authorize_spend in the MCP section').toBeDefined();
    const call = JSON.parse(example!.code) as { name: string; arguments: Record<string, unknown> };
    expect(call.name).toBe('authorize_spend');
    expect(call.arguments).toHaveProperty('currency');

    const { client, sent } = await connect();
    const ok = await client.callTool({ name: call.name, arguments: call.arguments });
    expect(ok.isError).toBeFalsy();
    expect(sent).toEqual([expect.objectContaining({ currency: call.arguments.currency, amount: call.arguments.amount })]);

    // Without it the tool refuses, naming it.
    const { currency: _omitted, ...withoutCurrency } = call.arguments;
    const refused = await client.callTool({ name: call.name, arguments: withoutCurrency });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain('currency');
    expect(sent).toHaveLength(1);
    await client.close();
  });
});
