/**
 * What takes mandates with it (DECISIONS §20): revoking the agent key that is their `cnf` (§19)
 * and deactivating their agent revoke their live mandates in the same transaction, one
 * `mandate.revoked` record each; freezing does not.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { issueMandate, mandateAgent, mandateBody, registerP256Key } from '../support/mandates.js';

let ctx: TestContext;
let acct: TestAccount;

const revokedRecords = (agentId: string) =>
  ctx.database.db.selectFrom('audit_records').selectAll().where('account_id', '=', acct.id).where('type', '=', 'mandate.revoked').where('agent_id', '=', agentId).orderBy('insert_order').execute();
/** What an approved single-use presentation leaves (the verify path's own update, made directly here). */
const markUsed = (id: string) => ctx.database.db.updateTable('mandates').set({ status: 'used', uses: 1, budget_used: 100, last_used_at: new Date() }).where('id', '=', id).execute();
const statusOf = async (id: string) => (await acct.test.get(`/v1/mandates/${id}`)).body.status;
const adminKeyId = async () => {
  const keys = await ctx.database.db.selectFrom('api_keys').select(['id', 'role']).where('account_id', '=', acct.id).where('livemode', '=', false).where('role', '=', 'admin').execute();
  return keys.map((k) => k.id);
};

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 2000 });
  acct = await ctx.account('growth');
});
afterAll(() => ctx?.close());

describe('revoking an agent key (DELETE /v1/agents/:id/keys/:key_id)', () => {
  test("revokes the key's active mandates, one record each (actor: the caller; reason agent_key_revoked), not another key's, not used ones", async () => {
    const a = await mandateAgent(acct.test);
    const other = await registerP256Key(acct.test, a.agentId);
    const m1 = await issueMandate(acct.test, a.agentId, { agent_key_id: a.agentKeyId });
    const m2 = await issueMandate(acct.test, a.agentId, { agent_key_id: a.agentKeyId });
    const already = await issueMandate(acct.test, a.agentId, { agent_key_id: a.agentKeyId });
    expect((await acct.test.post(`/v1/mandates/${already.id}/revoke`)).status).toBe(200);
    const kept = await issueMandate(acct.test, a.agentId, { agent_key_id: other.agentKeyId });
    const used = await issueMandate(acct.test, a.agentId, { agent_key_id: a.agentKeyId });
    await markUsed(used.id);

    const res = await acct.test.delete(`/v1/agents/${a.agentId}/keys/${a.agentKeyId}`);
    expect(res.status).toBe(200);
    const key = await ctx.database.db.selectFrom('agent_keys').select('revoked_at').where('id', '=', a.agentKeyId).executeTakeFirstOrThrow();
    for (const id of [m1.id, m2.id]) {
      const m = (await acct.test.get(`/v1/mandates/${id}`)).body;
      expect(m).toMatchObject({ status: 'revoked', revoked_at: expect.any(String) });
      // In the key's own transaction: within the same request, at the same moment or just after.
      expect(Date.parse(m.revoked_at)).toBeGreaterThanOrEqual(key.revoked_at!.getTime());
    }
    expect(await statusOf(kept.id)).toBe('active');
    expect(await statusOf(used.id)).toBe('used');

    const records = await revokedRecords(a.agentId);
    // The direct revocation, then one per mandate the key took with it.
    expect(records).toHaveLength(3);
    const byKey = records.slice(1);
    expect(byKey.map((r) => (r.metadata as any).mandate_id).sort()).toEqual([m1.id, m2.id].sort());
    for (const r of byKey) {
      expect(r.metadata).toMatchObject({ agent_key_id: a.agentKeyId, reason: 'agent_key_revoked' });
      expect(r.actor_type).toBe('api_key');
      expect(await adminKeyId()).toContain(r.actor_id);
    }

    // Revoking the key again changes nothing and records nothing.
    expect((await acct.test.delete(`/v1/agents/${a.agentId}/keys/${a.agentKeyId}`)).status).toBe(200);
    expect(await revokedRecords(a.agentId)).toHaveLength(3);
  });

  test('a mandate issued while its key is being revoked never outlives the key', async () => {
    const a = await mandateAgent(acct.test);
    const keys = [a.agentKeyId];
    for (let i = 0; i < 5; i++) keys.push((await registerP256Key(acct.test, a.agentId)).agentKeyId);
    await Promise.all(
      keys.map((keyId) =>
        Promise.all([acct.test.post('/v1/mandates', mandateBody(a.agentId, { agent_key_id: keyId })), acct.test.delete(`/v1/agents/${a.agentId}/keys/${keyId}`)]).then(([issued, revoked]) => {
          expect([201, 400]).toContain(issued.status);
          expect(revoked.status).toBe(200);
        }),
      ),
    );
    const live = await ctx.database.db.selectFrom('mandates').select('id').where('agent_id', '=', a.agentId).where('status', '=', 'active').execute();
    expect(live).toEqual([]);
  });
});

describe('agent transitions', () => {
  test("deactivating an agent revokes its active mandates (reason agent_deactivated); used and revoked ones are left as they are", async () => {
    const a = await mandateAgent(acct.test);
    const m1 = await issueMandate(acct.test, a.agentId);
    const m2 = await issueMandate(acct.test, a.agentId, { budget: 1_000, recurrence: { frequency: 'ON_DEMAND' } });
    const before = await issueMandate(acct.test, a.agentId);
    expect((await acct.test.post(`/v1/mandates/${before.id}/revoke`)).status).toBe(200);
    const used = await issueMandate(acct.test, a.agentId);
    await markUsed(used.id);
    const other = await mandateAgent(acct.test);
    const untouched = await issueMandate(acct.test, other.agentId);

    const res = await acct.test.delete(`/v1/agents/${a.agentId}`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('deactivated');
    for (const id of [m1.id, m2.id]) expect(await statusOf(id)).toBe('revoked');
    expect(await statusOf(untouched.id)).toBe('active');
    expect(await statusOf(used.id)).toBe('used');
    const records = await revokedRecords(a.agentId);
    expect(records).toHaveLength(3);
    const byAgent = records.slice(1);
    expect(byAgent.map((r) => (r.metadata as any).mandate_id).sort()).toEqual([m1.id, m2.id].sort());
    for (const r of byAgent) {
      expect(r.metadata).toMatchObject({ agent_key_id: a.agentKeyId, reason: 'agent_deactivated' });
      expect(r.actor_type).toBe('api_key');
    }
  });

  test('freezing does not revoke: the mandate is active again once unfrozen', async () => {
    const a = await mandateAgent(acct.test);
    const m = await issueMandate(acct.test, a.agentId);
    expect((await acct.test.post(`/v1/agents/${a.agentId}/freeze`)).status).toBe(200);
    expect(await statusOf(m.id)).toBe('active');
    expect((await acct.test.post(`/v1/agents/${a.agentId}/unfreeze`)).status).toBe(200);
    expect(await statusOf(m.id)).toBe('active');
    expect(await revokedRecords(a.agentId)).toHaveLength(0);
  });

  test('a mandate issued while its agent is being deactivated never outlives the agent', async () => {
    const agents = await Promise.all(Array.from({ length: 4 }, () => mandateAgent(acct.test)));
    await Promise.all(agents.map((a) => Promise.all([acct.test.post('/v1/mandates', mandateBody(a.agentId)), acct.test.delete(`/v1/agents/${a.agentId}`)])));
    for (const a of agents) {
      const live = await ctx.database.db.selectFrom('mandates').select('id').where('agent_id', '=', a.agentId).where('status', '=', 'active').execute();
      expect(live).toEqual([]);
    }
  });
});
