/**
 * The daily audit-checkpoint activity against a real database (its own, on PostgreSQL: it reads
 * every account's chains): each chain with records whose account and mode has an endpoint
 * subscribed to `audit.checkpoint` gets one event a day carrying a checkpoint that verifies, offline
 * against the JWKS and with `?checkpoint=`. Delivery itself is the ordinary webhook workflow
 * (test/workflows/audit-checkpoints.server.test.ts runs both on a Temporal server).
 */
import { createLocalJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createAuditCheckpointActivities } from '../../activities/audit-checkpoints.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let subscribed: TestAccount;
let everything: TestAccount;
let elsewhere: TestAccount;

beforeAll(async () => {
  ctx = await createTestContext({ ownDatabase: true, allowPrivateUrls: true });
  [subscribed, everything, elsewhere] = [await ctx.account(), await ctx.account(), await ctx.account()];
  const endpoint = (a: TestAccount, events: string[]) => a.test.post('/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', events });
  expect((await endpoint(subscribed, ['audit.checkpoint'])).status).toBe(201);
  expect((await endpoint(everything, ['*'])).status).toBe(201);
  expect((await endpoint(elsewhere, ['authorize.approved'])).status).toBe(201);
  for (const a of [subscribed, everything, elsewhere]) expect((await a.test.post('/v1/policies', policyBody())).status).toBe(201);
});
afterAll(() => ctx?.close());

const activities = (enabled: boolean) => createAuditCheckpointActivities({ db: ctx.database.db, signer: ctx.signer, auditCheckpointWebhooks: enabled });
const checkpointEvents = async (a: TestAccount) => (await a.test.get('/v1/events?type=audit.checkpoint')).body.data as Array<{ data: { checkpoint: string; sequence: number; head_hash: string; day: string } }>;

describe('sendAuditCheckpoints', () => {
  test('off (the default): nothing is read or sent', async () => {
    expect(await activities(false).sendAuditCheckpoints({ day: '2026-11-20' })).toEqual({ day: '2026-11-20', enabled: false, chains: 0, sent: 0, alreadySent: 0, noEndpoint: 0 });
    expect(await checkpointEvents(subscribed)).toEqual([]);
  });

  test('on: one event per subscribed account and mode, with a checkpoint of its head that verifies offline and matches', async () => {
    const result = await activities(true).sendAuditCheckpoints({ day: '2026-11-21' });
    // Test and live chains of three accounts; only the two test-mode chains with a subscribed endpoint get one.
    expect(result).toMatchObject({ day: '2026-11-21', enabled: true, chains: 6, sent: 2, alreadySent: 0, noEndpoint: 4 });
    expect(await checkpointEvents(elsewhere)).toEqual([]);
    expect(await (await elsewhere.live!.get('/v1/events?type=audit.checkpoint')).body.data).toEqual([]);

    const jwks = createLocalJWKSet((await ctx.raw('/v1/.well-known/jwks.json')).body);
    for (const a of [subscribed, everything]) {
      const [event] = await checkpointEvents(a);
      expect(event!.data).toMatchObject({ day: '2026-11-21', sequence: 3 }); // its key, the endpoint, the policy
      const { payload, protectedHeader } = await jwtVerify(event!.data.checkpoint, jwks, { typ: 'audit-checkpoint+jwt', audience: a.id, algorithms: ['EdDSA'] });
      expect(protectedHeader.kid).toBe(ctx.signer.keys.current.kid);
      expect(payload).toMatchObject({ livemode: false, sequence: event!.data.sequence, head_hash: event!.data.head_hash });
      expect((await a.test.get(`/v1/audit-logs/verify?checkpoint=${event!.data.checkpoint}`)).body).toMatchObject({ valid: true, checkpoint_check: 'matched' });
    }
  });

  test('a repeated run for the same day sends nothing again; the next day sends the head as it is then', async () => {
    expect(await activities(true).sendAuditCheckpoints({ day: '2026-11-21' })).toMatchObject({ sent: 0, alreadySent: 2 });
    expect(await checkpointEvents(subscribed)).toHaveLength(1);
    expect((await subscribed.test.post('/v1/policies', policyBody({ name: 'next day' }))).status).toBe(201);
    expect(await activities(true).sendAuditCheckpoints({ day: '2026-11-22' })).toMatchObject({ sent: 2, alreadySent: 0 });
    const [latest] = await checkpointEvents(subscribed);
    expect(latest!.data).toMatchObject({ day: '2026-11-22', sequence: 4 });
  });

  test('two runs at once for one day send each checkpoint once', async () => {
    const runs = await Promise.all([activities(true).sendAuditCheckpoints({ day: '2026-11-23' }), activities(true).sendAuditCheckpoints({ day: '2026-11-23' })]);
    expect(runs.reduce((n, r) => n + r.sent, 0)).toBe(2);
    expect((await checkpointEvents(everything)).filter((e) => e.data.day === '2026-11-23')).toHaveLength(1);
  });
});
