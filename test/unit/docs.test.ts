/** What the README tells a new user to type, checked against what the service needs. */
import { execFile } from 'node:child_process';
import { createHash, generateKeyPairSync, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { verifySignature, type FieldOccurrence } from 'http-message-sig';
import { calculateJwkThumbprint } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../src/mcp/server.js';
import { startReceiver, type Received } from '../support/receiver.js';

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

describe("README, Sign your agent's requests: docs/examples/sign-request.mjs piped into curl", () => {
  const start = readme.indexOf("### Sign your agent's requests");
  const section = readme.slice(start, readme.indexOf('\n## ', start));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sign-request-'));
  /** What a stand-in for the service on 127.0.0.1 received: headers as sent, the body's bytes. */
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let received: Received[] = [];
  let base: string;
  beforeAll(async () => {
    receiver = await startReceiver();
    received = receiver.received;
    base = `${new URL(receiver.url).origin}/v1`;
  });
  afterAll(async () => {
    await receiver.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** `node sign-request.mjs <args> | curl -s -K - -H "Authorization: Bearer …"`, as the README pipes it. */
  const pipeline = (args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const quoted = args.map((a) => `'${a}'`).join(' ');
      execFile('bash', ['-o', 'pipefail', '-c', `node docs/examples/sign-request.mjs ${quoted} | curl -s -K - -H 'Authorization: Bearer gc_test_x'`], { cwd: ROOT }, (err, _out, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(),
      );
    });

  it('is what the README tells the agent to run', () => {
    expect(section).toContain('node docs/examples/sign-request.mjs agent.private.jwk POST "$API/authorize" body.json');
    expect(section).toMatch(/\| curl -s -K - -H "Authorization: Bearer \$AGENT_KEY"/);
    expect(section).toContain('$API/agents/agt_…/keys');
    expect(section).toContain('"require_signed_requests": true');
  });

  it.each([
    ['Ed25519', 'ed25519', () => generateKeyPairSync('ed25519')],
    ['P-256', 'ecdsa-p256-sha256', () => generateKeyPairSync('ec', { namedCurve: 'P-256' })],
  ] as const)('%s: curl sends the body signed as DECISIONS §19 verifies it (http-message-sig 0.3.0)', async (name, alg, generate) => {
    const { privateKey, publicKey } = generate();
    const jwk = privateKey.export({ format: 'jwk' });
    const { d: _d, ...publicJwk } = jwk;
    const keyFile = path.join(dir, `${name}.jwk`);
    const bodyFile = path.join(dir, 'body.json');
    fs.writeFileSync(keyFile, JSON.stringify(jwk));
    fs.writeFileSync(bodyFile, '{"agent_id": "agt_1", "amount": 1999, "currency": "USD", "vendor": "openai.com"}\n');
    received.length = 0;
    await pipeline([keyFile, 'POST', `${base}/authorize?expand=policy#not-sent`, bodyFile]);
    await pipeline(['--signature-agent', 'https://agent.example.com/', keyFile, 'GET', `${base}/decisions/dec_1`]);

    expect(received.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/authorize?expand=policy', 'GET /v1/decisions/dec_1']);
    const keyid = await calculateJwkThumbprint(publicJwk as never, 'sha256');
    const expected = [
      ['@method', '@authority', '@path', '@query', 'content-digest'],
      ['@method', '@authority', '@path', 'signature-agent'],
    ];
    for (const [i, r] of received.entries()) {
      const fields: FieldOccurrence[] = [];
      for (let j = 0; j < r.rawHeaders.length; j += 2) fields.push({ name: r.rawHeaders[j]!.toLowerCase(), value: r.rawHeaders[j + 1]! });
      const header = (n: string) => fields.find((f) => f.name === n)?.value;
      const verified = await verifySignature(
        { kind: 'request', method: r.method, targetUri: `http://${header('host')}${r.path}`, fields },
        {
          policy: { algorithms: [alg], requiredComponents: expected[i]!, requiredParameters: ['created', 'expires', 'keyid', 'nonce', 'tag'] },
          resolveVerifier: (c) => {
            if (c.parameters.keyid !== keyid) throw new Error('keyid is not the thumbprint');
            return nodeVerifier(alg, publicKey);
          },
        },
      );
      expect(verified.components.map((c) => c.name).sort()).toEqual([...expected[i]!].sort());
      expect(verified.parameters.tag).toBe('web-bot-auth');
      expect(Number(verified.parameters.expires) - Number(verified.parameters.created)).toBe(60);
      expect(String(verified.parameters.nonce).length).toBeGreaterThanOrEqual(16);
      if (i === 0) {
        expect(r.bytes.toString()).toBe(fs.readFileSync(bodyFile, 'utf8'));
        expect(header('content-digest')).toBe(`sha-256=:${createHash('sha256').update(r.bytes).digest('base64')}:`);
        expect(header('content-type')).toBe('application/json');
      } else {
        expect(header('signature-agent')).toBe('sig1="https://agent.example.com"');
      }
    }
  });
});

function nodeVerifier(alg: 'ed25519' | 'ecdsa-p256-sha256', key: KeyObject) {
  return alg === 'ed25519'
    ? { algorithm: alg, verify: (d: Uint8Array, s: Uint8Array) => cryptoVerify(null, d, key, s) }
    : { algorithm: alg, verify: (d: Uint8Array, s: Uint8Array) => cryptoVerify('sha256', d, { key, dsaEncoding: 'ieee-p1363' }, s) };
}
