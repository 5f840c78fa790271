/**
 * Weak by design, so guarded by choice: a genuine delivery replayed within the tolerance (3 days
 * and an hour, so that the service's own retries verify) verifies again; a receiver that acts on it
 * twice pays twice. `verifyWebhook` of `spend-auth/client` takes a replay guard, `seen` (an
 * in-memory one: `seenEventIds()`), and refuses the second delivery of an event id `replayed`.
 * docs/clients.md says receivers must dedupe by event id.
 */
import { expect, test } from 'vitest';
import { seenEventIds, verifyWebhook, WebhookVerificationError } from '../../src/client/index.js';
import { buildSignedDelivery } from '../../src/webhooks/signature.js';

const SECRET = 'whsec_receiver';
const delivery = (id: string) => buildSignedDelivery({ id, type: 'authorize.approved', data: { decision_id: 'dec_1', decision: 'approved' }, created_at: new Date() }, SECRET);

test('without a guard a replay verifies; with one the second delivery of an event id is refused replayed', async () => {
  const d = delivery('evt_replayed');
  expect(await verifyWebhook(d.body, d.header, SECRET)).toMatchObject({ id: 'evt_replayed' });
  expect(await verifyWebhook(d.body, d.header, SECRET)).toMatchObject({ id: 'evt_replayed' });
  const seen = seenEventIds();
  expect(await verifyWebhook(d.body, d.header, SECRET, { seen })).toMatchObject({ id: 'evt_replayed' });
  await expect(verifyWebhook(d.body, d.header, SECRET, { seen })).rejects.toSatisfy((e) => e instanceof WebhookVerificationError && e.code === 'replayed' && e.param === 'id');
});

test('a forgery never takes an id: refused for its signature, the genuine delivery still verifies once', async () => {
  const d = delivery('evt_genuine');
  const seen = seenEventIds();
  await expect(verifyWebhook(`${d.body} `, d.header, SECRET, { seen })).rejects.toSatisfy((e) => e instanceof WebhookVerificationError && e.code === 'signature_invalid');
  expect(await verifyWebhook(d.body, d.header, SECRET, { seen })).toMatchObject({ id: 'evt_genuine' });
});

test('a shared store as the guard (an async callback), and ids kept only as long as asked', async () => {
  const store = new Set<string>();
  const shared = async (id: string) => {
    await new Promise((r) => setImmediate(r));
    if (store.has(id)) return true;
    store.add(id);
    return false;
  };
  const d = delivery('evt_shared');
  expect(await verifyWebhook(d.body, d.header, SECRET, { seen: shared })).toBeDefined();
  await expect(verifyWebhook(d.body, d.header, SECRET, { seen: shared })).rejects.toMatchObject({ code: 'replayed' });
  let clock = 0;
  const short = seenEventIds({ keepSeconds: 60, now: () => clock });
  expect(short('evt_a')).toBe(false);
  expect(short('evt_a')).toBe(true);
  clock += 61_000;
  expect(short('evt_a')).toBe(false);
  const small = seenEventIds({ max: 2 });
  for (const id of ['x', 'y', 'z']) expect(small(id)).toBe(false);
  expect(small('x')).toBe(false); // the oldest went first
});
