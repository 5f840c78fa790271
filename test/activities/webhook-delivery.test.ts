import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createWebhookActivities } from '../../activities/webhook-delivery.js';
import { createLogger } from '../../src/kernel/logger.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { OutboxRelay } from '../../src/temporal/outbox-relay.js';
import { verifyWebhookSignature } from '../../src/index.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';
import { FakeInlineGateway } from '../support/fake-gateway.js';
import { startReceiver } from '../support/receiver.js';

let ctx: TestContext;
const env = new MockActivityEnvironment();
const later = () => new Date(Date.now() + 600_000);

beforeAll(async () => {
  // Receivers listen on 127.0.0.1, which only the private-URL allowance lets through.
  ctx = await createTestContext({ allowPrivateUrls: true, ownDatabase: true });
});
afterAll(() => ctx?.close());

/** An account with one endpoint at `url`, an agent, and a fake engine recording which deliveries it was asked to start. */
async function setup(url: string, events: string[] = ['*']) {
  const a: TestAccount = await ctx.account();
  const endpoint = (await a.test.post('/v1/webhook-endpoints', { url, events })).body;
  const policy = (await a.test.post('/v1/policies', policyBody())).body;
  const agent = (await a.test.post('/v1/agents', { name: 'x', policy_id: policy.id })).body;
  const fake = new FakeInlineGateway({ db: ctx.database.db, signer: ctx.signer });
  const relay = new OutboxRelay({ accountId: a.id, db: ctx.database.db, gateway: fake, log: createLogger('silent') });
  return { a, endpoint, agent, fake, relay };
}
async function approvedEventDelivery(url: string, allowPrivateUrls = true, attemptTimeoutMs?: number) {
  const s = await setup(url);
  const decision = (await s.a.test.post('/v1/authorize', { agent_id: s.agent.id, amount: 100, currency: 'USD', vendor: 'ok.example' })).body;
  await s.relay.tick(later()); // event → deliveries
  await s.relay.tick(later()); // delivery → workflow start
  const deliveries = await ctx.database.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', s.endpoint.id).execute();
  expect(deliveries).toHaveLength(1);
  const activities = createWebhookActivities({ db: ctx.database.db, allowPrivateUrls, attemptTimeoutMs });
  const deliver = () => env.run(activities.deliverWebhook, { deliveryId: deliveries[0]!.id });
  return { ...s, decision, delivery: deliveries[0]!, deliver };
}
const deliveryRow = (id: string) => ctx.database.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const attemptsOf = (id: string) => ctx.database.db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', id).orderBy('id').execute();

describe('fan-out through the relay', () => {
  test('one delivery per enabled endpoint subscribed to the event, each started once', async () => {
    const receiver = await startReceiver();
    const s = await setup(receiver.url, ['authorize.approved']);
    const other = (await s.a.test.post('/v1/webhook-endpoints', { url: receiver.url, events: ['agent.frozen'] })).body;
    const disabled = (await s.a.test.post('/v1/webhook-endpoints', { url: receiver.url, events: ['*'] })).body;
    await s.a.test.patch(`/v1/webhook-endpoints/${disabled.id}`, { enabled: false });
    await s.a.test.post('/v1/authorize', { agent_id: s.agent.id, amount: 100, currency: 'USD', vendor: 'ok.example' });
    await s.relay.tick(later());
    await s.relay.tick(later());
    await s.relay.tick(later());
    const deliveries = await ctx.database.db.selectFrom('webhook_deliveries').selectAll().where('account_id', '=', s.a.id).execute();
    expect(deliveries.map((d) => d.endpoint_id)).toEqual([s.endpoint.id]);
    expect(deliveries.map((d) => d.endpoint_id)).not.toContain(other.id);
    expect(s.fake.webhookDeliveries).toEqual([deliveries[0]!.id]);
    await receiver.close();
  });
});

describe('deliverWebhook activity against a real receiver', () => {
  test('2xx delivers: signed body, headers, and one recorded attempt', async () => {
    const receiver = await startReceiver();
    const d = await approvedEventDelivery(receiver.url);
    expect(await d.deliver()).toMatchObject({ status: 'delivered', statusCode: 200 });
    const got = receiver.received[0]!;
    // Signed with the secret the endpoint's creation showed once (it is stored sealed).
    expect(verifyWebhookSignature(got.body, got.headers['x-service-signature'] as string, d.endpoint.secret)).toBe(true);
    expect(got.headers['x-service-event']).toBe('authorize.approved');
    expect(got.headers['x-service-delivery']).toBe(d.delivery.event_id);
    const body = JSON.parse(got.body);
    expect(body).toMatchObject({ id: d.delivery.event_id, event: 'authorize.approved', data: { decision_id: d.decision.decision_id }, signature: expect.stringMatching(/^sha256=[0-9a-f]{64}$/) });
    expect(got.body).not.toMatch(/gca_|authorization_token|whsec_/);
    expect(await deliveryRow(d.delivery.id)).toMatchObject({ status: 'delivered', attempt_count: 1, last_status_code: 200 });
    const attempts = await attemptsOf(d.delivery.id);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ status_code: 200, error: null });
    expect(attempts[0]!.duration_ms).toBeGreaterThanOrEqual(0);
    // Delivered is final: a retried activity posts nothing more.
    expect(await d.deliver()).toMatchObject({ status: 'already_completed' });
    expect(receiver.received).toHaveLength(1);
    const listed = await d.a.test.get(`/v1/webhook-endpoints/${d.endpoint.id}/deliveries`);
    expect(listed.body.data[0]).toMatchObject({ id: d.delivery.id, status: 'delivered', attempt_count: 1, attempts: [{ status_code: 200, error: null }] });
    await receiver.close();
  });

  test('5xx is retried with the same bytes each attempt; every attempt is recorded', async () => {
    const receiver = await startReceiver((_r, n) => ({ status: n < 3 ? 500 : 200 }));
    const d = await approvedEventDelivery(receiver.url);
    for (let i = 0; i < 2; i++) {
      await expect(d.deliver()).rejects.toSatisfy((e: unknown) => e instanceof ApplicationFailure && !e.nonRetryable && e.type === 'WebhookRetryableStatus');
    }
    expect(await d.deliver()).toMatchObject({ status: 'delivered' });
    expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);
    expect(new Set(receiver.received.map((r) => r.headers['x-service-signature'])).size).toBe(1);
    expect((await attemptsOf(d.delivery.id)).map((a) => a.status_code)).toEqual([500, 500, 200]);
    expect(await deliveryRow(d.delivery.id)).toMatchObject({ status: 'delivered', attempt_count: 3 });
    await receiver.close();
  });

  test.each([400, 401, 404, 410, 422])('HTTP %i is a permanent failure', async (status) => {
    const receiver = await startReceiver(() => ({ status }));
    const d = await approvedEventDelivery(receiver.url);
    await expect(d.deliver()).rejects.toSatisfy((e: unknown) => e instanceof ApplicationFailure && e.nonRetryable === true && e.type === 'WebhookPermanentFailure');
    expect(await deliveryRow(d.delivery.id)).toMatchObject({ status: 'failed', last_status_code: status });
    await receiver.close();
  });

  test.each([408, 429, 503, 302])('HTTP %i is retried', async (status) => {
    const receiver = await startReceiver(() => ({ status, headers: (status === 302 ? { location: 'http://127.0.0.1:1/elsewhere' } : {}) as Record<string, string> }));
    const d = await approvedEventDelivery(receiver.url);
    await expect(d.deliver()).rejects.toSatisfy((e: unknown) => e instanceof ApplicationFailure && !e.nonRetryable);
    expect(receiver.received).toHaveLength(1); // a redirect is never followed
    expect(await deliveryRow(d.delivery.id)).toMatchObject({ status: 'pending', last_status_code: status });
    await receiver.close();
  });

  test('429 and 503 with Retry-After set the next retry delay', async () => {
    const receiver = await startReceiver((_r, n) => ({ status: n === 1 ? 429 : 503, headers: { 'retry-after': n === 1 ? '7' : '120' } }));
    const d = await approvedEventDelivery(receiver.url);
    await expect(d.deliver()).rejects.toSatisfy((e: unknown) => e instanceof ApplicationFailure && e.type === 'WebhookRetryAfter' && Number(e.nextRetryDelay) === 7_000);
    await expect(d.deliver()).rejects.toSatisfy((e: unknown) => e instanceof ApplicationFailure && Number(e.nextRetryDelay) === 120_000);
    await receiver.close();
  });

  test('a receiver that does not answer in time is a retried attempt with its error recorded', async () => {
    const receiver = await startReceiver(() => ({ status: 200, hang: true }));
    const d = await approvedEventDelivery(receiver.url, true, 300);
    await expect(d.deliver()).rejects.toSatisfy((e: unknown) => e instanceof ApplicationFailure && e.type === 'WebhookNetworkError');
    const [attempt] = await attemptsOf(d.delivery.id);
    expect(attempt).toMatchObject({ status_code: null, error: expect.stringMatching(/no response within 300 ms/) });
    await receiver.close();
  });

  test('a private address is refused again at delivery time: permanent failure, nothing sent', async () => {
    const receiver = await startReceiver();
    const d = await approvedEventDelivery(receiver.url, false);
    await expect(d.deliver()).rejects.toSatisfy((e: unknown) => e instanceof ApplicationFailure && e.nonRetryable === true && e.type === 'WebhookUrlRefused');
    expect(receiver.received).toHaveLength(0);
    expect(await deliveryRow(d.delivery.id)).toMatchObject({ status: 'failed', last_error: expect.stringMatching(/loopback/) });
    await receiver.close();
  });

  test('a deleted endpoint fails the delivery permanently', async () => {
    const receiver = await startReceiver();
    const d = await approvedEventDelivery(receiver.url);
    await d.a.test.delete(`/v1/webhook-endpoints/${d.endpoint.id}`);
    await expect(d.deliver()).rejects.toSatisfy((e: unknown) => e instanceof ApplicationFailure && e.type === 'WebhookEndpointGone');
    expect(receiver.received).toHaveLength(0);
    await receiver.close();
  });
});

describe('webhook_attempts_total', () => {
  test('every recorded attempt is counted once, by result: retry, delivered, failed', async () => {
    const metrics = createMetrics();
    const counted = (allowPrivateUrls: boolean) => createWebhookActivities({ db: ctx.database.db, allowPrivateUrls, onAttempt: metrics.recordWebhookAttempt });
    const receiver = await startReceiver((_r, n) => ({ status: n === 1 ? 503 : n === 2 ? 200 : 410 }));
    const retried = await approvedEventDelivery(receiver.url);
    await expect(env.run(counted(true).deliverWebhook, { deliveryId: retried.delivery.id })).rejects.toBeInstanceOf(ApplicationFailure);
    await env.run(counted(true).deliverWebhook, { deliveryId: retried.delivery.id });
    // Already delivered: no attempt, nothing counted.
    await env.run(counted(true).deliverWebhook, { deliveryId: retried.delivery.id });
    const gone = await approvedEventDelivery(receiver.url);
    await expect(env.run(counted(true).deliverWebhook, { deliveryId: gone.delivery.id })).rejects.toBeInstanceOf(ApplicationFailure);
    const refused = await approvedEventDelivery(receiver.url);
    await expect(env.run(counted(false).deliverWebhook, { deliveryId: refused.delivery.id })).rejects.toBeInstanceOf(ApplicationFailure);
    const values = Object.fromEntries((await metrics.webhookAttempts.get()).values.map((v) => [v.labels.result, v.value]));
    expect(values).toEqual({ retry: 1, delivered: 1, failed: 2 });
    const recorded = await ctx.database.db.selectFrom('webhook_attempts').select('id').where('delivery_id', 'in', [retried.delivery.id, gone.delivery.id, refused.delivery.id]).execute();
    expect(recorded).toHaveLength(4);
    await receiver.close();
  });
});
