import { MockActivityEnvironment } from '@temporalio/testing';
import { expect } from 'vitest';
import { createWebhookActivities } from '../../activities/webhook-delivery.js';
import type { TestAccount, TestContext } from './context.js';
import { pendingDeliveriesAfterOneEvent } from './deliveries.js';
import type { Received, startReceiver } from './receiver.js';

/**
 * A real signed delivery: an endpoint subscribed to `authorize.approved` at the receiver, one
 * approved decision, and its event delivered by the real delivery activity (run in this process:
 * no engine). Returns what the receiver got and the endpoint's secret, shown once at creation.
 */
export async function oneRealDelivery(ctx: TestContext, acct: TestAccount, receiver: Awaited<ReturnType<typeof startReceiver>>, agentId: string): Promise<{ delivery: Received; secret: string }> {
  const created = await acct.test.post('/v1/webhook-endpoints', { url: receiver.url, events: ['authorize.approved'] });
  expect(created.status).toBe(201);
  const before = receiver.received.length;
  const deliveries = await pendingDeliveriesAfterOneEvent(ctx, acct, created.body.id, agentId);
  expect(deliveries).toHaveLength(1);
  await new MockActivityEnvironment().run(createWebhookActivities({ db: ctx.database.db, allowPrivateUrls: true }).deliverWebhook, { deliveryId: deliveries[0]!.id });
  expect(receiver.received.length).toBe(before + 1);
  // The endpoint is done: later events of the account must not queue deliveries for it.
  await acct.test.delete(`/v1/webhook-endpoints/${created.body.id}`);
  return { delivery: receiver.received[before]!, secret: created.body.secret as string };
}
