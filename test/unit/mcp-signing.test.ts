/**
 * The signing key reaches every call the MCP tool server and the x402 rail make to the service
 * (SPEND_AUTH_SIGNING_KEY; DECISIONS §19): checked against a stand-in for the service, a real HTTP
 * server on 127.0.0.1 that verifies each request's signature with http-message-sig 0.3.0 as the
 * service does, and answers a decision.
 */
import { generateKeyPairSync, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { verifySignature, type FieldOccurrence } from 'http-message-sig';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMcpServer } from '../../src/mcp/server.js';
import { createDecisionClient } from '../../src/rails/x402/decision-client.js';

const API_KEY = `gc_test_${'s1Gn'.repeat(10)}`;
const ed25519 = generateKeyPairSync('ed25519');
const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwkOf = (k: KeyObject) => k.export({ format: 'jwk' }) as Record<string, string>;

interface Seen {
  method: string;
  path: string;
  /** The label's nonce and covered components when the signature verified, else why not. */
  verified: { nonce: string; components: string[] } | { error: string } | null;
}

/** A stand-in for the service: verifies signatures with the public keys it was given, answers a decision. */
function startService(publicKeys: { alg: 'ed25519' | 'ecdsa-p256-sha256'; key: KeyObject }[]) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const fields: FieldOccurrence[] = [];
      for (let i = 0; i < req.rawHeaders.length; i += 2) fields.push({ name: req.rawHeaders[i]!.toLowerCase(), value: req.rawHeaders[i + 1]! });
      let verified: Seen['verified'] = null;
      if (req.headers['signature-input']) {
        try {
          const v = await verifySignature(
            { kind: 'request', method: req.method!, targetUri: `http://${req.headers.host}${req.url}`, fields: fields.filter((f) => f.name !== 'user-agent') },
            {
              policy: { algorithms: publicKeys.map((k) => k.alg), requiredComponents: ['@method', '@authority', '@path'], requiredParameters: ['created', 'expires', 'keyid', 'nonce', 'tag'] },
              resolveVerifier: (c) => {
                const k = publicKeys.find((p) => p.alg === c.algorithm)!;
                return k.alg === 'ed25519'
                  ? { algorithm: k.alg, verify: (d, s) => cryptoVerify(null, d, k.key, s) }
                  : { algorithm: k.alg, verify: (d, s) => cryptoVerify('sha256', d, { key: k.key, dsaEncoding: 'ieee-p1363' }, s) };
              },
            },
          );
          verified = { nonce: String(v.parameters.nonce), components: v.components.map((c) => c.name) };
        } catch (err) {
          verified = { error: String(err) };
        }
      }
      seen.push({ method: req.method!, path: req.url!, verified });
      const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
      const decision = { object: 'decision', decision_id: 'dec_1', decision: 'approved', status: 'approved', authorization_token: 'gca_x', reason_code: null, policy_applied: 'pol_1', agent_id: 'agt_1', amount: 1999, currency: 'USD', vendor: 'openai.com', ...body };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(decision));
    });
  });
  const listening = new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
  return { seen, listening, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('the MCP tool server with SPEND_AUTH_SIGNING_KEY', () => {
  const service = startService([
    { alg: 'ed25519', key: ed25519.publicKey },
    { alg: 'ecdsa-p256-sha256', key: p256.publicKey },
  ]);
  let base: string;
  beforeAll(async () => {
    base = await service.listening;
  });
  afterAll(() => service.close());

  async function callTools(signing?: { privateJwk: Record<string, string> }) {
    const server = createMcpServer({ baseUrl: `${base}/v1`, apiKey: API_KEY, ...(signing ? { signing } : {}) });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'signing', version: '1' });
    await Promise.all([server.connect(a), client.connect(b)]);
    const authorized = await client.callTool({ name: 'authorize_spend', arguments: { agent_id: 'agt_1', amount: 1999, currency: 'USD', vendor: 'openai.com' } });
    const read = await client.callTool({ name: 'get_decision', arguments: { decision_id: 'dec_1', wait_seconds: 1 } });
    await client.close();
    return [authorized, read];
  }

  test.each([
    ['Ed25519', ed25519.privateKey],
    ['P-256', p256.privateKey],
  ])('%s: every call to the service is signed, each with its own nonce', async (_name, privateKey) => {
    service.seen.length = 0;
    const results = await callTools({ privateJwk: jwkOf(privateKey) });
    expect(results.map((r) => r.isError ?? false)).toEqual([false, false]);
    expect(service.seen.map((s) => `${s.method} ${s.path}`)).toEqual(['POST /v1/authorize', 'GET /v1/decisions/dec_1?wait=1']);
    const [post, get] = service.seen.map((s) => s.verified);
    expect(post).toEqual({ nonce: expect.any(String), components: ['@method', '@authority', '@path', 'content-digest', 'authorization'] });
    expect(get).toEqual({ nonce: expect.any(String), components: ['@method', '@authority', '@path', '@query', 'authorization'] });
    expect((post as { nonce: string }).nonce).not.toBe((get as { nonce: string }).nonce);
  });

  test('without the key nothing is signed', async () => {
    service.seen.length = 0;
    await callTools();
    expect(service.seen.map((s) => s.verified)).toEqual([null, null]);
  });
});

describe('the x402 rail\'s calls to the service with a signing key', () => {
  const service = startService([{ alg: 'ed25519', key: ed25519.publicKey }]);
  let base: string;
  beforeAll(async () => {
    base = await service.listening;
  });
  afterAll(() => service.close());

  test('authorize, read and capture are signed, a retry with a new nonce', async () => {
    service.seen.length = 0;
    const decisions = createDecisionClient({ baseUrl: `${base}/v1`, apiKey: API_KEY, signing: { privateJwk: jwkOf(ed25519.privateKey) } }, (req) => fetch(req));
    const body = { agent_id: 'agt_1', amount: 3, currency: 'USD', vendor: 'merchant.example', category: 'x402' };
    expect((await decisions.authorize(body, 'x402-k')).ok).toBe(true);
    expect((await decisions.authorize(body, 'x402-k')).ok).toBe(true);
    expect((await decisions.get('dec_1', 0)).ok).toBe(true);
    expect((await decisions.capture('dec_1', { nonce: '0x1' })).ok).toBe(true);
    expect(service.seen.map((s) => `${s.method} ${s.path}`)).toEqual(['POST /v1/authorize', 'POST /v1/authorize', 'GET /v1/decisions/dec_1', 'POST /v1/decisions/dec_1/capture']);
    const nonces = service.seen.map((s) => (s.verified && 'nonce' in s.verified ? s.verified.nonce : s.verified));
    expect(nonces.every((n) => typeof n === 'string')).toBe(true);
    expect(new Set(nonces).size).toBe(4);
  });

  test('a bad key is refused when the rail is set up, naming the option', async () => {
    const { withSpendAuthorization } = await import('../../src/rails/x402/index.js');
    const { x402Client } = await import('@x402/core/client');
    const { d: _d, ...publicOnly } = jwkOf(ed25519.privateKey);
    expect(() => withSpendAuthorization(new x402Client(), { baseUrl: base, apiKey: API_KEY, agentId: 'agt_1', signing: { privateJwk: publicOnly } })).toThrow(
      /withSpendAuthorization: signing\.privateJwk must be a private key/,
    );
    expect(() =>
      withSpendAuthorization(new x402Client(), { baseUrl: base, apiKey: API_KEY, agentId: 'agt_1', signing: { privateJwk: jwkOf(ed25519.privateKey), signatureAgent: 'http://a.example' } }),
    ).toThrow(/signing\.signatureAgent must be an https origin/);
  });
});
