/**
 * Attack: a genuine `X-Service-Signature` (from a delivery seen on the wire, or the body's own
 * `signature` member) replayed with another body: an `authorize.denied` event's signature sent
 * with an `authorize.approved` body, a body with its amount changed, an event's inner signature
 * presented as the header. `verifyWebhook` of `spend-auth/client` refuses each; the genuine pair
 * still verifies.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../../src/client/index.js';
import { buildSignedDelivery } from '../../src/webhooks/signature.js';
import { oneRealDelivery } from '../support/client-deliveries.js';
import { agentWithPolicy, createTestContext, type TestContext } from '../support/context.js';
import { startReceiver } from '../support/receiver.js';

const SECRET = 'whsec_receiver';
let ctx: TestContext;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  ctx = await createTestContext({ allowPrivateUrls: true });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await ctx?.close();
});

const refused = (p: Promise<unknown>) => expect(p).rejects.toSatisfy((e) => e instanceof WebhookVerificationError && e.code === 'signature_invalid');

test("a denial's signature with an approval's body, and an event's own signature member as the header, are refused", async () => {
  const at = new Date();
  const denied = buildSignedDelivery({ id: 'evt_denied', type: 'authorize.denied', data: { decision_id: 'dec_1', decision: 'denied' }, created_at: at }, SECRET);
  const approved = buildSignedDelivery({ id: 'evt_approved', type: 'authorize.approved', data: { decision_id: 'dec_1', decision: 'approved' }, created_at: at }, SECRET);
  await refused(verifyWebhook(approved.body, denied.header, SECRET));
  await refused(verifyWebhook(approved.body, { 'X-Service-Signature': denied.header, 'X-Service-Signature-Previous': denied.header }, SECRET));
  // The body's `signature` member signs the envelope without it: as a header it matches no body as sent.
  await refused(verifyWebhook(approved.body, JSON.parse(approved.body).signature as string, SECRET));
  expect(await verifyWebhook(approved.body, approved.header, SECRET)).toMatchObject({ id: 'evt_approved' });
});

test("a real delivery's signature replayed with the body changed (amount, event type, one byte) is refused", async () => {
  const acct = await ctx.account();
  const { agentId } = await agentWithPolicy(acct.test);
  const { delivery, secret } = await oneRealDelivery(ctx, acct, receiver, agentId);
  const header = delivery.headers['x-service-signature'] as string;
  const event = JSON.parse(delivery.body);
  const bodies = [
    JSON.stringify({ ...event, data: { ...event.data, amount: event.data.amount * 100 } }),
    delivery.body.replace('"authorize.approved"', '"authorize.denied"'),
    delivery.body.replace(/}$/, ' }'),
    `${delivery.body}\n`,
  ];
  for (const body of bodies) {
    expect(body).not.toBe(delivery.body);
    await refused(verifyWebhook(body, delivery.headers, secret));
    await refused(verifyWebhook(Buffer.from(body), header, secret));
  }
  expect(await verifyWebhook(delivery.bytes, delivery.headers, secret)).toMatchObject({ id: event.id });
});
