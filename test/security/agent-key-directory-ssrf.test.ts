/**
 * Attack: use an agent key's `directory_url` to make the service fetch what it must not. The
 * directory is fetched at creation (DECISIONS §19) under the webhooks' SSRF rules (§9): an admin
 * key names loopback, link-local (cloud metadata) and private addresses, internal names, a name
 * that rebinds to loopback after the check, a redirect, an endless or oversized answer, to reach
 * the service's own network, to learn what internal names resolve to, or to hold a request open.
 * Each is refused with 400 `directory_url`, naming the rule and never a resolved address, and the
 * connection goes only to the address that was checked.
 *
 * Directories run over real TLS on loopback addresses (test/support/tls-certs.ts); names are
 * answered by a real DNS server the test writes (test/support/rebinding-dns.ts).
 */
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { DIRECTORY_MAX_BYTES, DIRECTORY_MEDIA_TYPE } from '../../src/agent-keys/agent-key-deps.js';
import { PUBLIC_ADDRESSES_RULE } from '../../src/webhooks/ssrf.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';
import { directoryBody, directoryEntry, startDirectoryPair, startKeyDirectoryServer, type KeyDirectoryServer } from '../support/key-directory-server.js';
import { startRebindingDns, type RebindingDns } from '../support/rebinding-dns.js';
import { hasOpenssl, makeTestCerts, type TestCerts } from '../support/tls-certs.js';

const TIMEOUT_MS = 1_500;
/** Any IPv4 dotted quad, or IPv6 text with a `::`. */
const ADDRESS = /\b(?:\d{1,3}\.){3}\d{1,3}\b|[0-9a-f]*::[0-9a-f:.]*/i;

const jwkOf = () => generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }) as Record<string, string>;

/** `localhost` is the name the test certificate holds besides 127.0.0.1: checked as 127.0.0.2, then it rebinds to 127.0.0.1. */
const answers: Record<string, (n: number) => string | undefined> = {
  'private.dir.test': () => '10.0.0.5',
  'metadata.dir.test': () => '169.254.169.254',
  'nothing.dir.test': () => undefined,
  'public-then-loopback.dir.test': (n) => (n === 0 ? '93.184.216.34' : '127.0.0.1'),
  localhost: (n) => (n === 0 ? '127.0.0.2' : '127.0.0.1'),
};

let certs: TestCerts;
let dns: RebindingDns;
/** The production setting: only public addresses. */
let strict: TestContext;
let strictAcct: TestAccount;
/** WEBHOOK_ALLOW_PRIVATE_URLS (local development): addresses allowed, every other rule still holds. */
let local: TestContext;
let localAcct: TestAccount;
let dir: KeyDirectoryServer;

async function register(acct: TestAccount, directoryUrl: string, jwk = jwkOf(), client = acct.test) {
  const policy = (await client.post('/v1/policies', policyBody())).body.id;
  const agent = (await client.post('/v1/agents', { name: 'signer', policy_id: policy })).body.id;
  return client.post(`/v1/agents/${agent}/keys`, { jwk, directory_url: directoryUrl });
}

function expectRefused(res: { status: number; body: any }, message?: RegExp) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'directory_url' });
  if (message) expect(res.body.error.message).toMatch(message);
}

describe.skipIf(!hasOpenssl())('a directory_url aimed where the service must not go', () => {
  beforeAll(async () => {
    certs = makeTestCerts();
    dns = await startRebindingDns((name, n) => answers[name]?.(n));
    const keyDirectories = { resolve: dns.resolver, ca: certs.ca, timeoutMs: TIMEOUT_MS };
    strict = await createTestContext({ allowPrivateUrls: false, keyDirectories, testModeRateLimit: 1000 });
    strictAcct = await strict.account('growth');
    local = await createTestContext({ allowPrivateUrls: true, keyDirectories, testModeRateLimit: 1000 });
    localAcct = await local.account('growth');
  });
  afterAll(async () => {
    await Promise.all([strict?.close(), local?.close(), dns?.close()]);
    certs?.remove();
  });
  beforeEach(async () => {
    dir = await startKeyDirectoryServer(certs);
    return () => dir.close();
  });

  describe('addresses (the production setting)', () => {
    test.each([
      ['loopback', (port: number) => `https://127.0.0.1:${port}`, /127\.0\.0\.1 is a refused loopback address/],
      ['IPv6 loopback', () => 'https://[::1]', /::1 is a refused loopback address/],
      ['IPv4-mapped loopback', (port: number) => `https://[::ffff:127.0.0.1]:${port}`, /refused loopback address/],
      ['the metadata address', () => 'https://169.254.169.254', /169\.254\.169\.254 is a refused linkLocal address/],
      ['a private address', () => 'https://10.0.0.5', /10\.0\.0\.5 is a refused private address/],
    ])('%s → 400 naming the range, nothing fetched', async (_name, url, message) => {
      const jwk = jwkOf();
      dir.list([await directoryEntry(jwk)]);
      expectRefused(await register(strictAcct, url(dir.port), jwk), message);
      expect(dir.requests).toHaveLength(0);
    });

    test('in live mode too', async () => {
      const jwk = jwkOf();
      dir.list([await directoryEntry(jwk)]);
      expectRefused(await register(strictAcct, dir.origin, jwk, strictAcct.live!), /loopback/);
      expect(dir.requests).toHaveLength(0);
    });

    test('names that resolve to private or metadata addresses, and a name that does not resolve: one refusal, no address in it', async () => {
      const messages: string[] = [];
      for (const host of ['private.dir.test', 'metadata.dir.test', 'nothing.dir.test']) {
        const res = await register(strictAcct, `https://${host}`);
        expectRefused(res);
        expect(res.body.error.message).toContain(PUBLIC_ADDRESSES_RULE);
        expect(res.body.error.message).not.toMatch(ADDRESS);
        messages.push(res.body.error.message.replace(host, 'HOST'));
      }
      expect(new Set(messages).size).toBe(1);
    });

    test('a name that answers a public address, then loopback: the connection goes to the public one (and fails), never to loopback', async () => {
      const pair = await startDirectoryPair(certs);
      try {
        const jwk = jwkOf();
        pair.other.list([await directoryEntry(jwk)]);
        const res = await register(strictAcct, `https://public-then-loopback.dir.test:${pair.other.port}`, jwk);
        expectRefused(res);
        expect(res.body.error.message).not.toMatch(ADDRESS);
        expect(pair.other.requests).toHaveLength(0);
        expect(dns.queries('public-then-loopback.dir.test')).toBe(1);
      } finally {
        await pair.close();
      }
    });
  });

  describe('rebinding, with private addresses allowed', () => {
    test('the directory is fetched from the address the name was checked as (127.0.0.2), never from its second answer (127.0.0.1)', async () => {
      const pair = await startDirectoryPair(certs);
      try {
        const jwk = jwkOf();
        pair.checked.list([await directoryEntry(jwk)]);
        pair.other.list([await directoryEntry(jwk)]);
        const res = await register(localAcct, `https://localhost:${pair.checked.port}`, jwk);
        expect(res.status, res.text).toBe(201);
        expect(res.body.directory_url).toBe(`https://localhost:${pair.checked.port}`);
        expect(pair.checked.requests).toHaveLength(1);
        expect(pair.checked.requests[0]!.host).toBe(`localhost:${pair.checked.port}`);
        expect(pair.other.requests).toHaveLength(0);
        expect(dns.queries('localhost')).toBe(1);
      } finally {
        await pair.close();
      }
    });
  });

  describe('answers that are refused, with private addresses allowed', () => {
    test('a redirect, even to the same origin, is not followed → 400', async () => {
      const jwk = jwkOf();
      dir.answer = (req, res) => {
        if (req.url === '/keys.json') return void res.writeHead(200, { 'content-type': DIRECTORY_MEDIA_TYPE }).end(directoryBody([]));
        res.writeHead(302, { location: `${dir.origin}/keys.json` }).end();
      };
      expectRefused(await register(localAcct, dir.origin, jwk), /must answer 200 \(it answered 302\)/);
      expect(dir.requests.map((r) => r.path)).toEqual(['/.well-known/http-message-signatures-directory']);
    });

    test('application/json → 400', async () => {
      const jwk = jwkOf();
      const body = directoryBody([await directoryEntry(jwk)]);
      dir.answer = (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      expectRefused(await register(localAcct, dir.origin, jwk), /media type application\/http-message-signatures-directory\+json/);
    });

    test('64 KiB is the most: exactly 64 KiB → 201; one byte more → 400, declared or streamed without a length', async () => {
      const jwk = jwkOf();
      const listing = directoryBody([await directoryEntry(jwk)]);
      const padded = (size: number) => listing.slice(0, -1) + ' '.repeat(size - listing.length) + '}';
      dir.answer = (_req, res) => void res.writeHead(200, { 'content-type': DIRECTORY_MEDIA_TYPE }).end(padded(DIRECTORY_MAX_BYTES));
      expect((await register(localAcct, dir.origin, jwk)).status).toBe(201);

      const over = padded(DIRECTORY_MAX_BYTES + 1);
      dir.answer = (_req, res) => void res.writeHead(200, { 'content-type': DIRECTORY_MEDIA_TYPE }).end(over);
      expectRefused(await register(localAcct, dir.origin), /at most 65536 bytes/);
      // Chunked, no Content-Length: the body is counted as it streams, and the reading stops there.
      dir.answer = (_req, res) => {
        res.writeHead(200, { 'content-type': DIRECTORY_MEDIA_TYPE });
        for (let at = 0; at < over.length; at += 4096) res.write(over.slice(at, at + 4096));
        res.end();
      };
      expectRefused(await register(localAcct, dir.origin), /at most 65536 bytes/);
    });

    test('50 keys is the most: 50 → 201; 51 → 400', async () => {
      const jwk = jwkOf();
      const others = await Promise.all(Array.from({ length: 50 }, () => directoryEntry(jwkOf())));
      dir.list([...others.slice(0, 49), await directoryEntry(jwk)]);
      expect((await register(localAcct, dir.origin, jwk)).status).toBe(201);
      const next = jwkOf();
      dir.list([...others, await directoryEntry(next)]);
      expectRefused(await register(localAcct, dir.origin, next), /at most 50 keys/);
    });

    test('not JSON, or no keys array → 400', async () => {
      for (const body of ['{"keys":', '[]', '{"keys":{}}', '{}']) {
        dir.answer = (_req, res) => void res.writeHead(200, { 'content-type': DIRECTORY_MEDIA_TYPE }).end(body);
        expectRefused(await register(localAcct, dir.origin), /JSON object with a keys array/);
      }
    });

    test('no answer in time, or a body that never ends → 400 (the limit is 5 s; shorter here)', async () => {
      dir.answer = () => {};
      const started = Date.now();
      expectRefused(await register(localAcct, dir.origin), /must answer within 1\.5 s/);
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 3_000);
      dir.answer = (_req, res) => {
        res.writeHead(200, { 'content-type': DIRECTORY_MEDIA_TYPE });
        res.write('{"keys":[');
      };
      expectRefused(await register(localAcct, dir.origin), /must answer within 1\.5 s/);
    });

    test('an error status → 400 naming it', async () => {
      dir.answer = (_req, res) => void res.writeHead(500).end();
      expectRefused(await register(localAcct, dir.origin), /it answered 500/);
    });
  });

  describe('the URL itself: an https origin and nothing else', () => {
    test.each([
      ['http', (o: string) => o.replace('https:', 'http:')],
      ['a path', (o: string) => `${o}/.well-known/http-message-signatures-directory`],
      ['a path of one dot segment', (o: string) => `${o}/.`],
      ['a query', (o: string) => `${o}/?a=1`],
      ['an empty query', (o: string) => `${o}?`],
      ['a fragment', (o: string) => `${o}#keys`],
      ['credentials', (o: string) => o.replace('https://', 'https://user:pw@')],
      ['a backslash path', (o: string) => `${o}\\x`],
      ['not a URL', () => 'directory.example'],
      ['an empty string', () => ''],
    ])('%s → 400 directory_url, nothing fetched', async (_name, url) => {
      const jwk = jwkOf();
      dir.list([await directoryEntry(jwk)]);
      expectRefused(await register(localAcct, url(dir.origin), jwk), /directory_url is not allowed/);
      expect(dir.requests).toHaveLength(0);
    });
  });
});
