/**
 * Attack: a key lends its hands to itself with a key minted before the upgrade that records
 * descent (migration 023). A live admin key minted a reviewer key through the API last month;
 * without a backfill that reviewer descends from no one and approves the admin's live hold. The
 * migration takes each earlier key's minter from its `api_key.created` audit record (actor
 * `api_key`), so the pre-upgrade reviewer and grandchild are refused (403) like keys minted
 * today. A key whose record names the command line (actor `system`) is `command_line`; a key with
 * no record is `unknown` and descends from no one (its origin cannot be told). The engine is the
 * FAKE inline gateway, which records approvals through the workflow's own activity.
 */
import { sql } from 'kysely';
import { describe, expect, test } from 'vitest';
import { appendAudit } from '../../src/audit/audit.repository.js';
import { connectDatabase } from '../../src/db/connect.js';
import type { Db } from '../../src/db/database.js';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import { generateApiKey } from '../../src/keys/api-key.js';
import { createScratchDatabase, createTestContext, policyBody } from '../support/context.js';
import { FakeInlineGateway } from '../support/fake-gateway.js';
import { useTestAuditKey } from '../support/server-keys.js';

const at = new Date('2026-10-01T12:00:00Z');

/** A live key as the release before 023 wrote it: the row without descent, and its audit record. */
async function oldKey(db: Db, id: string, role: 'admin' | 'reviewer', actor: { type: 'api_key' | 'system'; id: string | null } | null): Promise<string> {
  const key = generateApiKey(true);
  await sql`INSERT INTO api_keys (id, account_id, livemode, name, role, key_hash, key_prefix, created_at)
            VALUES (${id}, 'acct_old', true, ${id}, ${role}, ${key.hash}, ${key.prefix}, ${at})`.execute(db);
  if (actor) {
    await appendAudit(db, { accountId: 'acct_old', livemode: true, type: 'api_key.created', actor, metadata: { api_key_id: id, role, name: id } });
  }
  return key.raw;
}

describe('migration 023 and keys minted before it', () => {
  test('descent is taken from the audit records: the pre-upgrade reviewer and grandchild of the requester are refused; the list says where each key came from', async () => {
    useTestAuditKey();
    const url = process.env.DATABASE_URL;
    const scratch = url ? await createScratchDatabase(url) : undefined;
    const database = await connectDatabase(scratch ? { databaseUrl: scratch.url, poolSize: 4 } : { dataDir: 'memory://' });
    let ctx: Awaited<ReturnType<typeof createTestContext>> | undefined;
    try {
      const db = database.db;
      await migrateTo(db, '022_capture_metadata');
      await sql`INSERT INTO accounts (id, name, plan) VALUES ('acct_old', 'old', 'growth')`.execute(db);
      const root = await oldKey(db, 'key_oldroot', 'admin', { type: 'system', id: null });
      const reviewer = await oldKey(db, 'key_oldreviewer', 'reviewer', { type: 'api_key', id: 'key_oldroot' });
      const middle = await oldKey(db, 'key_oldmiddle', 'admin', { type: 'api_key', id: 'key_oldroot' });
      const grandchild = await oldKey(db, 'key_oldgrandchild', 'reviewer', { type: 'api_key', id: 'key_oldmiddle' });
      const sibling = await oldKey(db, 'key_oldsibling', 'reviewer', null);
      await migrateToLatest(db);

      ctx = await createTestContext({ database, gateway: (deps) => new FakeInlineGateway(deps) });
      const c = ctx.client;
      const listed = (await c(root).get('/v1/api-keys?limit=100')).body.data as { id: string; created_by: string | null; created_via: string }[];
      const origin = Object.fromEntries(listed.map((k) => [k.id, [k.created_by, k.created_via]]));
      expect(origin).toEqual({
        key_oldroot: [null, 'command_line'],
        key_oldreviewer: ['key_oldroot', 'api'],
        key_oldmiddle: ['key_oldroot', 'api'],
        key_oldgrandchild: ['key_oldmiddle', 'api'],
        key_oldsibling: [null, 'unknown'],
      });

      const p = await c(root).post('/v1/policies', policyBody({ require_approval_above: 100 }));
      const agentId = (await c(root).post('/v1/agents', { name: 'bot', policy_id: p.body.id })).body.id;
      const held = await c(root).post('/v1/authorize', { agent_id: agentId, amount: 5_000, currency: 'USD', vendor: 'shop.example' });
      expect(held.body).toMatchObject({ decision: 'held', status: 'pending', requested_by: 'key_oldroot' });
      const id = held.body.decision_id as string;
      for (const k of [reviewer, grandchild, middle]) {
        const res = await c(k).post(`/v1/approvals/${id}/approve`);
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('forbidden');
        expect(res.body.error.message).toMatch(/descending from the API key that requested .*four eyes/);
      }
      expect((await c(root).get(`/v1/decisions/${id}`)).body).toMatchObject({ status: 'pending', approvals: [] });
      // A key whose origin no record tells is no one's descendant: it approves as another person.
      const ok = await c(sibling).post(`/v1/approvals/${id}/approve`);
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ status: 'approved', approvals: [{ api_key_id: 'key_oldsibling' }] });
    } finally {
      if (ctx) await ctx.close();
      else await database.close();
      await scratch?.drop();
    }
  }, 60_000);
});
