/**
 * Attack: read the webhook secrets out of the database. Anyone who sees a dump, a backup, a replica
 * or the table with the owner's rights could sign deliveries a receiver trusts (forged
 * `authorize.approved` events), while rail connections' signing secrets were already sealed. Now
 * every endpoint's secret, and the previous one kept through a rotation's grace period, is stored
 * only sealed (AES-256-GCM under a key derived from IDEMPOTENCY_ENCRYPTION_KEY, the endpoint as
 * authenticated data); deliveries still verify with the secret shown once; migration 025 sealed the
 * secrets written in clear before it, and refuses to seal them with a key other than the bound one.
 * Deliveries go to a real receiver on 127.0.0.1 through the real activity.
 */
import { randomBytes } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createWebhookActivities } from '../../activities/webhook-delivery.js';
import { connectDatabase } from '../../src/db/connect.js';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import { sealedWebhookSecretsMigration } from '../../src/db/migrations/025_sealed_webhook_secrets.js';
import { bindServerKeys } from '../../src/server-keys.js';
import { verifyWebhookSignature } from '../../src/webhooks/signature.js';
import { createScratchDatabase, createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';
import { pendingDeliveriesAfterOneEvent } from '../support/deliveries.js';
import { storedEndpointSecrets } from '../support/endpoint-secrets.js';
import { startReceiver, type Received } from '../support/receiver.js';
import { TEST_AUDIT_HMAC_KEY, TEST_IDEMPOTENCY_KEY, useTestAuditKey } from '../support/server-keys.js';

let ctx: TestContext;
let acct: TestAccount;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let agentId: string;

beforeAll(async () => {
  ctx = await createTestContext({ allowPrivateUrls: true, testModeRateLimit: 100_000 });
  acct = await ctx.account();
  receiver = await startReceiver();
  const policy = (await acct.test.post('/v1/policies', policyBody())).body;
  agentId = (await acct.test.post('/v1/agents', { name: 'at-rest', policy_id: policy.id })).body.id;
}, 120_000);
afterAll(async () => {
  await receiver?.close();
  await ctx?.close();
});

/** The endpoint's row as an insider reads it: every column, as text, with the owner's rights (a dump shows the same). */
const rowAsText = async (id: string) =>
  (await sql<{ row: string }>`SELECT row_to_json(e)::text AS row FROM webhook_endpoints e WHERE id = ${id}`.execute(ctx.database.db)).rows[0]!.row;

async function endpoint(): Promise<{ id: string; secret: string }> {
  const res = await acct.test.post('/v1/webhook-endpoints', { url: receiver.url, events: ['authorize.approved'] });
  expect(res.status).toBe(201);
  expect(res.body.secret).toMatch(/^whsec_/);
  return { id: res.body.id, secret: res.body.secret };
}

const activities = () => createWebhookActivities({ db: ctx.database.db, allowPrivateUrls: true });

/** One approved decision, its event delivered to the endpoint by the real activity; what the receiver got. */
async function deliverOne(endpointId: string): Promise<Received> {
  const before = receiver.received.length;
  const deliveries = await pendingDeliveriesAfterOneEvent(ctx, acct, endpointId, agentId);
  expect(deliveries).toHaveLength(1);
  await new MockActivityEnvironment().run(activities().deliverWebhook, { deliveryId: deliveries[0]!.id });
  expect(receiver.received.length).toBe(before + 1);
  return receiver.received[before]!;
}
const header = (r: Received, name: string) => r.headers[name.toLowerCase()] as string | undefined;

describe('an endpoint created through the API', () => {
  test('its row holds no secret in clear, in any column; the delivery verifies with the secret shown once', async () => {
    const { id, secret } = await endpoint();
    const text = await rowAsText(id);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(secret.slice('whsec_'.length));
    expect(text).not.toMatch(/whsec_/);
    const stored = await storedEndpointSecrets(ctx.database.db, id);
    expect(stored.row.secret_sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(stored.secret).toBe(secret);

    const got = await deliverOne(id);
    expect(verifyWebhookSignature(got.body, header(got, 'X-Service-Signature'), secret)).toBe(true);
    expect(got.body).not.toContain(secret);
    // The endpoint's reads never show it either.
    expect((await acct.test.get(`/v1/webhook-endpoints/${id}`)).text).not.toContain(secret);
  });

  test('a rotation with a grace period keeps the previous secret sealed too; both still sign', async () => {
    const { id, secret: old } = await endpoint();
    const rotated = await acct.test.post(`/v1/webhook-endpoints/${id}/rotate-secret`, { previous_secret_expires_in: 600 });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.secret as string;
    const text = await rowAsText(id);
    for (const s of [old, fresh]) expect(text).not.toContain(s);
    expect(text).not.toMatch(/whsec_/);
    const stored = await storedEndpointSecrets(ctx.database.db, id);
    expect(stored.row.previous_secret_sealed).toMatch(/^v1\./);
    expect(stored).toMatchObject({ secret: fresh, previous: old });

    const got = await deliverOne(id);
    expect(verifyWebhookSignature(got.body, header(got, 'X-Service-Signature'), fresh)).toBe(true);
    expect(verifyWebhookSignature(got.body, header(got, 'X-Service-Signature-Previous'), old)).toBe(true);
  });

  test('a sealed secret copied onto another endpoint does not open there: the delivery fails for good, signed with nothing', async () => {
    const victim = await endpoint();
    const mine = await endpoint();
    const victimSealed = (await storedEndpointSecrets(ctx.database.db, victim.id)).row.secret_sealed;
    await ctx.database.db.updateTable('webhook_endpoints').set({ secret_sealed: victimSealed }).where('id', '=', mine.id).execute();
    const before = receiver.received.length;
    const deliveries = await pendingDeliveriesAfterOneEvent(ctx, acct, mine.id, agentId);
    await expect(new MockActivityEnvironment().run(activities().deliverWebhook, { deliveryId: deliveries[0]!.id })).rejects.toSatisfy(
      (e: unknown) => e instanceof ApplicationFailure && e.nonRetryable === true && e.type === 'WebhookSecretUnreadable',
    );
    expect(receiver.received.length).toBe(before);
  });

  test('a secret in clear cannot be written back, even by hand', async () => {
    const { id } = await endpoint();
    await expect(ctx.database.db.updateTable('webhook_endpoints').set({ secret_sealed: 'whsec_plain' }).where('id', '=', id).execute()).rejects.toThrow(/webhook_endpoints_secrets_sealed/);
    await expect(ctx.database.db.updateTable('webhook_endpoints').set({ previous_secret_sealed: 'whsec_plain' }).where('id', '=', id).execute()).rejects.toThrow(/webhook_endpoints_secrets_sealed/);
  });
});

describe('migration 025 and secrets written in clear before it', () => {
  test('every secret and previous secret is sealed, deleted endpoints included, and opens to what it was; with another key than the bound one it refuses', async () => {
    useTestAuditKey();
    const url = process.env.DATABASE_URL;
    const scratch = url ? await createScratchDatabase(url) : undefined;
    const database = await connectDatabase(scratch ? { databaseUrl: scratch.url, poolSize: 2 } : { dataDir: 'memory://' });
    try {
      const db = database.db;
      await migrateTo(db, '022_capture_metadata');
      // The database belongs to the test keys, as `spend-auth migrate` binds it.
      await bindServerKeys(db, { auditHmac: TEST_AUDIT_HMAC_KEY, idempotency: TEST_IDEMPOTENCY_KEY });
      const at = new Date('2026-10-01T12:00:00Z');
      const later = new Date(Date.now() + 3_600_000);
      await sql`INSERT INTO accounts (id, name, plan) VALUES ('acct_old', 'old', 'growth')`.execute(db);
      const endpointRow = (id: string, secret: string, previous: string | null, deleted: Date | null) =>
        sql`INSERT INTO webhook_endpoints (id, account_id, livemode, url, description, events, enabled, secret, previous_secret, previous_secret_expires_at, created_at, updated_at, deleted_at)
            VALUES (${id}, 'acct_old', false, 'https://hooks.example/x', null, '["*"]'::jsonb, ${deleted === null}, ${secret}, ${previous}, ${previous ? later : null}, ${at}, ${at}, ${deleted})`.execute(db);
      const clear = { current: 'whsec_oldcurrent0000000000000000000000a', previous: 'whsec_oldprevious000000000000000000000b', alone: 'whsec_oldalone000000000000000000000000c', gone: 'whsec_olddeleted00000000000000000000000d' };
      await endpointRow('we_oldrotating', clear.current, clear.previous, null);
      await endpointRow('we_oldalone', clear.alone, null, null);
      await endpointRow('we_olddeleted', clear.gone, null, at);

      // Another key than the one bound to the database would seal secrets nobody can open: refused, nothing changed.
      const wrongKey = sealedWebhookSecretsMigration(() => randomBytes(32));
      await expect(db.transaction().execute((trx) => wrongKey.up(trx as unknown as Kysely<unknown>))).rejects.toThrow(/IDEMPOTENCY_ENCRYPTION_KEY/);
      // And no key at all, with secrets to seal: refused too.
      const noKey = sealedWebhookSecretsMigration(() => undefined);
      await expect(db.transaction().execute((trx) => noKey.up(trx as unknown as Kysely<unknown>))).rejects.toThrow(/IDEMPOTENCY_ENCRYPTION_KEY/);
      const untouched = await sql<{ secret: string }>`SELECT secret FROM webhook_endpoints WHERE id = 'we_oldalone'`.execute(db);
      expect(untouched.rows[0]!.secret).toBe(clear.alone);

      await migrateToLatest(db);
      const dump = (await sql<{ rows: string }>`SELECT string_agg(row_to_json(e)::text, E'\n') AS rows FROM webhook_endpoints e`.execute(db)).rows[0]!.rows;
      for (const s of Object.values(clear)) expect(dump).not.toContain(s);
      expect(dump).not.toMatch(/whsec_/);
      // Sealed by the migration's frozen copy, opened by the service's own code with the server's key.
      expect(await storedEndpointSecrets(db, 'we_oldrotating')).toMatchObject({ secret: clear.current, previous: clear.previous });
      expect(await storedEndpointSecrets(db, 'we_oldalone')).toMatchObject({ secret: clear.alone, previous: null });
      expect(await storedEndpointSecrets(db, 'we_olddeleted')).toMatchObject({ secret: clear.gone, previous: null });
    } finally {
      await database.close();
      await scratch?.drop();
    }
  }, 120_000);
});
