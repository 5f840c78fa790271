/**
 * Attack: DNS rebinding. A host name answers an address the check allows, then, when the
 * connection resolves the name again, 127.0.0.1: the request lands on a loopback-only page (on the
 * service's host, the engine's HTTP API). The MCP tool `fetch_paid_resource` and webhook delivery
 * must connect to the address they checked, never to a second answer, and follow no redirect.
 *
 * The names are served by a real DNS server on 127.0.0.1 that the test writes (rebinding-dns.ts),
 * given to the service as its resolver. No public address is reachable here, so the two sides
 * are two loopback addresses on one port: 127.0.0.2 (the checked host, allowed by the switch for
 * local receivers) and 127.0.0.1 (the loopback-only page, which must never see a request); and,
 * with the check on, a public first answer, whose connection fails, and 127.0.0.1 second.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createWebhookActivities } from '../../activities/webhook-delivery.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { pinnedFetch } from '../../src/webhooks/pinned-fetch.js';
import { resolveSafeTarget } from '../../src/webhooks/ssrf.js';
import { pendingDeliveriesAfterOneEvent } from '../support/deliveries.js';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { startRebindingDns, type RebindingDns } from '../support/rebinding-dns.js';
import { TEST_PRIVATE_KEY } from '../support/x402-payer.js';

interface Seen {
  method: string;
  path: string;
  host: string;
}

/** One port, two loopback addresses: the checked host (127.0.0.2) and the loopback-only page (127.0.0.1). */
async function startPair() {
  const checked: Seen[] = [];
  const internal: Seen[] = [];
  const record = (into: Seen[]) => (req: http.IncomingMessage, res: http.ServerResponse) => {
    into.push({ method: req.method!, path: req.url!, host: req.headers.host ?? '' });
    req.resume();
    if (into === internal) return void res.writeHead(200, { 'content-type': 'text/plain' }).end('the loopback-only page');
    if (req.url === '/redirect') return void res.writeHead(302, { location: `http://127.0.0.1:${port}/secret` }).end();
    if (req.url === '/redirect-by-name') return void res.writeHead(302, { location: `http://next.rebind.test:${port}/secret` }).end();
    res.writeHead(200, { 'content-type': 'text/plain' }).end('the checked host');
  };
  const loopbackOnly = http.createServer(record(internal));
  const publicSide = http.createServer(record(checked));
  let port = 0;
  for (let tries = 0; ; tries++) {
    await new Promise<void>((resolve) => loopbackOnly.listen(0, '127.0.0.1', resolve));
    port = (loopbackOnly.address() as AddressInfo).port;
    const bound = await new Promise<boolean>((resolve) => {
      publicSide.once('error', () => resolve(false));
      publicSide.listen(port, '127.0.0.2', () => resolve(true));
    });
    if (bound) break;
    await new Promise((resolve) => loopbackOnly.close(resolve));
    if (tries > 5) throw new Error('no port free on both 127.0.0.1 and 127.0.0.2');
  }
  return {
    port,
    checked,
    internal,
    close: () => Promise.all([loopbackOnly, publicSide].map((s) => new Promise((resolve) => s.close(resolve)))),
  };
}

/** First answer of every name; any later answer is 127.0.0.1. `*.public.rebind.test` first answers a public address. */
const rebinding = (name: string, n: number) => (n > 0 ? '127.0.0.1' : name.endsWith('.public.rebind.test') ? '93.184.216.34' : '127.0.0.2');

let ctx: TestContext;
let acct: TestAccount;
let dns: RebindingDns;
let pair: Awaited<ReturnType<typeof startPair>>;
let local: Client; // private addresses allowed (local development), as the webhook tests' receivers need
let strict: Client; // the production setting: only public addresses

async function mcpClient(allowPrivateUrls: boolean): Promise<Client> {
  // The service is never called: no payment is asked in these tests (agent_id given, so not even /api-keys/self).
  const noService = async () => new Response('{}', { status: 500 });
  const server = createMcpServer(
    { baseUrl: 'http://service.test/v1', apiKey: `gc_test_${'a'.repeat(40)}`, x402: { privateKey: TEST_PRIVATE_KEY, agentId: 'agt_rebinding', maxWaitSeconds: 0, allowPrivateUrls } },
    noService,
    { resolve: dns.resolver, fetchTimeoutMs: 3_000 },
  );
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'dns-rebinding', version: '0.0.0' });
  await client.connect(b);
  return client;
}

beforeAll(async () => {
  dns = await startRebindingDns(rebinding);
  pair = await startPair();
  [local, strict] = await Promise.all([mcpClient(true), mcpClient(false)]);
  ctx = await createTestContext({ allowPrivateUrls: false });
  acct = await ctx.account();
}, 120_000);
afterAll(async () => {
  await Promise.all([local?.close(), strict?.close()]);
  await pair?.close();
  await dns?.close();
  await ctx?.close();
});

const fetchTool = async (client: Client, url: string) => (await client.callTool({ name: 'fetch_paid_resource', arguments: { url } })) as CallToolResult;
const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

describe('the DNS server the test controls rebinds', () => {
  test('a name answers 127.0.0.2 first, then 127.0.0.1', async () => {
    expect(await dns.resolver('probe.rebind.test')).toEqual([{ address: '127.0.0.2', family: 4 }]);
    expect(await dns.resolver('probe.rebind.test')).toEqual([{ address: '127.0.0.1', family: 4 }]);
  });
});

describe('fetch_paid_resource connects to the address it checked', () => {
  test('the name resolves once; the request goes to the checked address, never to the loopback answer', async () => {
    const r = await fetchTool(local, `http://tool.rebind.test:${pair.port}/page`);
    expect(r.isError, text(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ status: 200, body: 'the checked host' });
    expect(dns.queries('tool.rebind.test')).toBe(1);
    expect(pair.checked).toContainEqual({ method: 'GET', path: '/page', host: `tool.rebind.test:${pair.port}` });
    expect(pair.internal).toEqual([]);
  });

  test('with the check on: a public first answer is what is connected to; the loopback page is never reached', async () => {
    const r = await fetchTool(strict, `http://tool.public.rebind.test:${pair.port}/page`);
    // 93.184.216.34 cannot be reached here: the connection to it fails (or times out), it is not retried elsewhere.
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^network_error: could not fetch http:\/\/tool\.public\.rebind\.test:\d+\/page/);
    expect(text(r)).not.toMatch(/127\.0\.0\.1|93\.184\.216\.34/);
    expect(dns.queries('tool.public.rebind.test')).toBe(1);
    expect(pair.internal).toEqual([]);
  });

  test('a redirect to a loopback address, by address or by a rebinding name, is not followed', async () => {
    for (const path of ['/redirect', '/redirect-by-name']) {
      // A name of its own per call: a name's second answer is the rebinding one.
      const r = await fetchTool(local, `http://redirect${path.length}.rebind.test:${pair.port}${path}`);
      expect(r.isError, text(r)).toBeFalsy();
      expect(r.structuredContent).toMatchObject({ status: 302 });
      expect(text(r)).toMatch(/not followed/);
    }
    expect(dns.queries('next.rebind.test')).toBe(0);
    expect(pair.internal).toEqual([]);
    // Going on is a new call, checked from the start: the production setting refuses the loopback Location.
    const next = await fetchTool(strict, `http://127.0.0.1:${pair.port}/secret`);
    expect(text(next)).toMatch(/^invalid_request: url 127\.0\.0\.1 is a refused loopback address/);
    expect(pair.internal).toEqual([]);
  });

  test('the pinned fetch serves only the checked origin (the x402 retry cannot be sent elsewhere)', async () => {
    const target = await resolveSafeTarget(`http://origin.rebind.test:${pair.port}/page`, { livemode: false, allowPrivate: true }, dns.resolver);
    const fetchPinned = pinnedFetch(target);
    expect(await (await fetchPinned(`http://origin.rebind.test:${pair.port}/again`)).text()).toBe('the checked host');
    await expect(fetchPinned(`http://127.0.0.1:${pair.port}/secret`)).rejects.toThrow(/not the checked origin/);
    expect(dns.queries('origin.rebind.test')).toBe(1);
    expect(pair.internal).toEqual([]);
  });
});

describe('webhook delivery connects to the address it checked', () => {
  async function deliveryTo(url: string) {
    const endpoint = (await acct.test.post('/v1/webhook-endpoints', { url: 'https://93.184.216.34/hook', events: ['authorize.approved'] })).body;
    await ctx.database.db.updateTable('webhook_endpoints').set({ url }).where('id', '=', endpoint.id).execute();
    const [delivery] = await pendingDeliveriesAfterOneEvent(ctx, acct, endpoint.id);
    return delivery!.id;
  }
  const deliver = (deliveryId: string, allowPrivateUrls: boolean) =>
    new MockActivityEnvironment().run(createWebhookActivities({ db: ctx.database.db, allowPrivateUrls, resolve: dns.resolver, attemptTimeoutMs: 3_000 }).deliverWebhook, { deliveryId }).catch((e: unknown) => e);

  test('the name resolves once per attempt; the POST goes to the checked address', async () => {
    const result = await deliver(await deliveryTo(`http://hook.rebind.test:${pair.port}/hook`), true);
    expect(result).toMatchObject({ status: 'delivered', statusCode: 200 });
    expect(dns.queries('hook.rebind.test')).toBe(1);
    expect(pair.checked).toContainEqual({ method: 'POST', path: '/hook', host: `hook.rebind.test:${pair.port}` });
    expect(pair.internal).toEqual([]);
  });

  test('with the check on: a public first answer is what is connected to; 127.0.0.1 is never reached', async () => {
    const failure = await deliver(await deliveryTo(`http://hook.public.rebind.test:${pair.port}/hook`), false);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect((failure as ApplicationFailure).type).toBe('WebhookNetworkError');
    expect((failure as Error).message).not.toMatch(/127\.0\.0\.1|93\.184\.216\.34/);
    expect(dns.queries('hook.public.rebind.test')).toBe(1);
    expect(pair.internal).toEqual([]);
  });

  test('a redirect to a loopback address is not followed (a 3xx is an unsuccessful attempt)', async () => {
    const failure = await deliver(await deliveryTo(`http://hook-redirect.rebind.test:${pair.port}/redirect`), true);
    expect((failure as ApplicationFailure).message).toBe('receiver answered 302');
    expect(pair.internal).toEqual([]);
  });
});
