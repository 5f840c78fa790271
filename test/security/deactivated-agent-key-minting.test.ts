/**
 * Attack: an admin key mints an agent key for an agent that was deactivated (a retired agent
 * brought back as a live credential). Deactivation is terminal: the mint answers 409 conflict like
 * every other write on a deactivated agent, and no key, audit record or raw key comes out of it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;

beforeAll(async () => {
  ctx = await createTestContext();
  acct = await ctx.account('growth');
});
afterAll(() => ctx?.close());

async function agent(): Promise<string> {
  const p = await acct.test.post('/v1/policies', policyBody());
  return (await acct.test.post('/v1/agents', { name: 'retired', policy_id: p.body.id })).body.id;
}

const keysOf = async (agentId: string) => (await ctx.database.db.selectFrom('api_keys').select('id').where('agent_id', '=', agentId).execute()).length;
const auditOf = async (agentId: string) =>
  (await ctx.database.db.selectFrom('audit_records').select('id').where('agent_id', '=', agentId).where('type', '=', 'api_key.created').execute()).length;

describe('minting an agent key for a deactivated agent', () => {
  test('409 conflict naming agent_id; no key is stored, no raw key returned, nothing audited', async () => {
    const id = await agent();
    expect((await acct.test.delete(`/v1/agents/${id}`)).status).toBe(200);
    const res = await acct.test.post('/v1/api-keys', { name: 'back from the dead', role: 'agent', agent_id: id });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'conflict', param: 'agent_id' });
    expect(res.body.error.message).toMatch(/deactivated/);
    expect(res.text).not.toMatch(/gc_test_/);
    expect(await keysOf(id)).toBe(0);
    expect(await auditOf(id)).toBe(0);
  });

  test('a frozen agent (which can be unfrozen) still gets keys; an active one too', async () => {
    const id = await agent();
    expect((await acct.test.post('/v1/api-keys', { name: 'active', role: 'agent', agent_id: id })).status).toBe(201);
    expect((await acct.test.post(`/v1/agents/${id}/freeze`)).status).toBe(200);
    expect((await acct.test.post('/v1/api-keys', { name: 'frozen', role: 'agent', agent_id: id })).status).toBe(201);
    expect(await keysOf(id)).toBe(2);
  });

  test('a mint racing the deactivation answers 201 (it came first) or 409, never an error', async () => {
    const id = await agent();
    const [minted, gone] = await Promise.all([
      acct.test.post('/v1/api-keys', { name: 'racer', role: 'agent', agent_id: id }),
      acct.test.delete(`/v1/agents/${id}`),
    ]);
    expect(gone.status).toBe(200);
    expect([201, 409]).toContain(minted.status);
  });
});
