import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';
import { FakeInlineGateway } from '../support/fake-gateway.js';

/** Two apps on their own databases: one whose engine is unreachable, one with the fake inline engine. */
let down: TestContext;
let up: TestContext;
let downAcct: TestAccount;
let upAcct: TestAccount;

beforeAll(async () => {
  [down, up] = await Promise.all([createTestContext(), createTestContext({ gateway: (deps) => new FakeInlineGateway(deps) })]);
  [downAcct, upAcct] = await Promise.all([down.account('growth'), up.account('growth')]);
});
afterAll(async () => {
  await down?.close();
  await up?.close();
});

async function heldAgent(a: TestAccount): Promise<string> {
  const p = await a.test.post('/v1/policies', policyBody({ require_approval_above: 100 }));
  return (await a.test.post('/v1/agents', { name: 'held', policy_id: p.body.id })).body.id;
}
const authorize = (a: TestAccount, agentId: string, amount: number) =>
  a.test.post('/v1/authorize', { agent_id: agentId, amount, currency: 'USD', vendor: 'shop.example' });

describe('while the workflow engine is unreachable', () => {
  test('authorize still answers held, with its reservation and outbox row', async () => {
    const agentId = await heldAgent(downAcct);
    const res = await authorize(downAcct, agentId, 500);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ decision: 'held', status: 'pending', reason_code: 'approval_required' });
    const outbox = await down.database.db.selectFrom('outbox').selectAll().where('ref_id', '=', res.body.decision_id).execute();
    expect(outbox.map((o) => o.topic)).toEqual(['held_decision']);
  });

  test('approve answers 503 service_unavailable and the request stays pending', async () => {
    const agentId = await heldAgent(downAcct);
    const held = await authorize(downAcct, agentId, 500);
    const res = await downAcct.test.post(`/v1/approvals/${held.body.decision_id}/approve`, { note: 'ok' });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('service_unavailable');
    expect((await downAcct.test.get(`/v1/decisions/${held.body.decision_id}`)).body.status).toBe('pending');
  });

  test('freezing the agent still resolves its holds (no engine needed)', async () => {
    const agentId = await heldAgent(downAcct);
    const held = await authorize(downAcct, agentId, 500);
    await downAcct.test.post(`/v1/agents/${agentId}/freeze`);
    expect((await downAcct.test.get(`/v1/decisions/${held.body.decision_id}`)).body).toMatchObject({ status: 'denied', reason_code: 'agent_frozen' });
    const res = await downAcct.test.post(`/v1/approvals/${held.body.decision_id}/approve`);
    expect(res.status).toBe(409);
  });
});

describe('POST /v1/approvals/:decision_id/approve and /deny (fake inline engine)', () => {
  test('approve answers 200 with the resolved decision and its token; a second outcome is 409', async () => {
    const agentId = await heldAgent(upAcct);
    const held = await authorize(upAcct, agentId, 700);
    const res = await upAcct.test.post(`/v1/approvals/${held.body.decision_id}/approve`, { note: 'fine' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ decision_id: held.body.decision_id, decision: 'approved', status: 'approved', reason_code: null });
    expect(res.body.authorization_token).toMatch(/^gca_/);
    expect(res.body.resolved_at).not.toBeNull();
    const again = await upAcct.test.post(`/v1/approvals/${held.body.decision_id}/deny`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
    expect((await upAcct.test.get(`/v1/decisions/${held.body.decision_id}`)).body).toEqual(res.body);
  });

  test('deny answers 200 with the denied decision and the note in its reason', async () => {
    const agentId = await heldAgent(upAcct);
    const held = await authorize(upAcct, agentId, 700);
    const res = await upAcct.test.post(`/v1/approvals/${held.body.decision_id}/deny`, { note: 'wrong vendor' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ decision: 'denied', status: 'denied', reason_code: 'policy_denied' });
    expect(res.body.reason).toContain('wrong vendor');
    expect(res.body).not.toHaveProperty('authorization_token');
  });

  test('a reviewer repeating its own outcome (a retry after a timeout) gets 200 with the recorded decision; another key or outcome gets 409', async () => {
    const agentId = await heldAgent(upAcct);
    const held = await authorize(upAcct, agentId, 700);
    const first = await upAcct.test.post(`/v1/approvals/${held.body.decision_id}/approve`);
    expect(first.status).toBe(200);
    const retry = await upAcct.test.post(`/v1/approvals/${held.body.decision_id}/approve`);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect((await upAcct.test.post(`/v1/approvals/${held.body.decision_id}/deny`)).status).toBe(409);
    const otherReviewer = up.client((await upAcct.test.post('/v1/api-keys', { name: 'r2', role: 'reviewer' })).body.key);
    const other = await otherReviewer.post(`/v1/approvals/${held.body.decision_id}/approve`);
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('conflict');
  });

  test('a long-polling agent wakes with the outcome', async () => {
    const agentId = await heldAgent(upAcct);
    const held = await authorize(upAcct, agentId, 700);
    const polled = upAcct.test.get(`/v1/decisions/${held.body.decision_id}?wait=20`);
    await new Promise((r) => setTimeout(r, 200));
    await upAcct.test.post(`/v1/approvals/${held.body.decision_id}/approve`);
    expect((await polled).body).toMatchObject({ decision: 'approved', status: 'approved' });
  });

  test('reviewer keys resolve approvals; agent keys may not (403)', async () => {
    const agentId = await heldAgent(upAcct);
    const held = await authorize(upAcct, agentId, 700);
    const agentKey = up.client((await upAcct.test.post('/v1/api-keys', { name: 'a', role: 'agent', agent_id: agentId })).body.key);
    const reviewer = up.client((await upAcct.test.post('/v1/api-keys', { name: 'r', role: 'reviewer' })).body.key);
    const forbidden = await agentKey.post(`/v1/approvals/${held.body.decision_id}/approve`);
    expect(forbidden.status).toBe(403);
    const ok = await reviewer.post(`/v1/approvals/${held.body.decision_id}/approve`);
    expect(ok.status).toBe(200);
    const audit = await upAcct.test.get(`/v1/audit-logs?type=approval.completed&agent_id=${agentId}`);
    expect(audit.body.data[0].actor).toEqual({ type: 'reviewer', id: await reviewerKeyId(reviewer.key) });
  });

  test('unknown, other-account and never-held decisions answer 404; a bad note 400', async () => {
    expect((await upAcct.test.post('/v1/approvals/dec_missing/approve')).status).toBe(404);
    const agentId = await heldAgent(upAcct);
    const held = await authorize(upAcct, agentId, 700);
    const stranger = await up.account();
    expect((await stranger.test.post(`/v1/approvals/${held.body.decision_id}/approve`)).status).toBe(404);
    const approvedInline = await authorize(upAcct, agentId, 50);
    expect(approvedInline.body.decision).toBe('approved');
    const notHeld = await upAcct.test.post(`/v1/approvals/${approvedInline.body.decision_id}/approve`);
    expect(notHeld.status).toBe(404);
    const bad = await upAcct.test.post(`/v1/approvals/${held.body.decision_id}/approve`, { note: 'x'.repeat(1001) });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('note');
  });
});

async function reviewerKeyId(rawKey: string): Promise<string> {
  const { hashApiKey } = await import('../../src/keys/api-key.js');
  const row = await up.database.db.selectFrom('api_keys').select('id').where('key_hash', '=', hashApiKey(rawKey)).executeTakeFirstOrThrow();
  return row.id;
}

describe('GET /v1/approvals', () => {
  test('lists held requests newest first, filters by status, pages without repeats', async () => {
    const a = await up.account();
    const agentId = await heldAgent(a);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await authorize(a, agentId, 200 + i)).body.decision_id);
    await authorize(a, agentId, 50); // approved inline: not an approval
    await a.test.post(`/v1/approvals/${ids[0]}/deny`);
    const all = await a.test.get('/v1/approvals?limit=2');
    expect(all.body.data).toHaveLength(2);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await a.test.get(`/v1/approvals?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.body.data.map((d: any) => d.decision_id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    const pending = await a.test.get('/v1/approvals?status=pending');
    expect(pending.body.data.map((d: any) => d.decision_id).sort()).toEqual(ids.slice(1).sort());
    const denied = await a.test.get('/v1/approvals?status=denied');
    expect(denied.body.data.map((d: any) => d.decision_id)).toEqual([ids[0]]);
    expect((await a.test.get('/v1/approvals?status=maybe')).status).toBe(400);
  });

  test("agent_id lists that agent's held requests only, alone or with status", async () => {
    const a = await up.account();
    const [first, second] = [await heldAgent(a), await heldAgent(a)];
    const ofFirst = [(await authorize(a, first, 201)).body.decision_id, (await authorize(a, first, 202)).body.decision_id];
    const ofSecond = (await authorize(a, second, 203)).body.decision_id;
    await a.test.post(`/v1/approvals/${ofFirst[0]}/deny`);
    const listed = async (query: string) => (await a.test.get(`/v1/approvals?${query}`)).body.data.map((d: any) => d.decision_id);
    expect(await listed(`agent_id=${first}`)).toEqual([...ofFirst].reverse());
    expect(await listed(`agent_id=${second}`)).toEqual([ofSecond]);
    expect(await listed(`agent_id=${first}&status=pending`)).toEqual([ofFirst[1]]);
    expect(await listed('agent_id=agt_none')).toEqual([]);
  });
});
