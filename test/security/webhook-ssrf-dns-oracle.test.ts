/**
 * Attack: use the webhook URL check as a DNS oracle for the service's own network. An admin key
 * tries internal host names as webhook URLs and reads the addresses they resolve to from the
 * refusal (creation and update errors), from the delivery records (a host whose DNS changed after
 * creation) and from the worker's log. The refusal names the rule only: no address a host resolved
 * to appears anywhere, and an internal name that resolves cannot be told from one that does not.
 */
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createWebhookActivities } from '../../activities/webhook-delivery.js';
import { resolveSafeTarget, UnsafeUrlError, type HostResolver } from '../../src/webhooks/ssrf.js';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { pendingDeliveriesAfterOneEvent } from '../support/deliveries.js';

let ctx: TestContext;
let acct: TestAccount;

beforeAll(async () => {
  ctx = await createTestContext({ allowPrivateUrls: false });
  acct = await ctx.account();
});
afterAll(() => ctx?.close());

/** Any IPv4 dotted quad, or IPv6 text with a `::`, an error could carry. */
const ADDRESS = /\b(?:\d{1,3}\.){3}\d{1,3}\b|[0-9a-f]*::[0-9a-f:.]*/i;

describe('creation and update errors name the rule, never the resolved address', () => {
  test.each(['https://localhost/hook', 'https://localhost./hook', 'http://localhost:8080/x'])('POST %s → 400, no address in the answer', async (url) => {
    const res = await acct.test.post('/v1/webhook-endpoints', { url, events: ['*'] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'url' });
    expect(res.body.error.message).toMatch(/public addresses/);
    expect(res.text).not.toMatch(/127\.0\.0\.1|::1\b/);
    expect(res.body.error.message).not.toMatch(ADDRESS);
  });

  test('PATCH to an internal name: the same, and the URL is unchanged', async () => {
    const created = await acct.test.post('/v1/webhook-endpoints', { url: 'https://93.184.216.34/hook', events: ['*'] });
    const res = await acct.test.patch(`/v1/webhook-endpoints/${created.body.id}`, { url: 'https://localhost/hook' });
    expect(res.status).toBe(400);
    expect(res.body.error.message).not.toMatch(ADDRESS);
    expect((await acct.test.get(`/v1/webhook-endpoints/${created.body.id}`)).body.url).toBe('https://93.184.216.34/hook');
  });

  test('an internal name that resolves and one that does not get the same refusal (no existence oracle)', async () => {
    const resolver = (table: Record<string, string[]>): HostResolver => async (host) => {
      const found = table[host];
      if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
    const dns = resolver({ 'db.internal': ['10.20.30.40'], 'meta.internal': ['169.254.169.254'], 'v6.internal': ['fd00:ec2::254'] });
    const refusal = async (url: string) => {
      const err = await resolveSafeTarget(url, { livemode: true, allowPrivate: false }, dns).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnsafeUrlError);
      return (err as Error).message;
    };
    const messages = await Promise.all(['db', 'meta', 'v6', 'nothing'].map((h) => refusal(`https://${h}.internal/x`)));
    for (const m of messages) {
      expect(m).not.toMatch(/10\.20\.30\.40|169\.254\.169\.254|fd00/);
      expect(m).not.toMatch(/linkLocal|uniqueLocal|does not resolve/);
    }
    expect(new Set(messages.map((m) => m.replace(/\w+\.internal/, 'HOST'))).size).toBe(1);
  });

  test('an address written in the URL itself may be named with its range (it is the caller’s own input)', async () => {
    const res = await acct.test.post('/v1/webhook-endpoints', { url: 'https://10.0.0.1/hook', events: ['*'] });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/private/);
  });
});

describe('delivery failures, records and logs carry no resolved address', () => {
  test('an endpoint whose host became an internal name: refused at delivery, the record and the failure name the rule only', async () => {
    const endpoint = (await acct.test.post('/v1/webhook-endpoints', { url: 'https://93.184.216.34/hook', events: ['authorize.approved'] })).body;
    await ctx.database.db.updateTable('webhook_endpoints').set({ url: 'http://localhost:9/hook' }).where('id', '=', endpoint.id).execute();
    const [delivery] = await pendingDeliveriesAfterOneEvent(ctx, acct, endpoint.id);

    const logged: string[] = [];
    const env = new MockActivityEnvironment();
    env.on('log', (entry: unknown) => logged.push(JSON.stringify(entry)));
    const activities = createWebhookActivities({ db: ctx.database.db, allowPrivateUrls: false });
    const failure = await env.run(activities.deliverWebhook, { deliveryId: delivery!.id }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect((failure as ApplicationFailure).type).toBe('WebhookUrlRefused');
    expect((failure as Error).message).not.toMatch(/127\.0\.0\.1|::1\b/);

    const listed = (await acct.test.get(`/v1/webhook-endpoints/${endpoint.id}/deliveries`)).body.data[0];
    expect(listed.last_error).toMatch(/public addresses/);
    expect(JSON.stringify(listed)).not.toMatch(/127\.0\.0\.1|::1\b/);
    expect(logged.join('\n')).not.toMatch(/127\.0\.0\.1|::1\b/);
  });

  test('a connection error names the host, not the pinned address it connected to', async () => {
    // Private URLs allowed (as in local development): the connection is made and refused by the OS.
    const endpoint = (await acct.test.post('/v1/webhook-endpoints', { url: 'https://93.184.216.34/hook', events: ['authorize.approved'] })).body;
    await ctx.database.db.updateTable('webhook_endpoints').set({ url: 'http://localhost:9/hook' }).where('id', '=', endpoint.id).execute();
    const [delivery] = await pendingDeliveriesAfterOneEvent(ctx, acct, endpoint.id);
    const activities = createWebhookActivities({ db: ctx.database.db, allowPrivateUrls: true });
    const failure = await new MockActivityEnvironment().run(activities.deliverWebhook, { deliveryId: delivery!.id }).catch((e: unknown) => e);
    expect((failure as ApplicationFailure).type).toBe('WebhookNetworkError');
    expect((failure as Error).message).toMatch(/localhost/);
    expect((failure as Error).message).not.toMatch(/127\.0\.0\.1|::1\b/);
    const row = await ctx.database.db.selectFrom('webhook_deliveries').select('last_error').where('id', '=', delivery!.id).executeTakeFirstOrThrow();
    expect(row.last_error).not.toMatch(/127\.0\.0\.1|::1\b/);
  });
});
