/**
 * Attack: whoever holds the runtime role's password (every API and worker process has it) tries
 * the insider's truncation: disable or drop the append-only triggers, delete or truncate audit
 * records and chain heads, edit a sealed record, move a head back, or rewrite a key fingerprint.
 * The database is migrated by an owner role and the service runs as a runtime role with exactly the
 * grants of docs/security.md ("Running as a role that does not own its tables"), read from that
 * document, so the document is what is tested. The service's own work (authorize, sealing, verify,
 * agents' keys and signed requests, mandates, the housekeeping purges) runs as the runtime role too. PostgreSQL only: the embedded database has
 * one user.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startAuditSealer } from '../../src/audit/audit-sealer.js';
import { connectDatabase, type Database } from '../../src/db/connect.js';
import { migrateToLatest, pendingMigrations } from '../../src/db/migrate.js';
import { purgeExpiredNonces } from '../../src/agent-keys/nonce-purge.js';
import { purgeExpiredKeys } from '../../src/idempotency/idempotency.repository.js';
import { createLogger } from '../../src/kernel/logger.js';
import { purgeCounters } from '../../src/ratelimit/ratelimit.repository.js';
import { bindServerKeys } from '../../src/server-keys.js';
import { sendSigned, signHttpMessageSignatures } from '../support/agent-signing.js';
import { agentWithPolicy, createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';
import { presenting } from '../support/mandate-presenting.js';
import { agentApiKey, issueMandate, mandateFixture } from '../support/mandates.js';
import { TEST_AUDIT_HMAC_KEY, TEST_IDEMPOTENCY_KEY } from '../support/server-keys.js';
import { until } from '../support/wait.js';
import { documentedGrants } from '../support/insider.js';

const DATABASE_URL = process.env.DATABASE_URL || undefined;
if (!DATABASE_URL) console.log('[runtime-role] skipped: DATABASE_URL unset (roles and grants need PostgreSQL; the embedded database has one user)');

/** The URL for another role, with its password: CI's PostgreSQL asks for one on 127.0.0.1 (Debian's stock pg_hba.conf). */
const as = (url: string, user: string, password: string) => Object.assign(new URL(url), { username: user, password }).toString();

describe.skipIf(!DATABASE_URL)('the service as a runtime role that does not own its tables', () => {
  const suffix = randomBytes(4).toString('hex');
  const [owner, runtime, dbName] = [`spend_auth_owner_${suffix}`, `spend_auth_app_${suffix}`, `spend_auth_roles_${suffix}`];
  const password = randomBytes(12).toString('hex');
  const admin = async (statement: string) => {
    const c = new pg.Client({ connectionString: DATABASE_URL });
    await c.connect();
    try {
      await c.query(statement);
    } finally {
      await c.end();
    }
  };
  let ownerDb: Database;
  let ctx: TestContext;
  let app: Database['db'];
  let acct: TestAccount;

  beforeAll(async () => {
    // As a role with CREATEROLE and CREATEDB, not a superuser (CI's own role): it must be a member
    // of the owner to give it a database, and of both to end their sessions when it drops it.
    await admin(`CREATE ROLE ${owner} LOGIN PASSWORD '${password}'`);
    await admin(`CREATE ROLE ${runtime} LOGIN PASSWORD '${password}'`);
    await admin(`GRANT ${owner}, ${runtime} TO CURRENT_USER`);
    await admin(`CREATE DATABASE ${dbName} OWNER ${owner}`);
    const base = Object.assign(new URL(DATABASE_URL!), { pathname: `/${dbName}` }).toString();
    // As `spend-auth migrate` run by the owner, then the documented grants, as the owner.
    ownerDb = await connectDatabase({ databaseUrl: as(base, owner, password), poolSize: 2 });
    await migrateToLatest(ownerDb.db);
    await bindServerKeys(ownerDb.db, { auditHmac: TEST_AUDIT_HMAC_KEY, idempotency: TEST_IDEMPOTENCY_KEY });
    await sql.raw(documentedGrants(runtime)).execute(ownerDb.db);
    // Everything from here on is the runtime role: the API, the sealer, the checks at start.
    ctx = await createTestContext({ databaseUrl: as(base, runtime, password), allowPrivateUrls: true });
    app = ctx.database.db;
    acct = await ctx.account('growth');
  }, 60_000);

  afterAll(async () => {
    await ctx?.close();
    await ownerDb?.close();
    await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin(`DROP ROLE IF EXISTS ${runtime}`);
    await admin(`DROP ROLE IF EXISTS ${owner}`);
  });

  test('starts as a process does: keys checked, no pending migration', async () => {
    expect((await sql<{ u: string }>`SELECT current_user AS u`.execute(app)).rows[0]!.u).toBe(runtime);
    await bindServerKeys(app, { auditHmac: TEST_AUDIT_HMAC_KEY, idempotency: TEST_IDEMPOTENCY_KEY });
    expect(await pendingMigrations(app)).toEqual([]);
    await migrateToLatest(app); // what `accounts create` runs first: nothing to do, nothing refused
  });

  test('does its work: authorize (approved, held, idempotent replay), sealing in the background, verify, the purges', async () => {
    const { agentId } = await agentWithPolicy(acct.test, { require_approval_above: 5_000 });
    const key = { 'idempotency-key': `idem-${suffix}` };
    const approved = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 100, currency: 'USD', vendor: 'shop.example' }, key);
    expect(approved.body.decision).toBe('approved');
    expect((await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 100, currency: 'USD', vendor: 'shop.example' }, key)).headers.get('idempotent-replayed')).toBe('true');
    expect((await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 6_000, currency: 'USD', vendor: 'shop.example' })).body.decision).toBe('held');
    expect((await acct.test.post('/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', events: ['*'] })).status).toBe(201);

    const stopSealer = startAuditSealer(app, createLogger('silent'), 50);
    try {
      await until('sealed by the runtime role', async () => ((await app.selectFrom('audit_records').select('id').where('hash', 'is', null).execute()).length === 0 ? true : undefined));
    } finally {
      await stopSealer();
    }
    expect((await acct.test.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true, decisions_without_record: 0 });
    await purgeExpiredKeys(app, new Date(Date.now() + 2 * 86_400_000));
    await purgeCounters(app, new Date());
  });

  test('every table the migrations make is named in the grants (a new table without one fails here, not in production)', async () => {
    const tables = (await sql<{ t: string }>`SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`.execute(ownerDb.db)).rows.map((r) => r.t);
    const granted = new Set([...documentedGrants(runtime).matchAll(/\bON\s+(?:TABLE\s+)?([a-z_][a-z0-9_]*(?:\s*,\s*[a-z_][a-z0-9_]*)*)\s+TO\b/g)].flatMap((m) => m[1]!.split(/\s*,\s*/)));
    expect(tables.length).toBeGreaterThan(20);
    expect(tables.filter((t) => !granted.has(t)).sort()).toEqual([]);
  });

  test("does agents' keys and mandates: a key registered, a signed authorize, a mandate issued and verified, the key revoked with its mandates, the nonce purge", async () => {
    const fx = await mandateFixture(acct.test);
    const agent = await agentApiKey(ctx, acct.test, fx.agentId);
    const signed = await sendSigned(ctx.baseUrl, agent.key, { method: 'POST', path: '/v1/authorize', body: { agent_id: fx.agentId, amount: 100, currency: 'USD', vendor: 'shop.example' } }, (u) =>
      signHttpMessageSignatures(u, fx.key),
    );
    expect(signed.body.decision, signed.text).toBe('approved');
    const { close, verify } = presenting(ctx);
    const verified = await verify(agent, fx, await close(fx));
    expect(verified.body, verified.text).toMatchObject({ status: 'Success', decision_id: expect.any(String) });
    const unused = await issueMandate(acct.test, fx.agentId);
    expect((await acct.test.delete(`/v1/agents/${fx.agentId}/keys/${fx.agentKeyId}`)).body.status).toBe('revoked');
    expect((await acct.test.get(`/v1/mandates/${unused.id}`)).body.status).toBe('revoked');
    expect(await purgeExpiredNonces(app, new Date(Date.now() + 86_400_000))).toBeGreaterThanOrEqual(1);
    expect((await acct.test.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true, decisions_without_record: 0, ledger_mismatches: 0 });
  });

  test.each([
    ['disable the append-only triggers', 'ALTER TABLE audit_records DISABLE TRIGGER USER', /must be owner/],
    ['disable the chain-head triggers', 'ALTER TABLE audit_chains DISABLE TRIGGER USER', /must be owner/],
    ['drop a trigger', 'DROP TRIGGER audit_records_no_delete ON audit_records', /must be owner/],
    ['replace the guard function', "CREATE OR REPLACE FUNCTION audit_records_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END; $$", /must be owner|permission denied/],
    ['turn triggers off for the session', 'SET session_replication_role = replica', /permission denied/],
    ['delete audit records', 'DELETE FROM audit_records', /permission denied/],
    ['truncate audit records', 'TRUNCATE audit_records', /permission denied/],
    ['delete the chain heads', 'DELETE FROM audit_chains', /permission denied/],
    ['truncate the chain heads', 'TRUNCATE audit_chains', /permission denied/],
    ["edit a record's content", "UPDATE audit_records SET reason = 'rewritten'", /permission denied/],
    ['re-link a sealed record', "UPDATE audit_records SET hash = repeat('a', 64) WHERE hash IS NOT NULL", /append-only/],
    ['move a chain head back', 'UPDATE audit_chains SET sequence = 0', /forward only/],
    ['rewrite a key fingerprint', "UPDATE server_key_fingerprints SET fingerprint = repeat('0', 64)", /permission denied/],
    ['delete the key fingerprints', 'DELETE FROM server_key_fingerprints', /permission denied/],
    ['mark a migration undone', 'DELETE FROM kysely_migration', /permission denied/],
    ['create a table of its own', 'CREATE TABLE stash (x int)', /permission denied/],
  ])('cannot %s', async (_what, statement, refusal) => {
    await expect(sql.raw(statement).execute(app)).rejects.toThrow(refusal);
  });

  test('after every attempt the audit log is whole and still verifies', async () => {
    expect((await acct.test.post('/v1/policies', policyBody({ name: 'after the attempts' }))).status).toBe(201);
    const res = await acct.test.get('/v1/audit-logs/verify');
    expect(res.body).toMatchObject({ valid: true, decisions_without_record: 0 });
    expect(res.body.records).toBeGreaterThanOrEqual(7);
  });
});
