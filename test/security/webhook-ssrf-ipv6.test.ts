import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createWebhookActivities } from '../../activities/webhook-delivery.js';
import { createLogger } from '../../src/kernel/logger.js';
import { OutboxRelay } from '../../src/temporal/outbox-relay.js';
import { refusedAddressReason, resolveSafeTarget, UnsafeUrlError, type HostResolver } from '../../src/webhooks/ssrf.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';
import { FakeInlineGateway } from '../support/fake-gateway.js';
import { startReceiver } from '../support/receiver.js';

// Attack: a webhook URL that reaches the service's own network through an address spelled as
// IPv6 (IPv4-compatible `::a.b.c.d`, IPv4-mapped `::ffff:a.b.c.d`, hex forms) or through a DNS
// name that resolves to such an address.

let ctx: TestContext;
let acct: TestAccount;
const env = new MockActivityEnvironment();

beforeAll(async () => {
  ctx = await createTestContext({ allowPrivateUrls: false });
  acct = await ctx.account();
});
afterAll(() => ctx?.close());

const PRIVATE_SPELLINGS = [
  'https://[::127.0.0.1]/hook',
  'https://[::7f00:1]/hook',
  'https://[0:0:0:0:0:0:127.0.0.1]/hook',
  'https://[::ffff:7f00:1]/hook',
  'https://[::ffff:127.0.0.1]/hook',
  'https://[0:0:0:0:0:ffff:a00:1]/hook',
  'https://[::10.0.0.1]/hook',
  'https://[::a9fe:a9fe]/latest/meta-data',
  'https://[::ffff:169.254.169.254]/latest/meta-data',
  'https://[::192.168.1.1]/hook',
  'https://0x7f.1/hook',
  'https://localhost/hook',
  'https://localhost./hook',
];

describe('webhook endpoints refuse private addresses however they are spelled', () => {
  test.each(PRIVATE_SPELLINGS)('POST %s → 400 invalid_request, param url, nothing saved', async (url) => {
    const res = await acct.test.post('/v1/webhook-endpoints', { url, events: ['*'] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'url' });
    const list = await acct.test.get('/v1/webhook-endpoints');
    expect(list.body.data.map((e: { url: string }) => e.url)).not.toContain(url);
  });

  test('PATCH to an IPv4-compatible loopback address is refused and leaves the URL unchanged', async () => {
    const created = await acct.test.post('/v1/webhook-endpoints', { url: 'https://93.184.216.34/hook', events: ['*'] });
    expect(created.status).toBe(201);
    const res = await acct.test.patch(`/v1/webhook-endpoints/${created.body.id}`, { url: 'https://[::127.0.0.1]/hook' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'url' });
    expect((await acct.test.get(`/v1/webhook-endpoints/${created.body.id}`)).body.url).toBe('https://93.184.216.34/hook');
  });
});

describe('addresses are judged in their canonical form', () => {
  test.each([
    ['::7f00:1', /IPv4-compatible/],
    ['::a9fe:a9fe', /IPv4-compatible/],
    ['::8.8.8.8', /IPv4-compatible/],
    ['::ffff:7f00:1', /loopback/],
    ['0:0:0:0:0:ffff:a00:1', /private/],
    ['::ffff:a9fe:a9fe', /linkLocal/],
    ['::ffff:0:7f00:1', /rfc6145/],
  ])('%s is refused', (address, reason) => {
    expect(refusedAddressReason(address)).toMatch(reason);
  });

  const resolver = (addresses: string[]): HostResolver => async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  test.each([
    [['::ffff:127.0.0.1']],
    [['::ffff:7f00:1']],
    [['::7f00:1']],
    [['0:0:0:0:0:ffff:10.0.0.1']],
    [['93.184.216.34', '::ffff:a9fe:a9fe']],
    [['2606:4700::1111', '::1']],
  ])('a DNS name resolving to %j is refused', async (addresses) => {
    await expect(resolveSafeTarget('https://hooks.example/x', { livemode: true, allowPrivate: false }, resolver(addresses))).rejects.toBeInstanceOf(UnsafeUrlError);
  });

  test('a public IPv4-mapped answer is pinned as the IPv4 address it carries', async () => {
    const target = await resolveSafeTarget('https://hooks.example/x', { livemode: true, allowPrivate: false }, resolver(['::ffff:5db8:d822']));
    expect(target).toMatchObject({ address: '93.184.216.34', family: 4 });
  });
});

describe('and again at delivery time', () => {
  test.each(['[::127.0.0.1]', '[::ffff:127.0.0.1]', 'localhost'])('an endpoint whose host became %s is refused, nothing sent', async (host) => {
    const receiver = await startReceiver();
    const port = new URL(receiver.url).port;
    const endpoint = (await acct.test.post('/v1/webhook-endpoints', { url: 'https://93.184.216.34/hook', events: ['authorize.approved'] })).body;
    // As if the endpoint had been saved before the guard knew these forms.
    await ctx.database.db.updateTable('webhook_endpoints').set({ url: `http://${host}:${port}/hook` }).where('id', '=', endpoint.id).execute();
    const policy = (await acct.test.post('/v1/policies', policyBody())).body;
    const agent = (await acct.test.post('/v1/agents', { name: 'x', policy_id: policy.id })).body;
    await acct.test.post('/v1/authorize', { agent_id: agent.id, amount: 100, currency: 'USD', vendor: 'ok.example' });
    const relay = new OutboxRelay({ accountId: acct.id, db: ctx.database.db, gateway: new FakeInlineGateway({ db: ctx.database.db, signer: ctx.signer }), log: createLogger('silent') });
    const later = new Date(Date.now() + 600_000);
    await relay.tick(later);
    await relay.tick(later);
    const delivery = await ctx.database.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpoint.id).executeTakeFirstOrThrow();

    const activities = createWebhookActivities({ db: ctx.database.db, allowPrivateUrls: false });
    await expect(env.run(activities.deliverWebhook, { deliveryId: delivery.id })).rejects.toSatisfy(
      (e: unknown) => e instanceof ApplicationFailure && e.nonRetryable === true && e.type === 'WebhookUrlRefused',
    );
    expect(receiver.received).toHaveLength(0);
    await receiver.close();
  });
});
