/**
 * Attack (on deliveries, by rotation): rotating an endpoint's secret several times at once, or
 * once while the receiver still holds the old secret, must never leave the receiver with
 * deliveries it cannot verify, nor answer a secret that was never stored. Rotation takes the
 * endpoint's row lock (each concurrent call answers the secret it stored); with
 * `previous_secret_expires_in` the replaced secret keeps signing (X-Service-Signature-Previous)
 * until the grace period ends, then is forgotten. Deliveries go to a real receiver on 127.0.0.1.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createWebhookActivities } from '../../activities/webhook-delivery.js';
import { verifyWebhookSignature } from '../../src/webhooks/signature.js';
import { forgetExpiredPreviousSecrets } from '../../src/webhooks/webhooks.repository.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';
import { pendingDeliveriesAfterOneEvent } from '../support/deliveries.js';
import { storedEndpointSecrets } from '../support/endpoint-secrets.js';
import { startReceiver, type Received } from '../support/receiver.js';

let ctx: TestContext;
let acct: TestAccount;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let agentId: string;

beforeAll(async () => {
  ctx = await createTestContext({ allowPrivateUrls: true, testModeRateLimit: 100_000 });
  acct = await ctx.account();
  receiver = await startReceiver();
  const policy = (await acct.test.post('/v1/policies', policyBody())).body;
  agentId = (await acct.test.post('/v1/agents', { name: 'rotating', policy_id: policy.id })).body.id;
});
afterAll(async () => {
  await receiver?.close();
  await ctx?.close();
});

async function endpoint(): Promise<{ id: string; secret: string }> {
  const res = await acct.test.post('/v1/webhook-endpoints', { url: receiver.url, events: ['authorize.approved'] });
  expect(res.status).toBe(201);
  return { id: res.body.id, secret: res.body.secret };
}

/** One approved decision, its event relayed and delivered to `endpointId` by the real activity; what the receiver got. */
async function deliverOne(endpointId: string): Promise<Received> {
  const before = receiver.received.length;
  const deliveries = await pendingDeliveriesAfterOneEvent(ctx, acct, endpointId, agentId);
  const activities = createWebhookActivities({ db: ctx.database.db, allowPrivateUrls: true });
  for (const d of deliveries) await new MockActivityEnvironment().run(activities.deliverWebhook, { deliveryId: d.id });
  expect(receiver.received.length).toBeGreaterThan(before);
  return receiver.received[receiver.received.length - 1]!;
}

const header = (r: Received, name: string) => r.headers[name.toLowerCase()] as string | undefined;

describe('concurrent rotations', () => {
  test('three at once: three different secrets, each one stored; the last two sign every delivery during the grace period', async () => {
    const { id } = await endpoint();
    const answers = await Promise.all([1, 2, 3].map(() => acct.test.post(`/v1/webhook-endpoints/${id}/rotate-secret`, { previous_secret_expires_in: 3_600 })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const secrets = answers.map((a) => a.body.secret as string);
    expect(new Set(secrets).size).toBe(3);
    // Stored sealed: opened here with the server's key, as the delivery activity opens them.
    const stored = await storedEndpointSecrets(ctx.database.db, id);
    // Taken in turns: the last rotation's secret is current, the one before it is the previous one.
    expect(secrets).toContain(stored.secret);
    expect(secrets).toContain(stored.previous);
    expect(stored.previous).not.toBe(stored.secret);

    const got = await deliverOne(id);
    expect(verifyWebhookSignature(got.body, header(got, 'X-Service-Signature'), stored.secret!)).toBe(true);
    expect(verifyWebhookSignature(got.body, header(got, 'X-Service-Signature-Previous'), stored.previous!)).toBe(true);
  });
});

describe('a grace period keeps the replaced secret signing', () => {
  test('a receiver holding the old secret verifies X-Service-Signature-Previous; one holding the new, X-Service-Signature', async () => {
    const { id, secret: old } = await endpoint();
    const rotated = await acct.test.post(`/v1/webhook-endpoints/${id}/rotate-secret`, { previous_secret_expires_in: 600 });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.secret as string;
    expect(fresh).not.toBe(old);
    const until = Date.parse(rotated.body.previous_secret_expires_at);
    expect(until).toBeGreaterThan(Date.now() + 590_000);
    expect(until).toBeLessThanOrEqual(Date.now() + 600_000);

    const got = await deliverOne(id);
    expect(verifyWebhookSignature(got.body, header(got, 'X-Service-Signature'), fresh)).toBe(true);
    expect(verifyWebhookSignature(got.body, header(got, 'X-Service-Signature-Previous'), old)).toBe(true);
    expect(verifyWebhookSignature(got.body, header(got, 'X-Service-Signature'), old)).toBe(false);
    // The old secret is never shown again: the endpoint says only until when it signs.
    const shown = await acct.test.get(`/v1/webhook-endpoints/${id}`);
    expect(shown.text).not.toContain(old);
    expect(shown.text).not.toContain(fresh);
    expect(shown.body.previous_secret_expires_at).toBe(rotated.body.previous_secret_expires_at);
  });

  test('once the grace period has ended: one signature only, and the old secret is forgotten', async () => {
    const { id, secret: old } = await endpoint();
    const fresh = (await acct.test.post(`/v1/webhook-endpoints/${id}/rotate-secret`, { previous_secret_expires_in: 60 })).body.secret as string;
    await ctx.database.db.updateTable('webhook_endpoints').set({ previous_secret_expires_at: new Date(Date.now() - 1_000) }).where('id', '=', id).execute();
    const got = await deliverOne(id);
    expect(verifyWebhookSignature(got.body, header(got, 'X-Service-Signature'), fresh)).toBe(true);
    expect(header(got, 'X-Service-Signature-Previous')).toBeUndefined();
    expect((await acct.test.get(`/v1/webhook-endpoints/${id}`)).body.previous_secret_expires_at).toBeNull();
    expect(await forgetExpiredPreviousSecrets(ctx.database.db, new Date())).toBeGreaterThanOrEqual(1);
    const row = await ctx.database.db.selectFrom('webhook_endpoints').select(['previous_secret_sealed', 'previous_secret_expires_at']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toEqual({ previous_secret_sealed: null, previous_secret_expires_at: null });
    expect(old).not.toBe(fresh);
  });

  test('without one (the default, or 0) the old secret stops signing at once and is not kept', async () => {
    for (const body of [undefined, { previous_secret_expires_in: 0 }]) {
      const { id, secret: old } = await endpoint();
      const rotated = await acct.test.post(`/v1/webhook-endpoints/${id}/rotate-secret`, body);
      expect(rotated.body.previous_secret_expires_at).toBeNull();
      const row = await ctx.database.db.selectFrom('webhook_endpoints').select('previous_secret_sealed').where('id', '=', id).executeTakeFirstOrThrow();
      expect(row.previous_secret_sealed).toBeNull();
      const got = await deliverOne(id);
      expect(header(got, 'X-Service-Signature-Previous')).toBeUndefined();
      expect(verifyWebhookSignature(got.body, header(got, 'X-Service-Signature'), old)).toBe(false);
    }
  });
});

describe('what may ask for a rotation', () => {
  test.each([[86_401], [-1], [1.5], ['60'], [null]])('previous_secret_expires_in %j → 400 naming it, nothing rotated', async (value) => {
    const { id, secret } = await endpoint();
    const res = await acct.test.post(`/v1/webhook-endpoints/${id}/rotate-secret`, { previous_secret_expires_in: value });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'previous_secret_expires_in' });
    expect((await storedEndpointSecrets(ctx.database.db, id)).secret).toBe(secret);
  });

  test('an unknown field → 400; a reviewer key → 403; 86,400 seconds is the most', async () => {
    const { id } = await endpoint();
    expect((await acct.test.post(`/v1/webhook-endpoints/${id}/rotate-secret`, { grace: 60 })).body.error).toMatchObject({ code: 'invalid_request', param: 'grace' });
    const reviewer = await acct.test.post('/v1/api-keys', { name: 'r', role: 'reviewer' });
    expect((await ctx.client(reviewer.body.key).post(`/v1/webhook-endpoints/${id}/rotate-secret`, { previous_secret_expires_in: 60 })).status).toBe(403);
    expect((await acct.test.post(`/v1/webhook-endpoints/${id}/rotate-secret`, { previous_secret_expires_in: 86_400 })).status).toBe(200);
  });
});
