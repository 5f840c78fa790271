/**
 * A capture's `metadata` (the rail's own reference, e.g. an x402 settlement's transaction): kept
 * with the capture, shown in the decision's `capture` object, in the `authorization.captured`
 * event and in its audit record; and agent keys capture their own agent's approvals in full.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestContext, policyBody, type Client, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;
let agentId: string;
let agentKey: Client;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  acct = await ctx.account('growth');
  const policy = await acct.test.post('/v1/policies', policyBody());
  agentId = (await acct.test.post('/v1/agents', { name: 'payer', policy_id: policy.body.id })).body.id;
  agentKey = ctx.client((await acct.test.post('/v1/api-keys', { name: 'payer', role: 'agent', agent_id: agentId })).body.key);
});
afterAll(() => ctx?.close());

async function approval(client: Client = agentKey) {
  const res = await client.post('/v1/authorize', { agent_id: agentId, amount: 250, currency: 'USD', vendor: 'api.example', category: 'x402' });
  expect(res.body.decision).toBe('approved');
  return res.body.decision_id as string;
}

const SETTLEMENT = { transaction: `0x${'ab'.repeat(32)}`, network: 'eip155:84532', payer: '0x9656430F35B476D155318e8Cf14b67fB832C591c' };

describe('capture metadata', () => {
  test.each([
    ['an agent key, in full', () => agentKey],
    ['an admin key', () => acct.test],
  ])('%s: kept with the capture and shown on the decision, its event and its audit record', async (_name, client) => {
    const id = await approval();
    const res = await client().post(`/v1/decisions/${id}/capture`, { metadata: SETTLEMENT });
    expect(res.status, res.text).toBe(200);
    expect(res.body.capture).toMatchObject({ status: 'captured', captured_amount: 250, metadata: SETTLEMENT });
    expect((await agentKey.get(`/v1/decisions/${id}`)).body.capture.metadata).toEqual(SETTLEMENT);
    // The request's own metadata is untouched.
    expect(res.body.metadata).toEqual({});

    const event = ((await acct.test.get('/v1/events?limit=100')).body.data as any[]).find((e) => e.event === 'authorization.captured' && e.data.decision_id === id);
    expect(event.data.capture.metadata).toEqual(SETTLEMENT);
    expect(event.data).not.toHaveProperty('authorization_token');

    const audit = ((await acct.test.get('/v1/audit-logs?limit=100')).body.data as any[]).find((r) => r.type === 'authorization.captured' && r.decision_id === id);
    expect(audit.metadata).toEqual({ approved_amount: 250, captured_amount: 250, released_amount: 0, capture_metadata: SETTLEMENT });
    expect((await acct.test.get('/v1/audit-logs/verify')).body.valid).toBe(true);
  });

  test('without metadata a capture shows {} ; uncaptured, voided and denied decisions show null', async () => {
    const captured = await approval();
    expect((await agentKey.post(`/v1/decisions/${captured}/capture`, {})).body.capture.metadata).toEqual({});
    const voided = await approval();
    expect((await agentKey.get(`/v1/decisions/${voided}`)).body.capture.metadata).toBeNull();
    expect((await acct.test.post(`/v1/decisions/${voided}/void`)).body.capture.metadata).toBeNull();
    const audit = ((await acct.test.get('/v1/audit-logs?limit=100')).body.data as any[]).find((r) => r.type === 'authorization.voided' && r.decision_id === voided);
    expect(audit.metadata).not.toHaveProperty('capture_metadata');
  });

  test('an idempotent retry of an agent capture replays the first answer and captures once', async () => {
    const id = await approval();
    const first = await agentKey.post(`/v1/decisions/${id}/capture`, { metadata: SETTLEMENT }, { 'idempotency-key': `x402-capture-${id}` });
    const again = await agentKey.post(`/v1/decisions/${id}/capture`, { metadata: SETTLEMENT }, { 'idempotency-key': `x402-capture-${id}` });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    const captures = ((await acct.test.get('/v1/audit-logs?limit=100')).body.data as any[]).filter((r) => r.type === 'authorization.captured' && r.decision_id === id);
    expect(captures).toHaveLength(1);
  });
});

describe('PATCH /v1/decisions/:id/capture: references added after the capture', () => {
  const SIGNED = { nonce: `0x${'cd'.repeat(32)}`, valid_before: '1790000000', pay_to: '0x1111111111111111111111111111111111111111' };

  test('an agent key adds the settlement to its captured approval: keys are added, recorded ones kept, the audit record says what was added', async () => {
    const id = await approval();
    expect((await agentKey.post(`/v1/decisions/${id}/capture`, { metadata: SIGNED })).status).toBe(200);
    const res = await agentKey.patch(`/v1/decisions/${id}/capture`, { metadata: { ...SETTLEMENT, nonce: SIGNED.nonce } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.capture).toMatchObject({ status: 'captured', captured_amount: 250, metadata: { ...SIGNED, ...SETTLEMENT } });
    // The same keys again change nothing (a retry after a lost answer) and write no second record.
    expect((await agentKey.patch(`/v1/decisions/${id}/capture`, { metadata: SETTLEMENT })).body.capture.metadata).toEqual({ ...SIGNED, ...SETTLEMENT });
    const records = ((await acct.test.get('/v1/audit-logs?limit=100')).body.data as any[]).filter((r) => r.type === 'authorization.capture_updated' && r.decision_id === id);
    expect(records.map((r) => r.metadata)).toEqual([{ added: SETTLEMENT }]);
    expect((await acct.test.get('/v1/audit-logs/verify')).body.valid).toBe(true);
  });

  test('a recorded key never changes: another value → 409 conflict, nothing written', async () => {
    const id = await approval();
    await agentKey.post(`/v1/decisions/${id}/capture`, { metadata: SIGNED });
    const res = await agentKey.patch(`/v1/decisions/${id}/capture`, { metadata: { nonce: `0x${'00'.repeat(32)}`, transaction: '0xabc' } });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'conflict', param: 'metadata' });
    expect((await agentKey.get(`/v1/decisions/${id}`)).body.capture.metadata).toEqual(SIGNED);
  });

  test('uncaptured, voided → 409; another agent → 404; bad bodies → 400; more than 50 keys in all → 400', async () => {
    const uncaptured = await approval();
    expect((await agentKey.patch(`/v1/decisions/${uncaptured}/capture`, { metadata: SETTLEMENT })).status).toBe(409);
    await acct.test.post(`/v1/decisions/${uncaptured}/void`);
    expect((await acct.test.patch(`/v1/decisions/${uncaptured}/capture`, { metadata: SETTLEMENT })).status).toBe(409);

    const policy = await acct.test.post('/v1/policies', policyBody());
    const other = (await acct.test.post('/v1/agents', { name: 'other', policy_id: policy.body.id })).body.id;
    const otherKey = ctx.client((await acct.test.post('/v1/api-keys', { name: 'other', role: 'agent', agent_id: other })).body.key);
    const id = await approval();
    await agentKey.post(`/v1/decisions/${id}/capture`, {});
    expect((await otherKey.patch(`/v1/decisions/${id}/capture`, { metadata: SETTLEMENT })).status).toBe(404);

    for (const body of [{}, { metadata: SETTLEMENT, amount: 1 }, { metadata: { x: { nested: true } } }, { metadata: 'x' }]) {
      expect((await agentKey.patch(`/v1/decisions/${id}/capture`, body)).status, JSON.stringify(body)).toBe(400);
    }
    const many = (from: number) => Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${from + i}`, 'v']));
    expect((await agentKey.patch(`/v1/decisions/${id}/capture`, { metadata: many(0) })).status).toBe(200);
    const res = await agentKey.patch(`/v1/decisions/${id}/capture`, { metadata: many(30) });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('metadata');
  });
});
