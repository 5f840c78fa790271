/**
 * Attack: an agent authorizes itself. Its own agent key tries to issue a mandate for its agent
 * (plain, with an Idempotency-Key, for another agent, with every widening field it can think of),
 * to revoke or read others', and an admin's mandate request smuggles widening into `metadata` or
 * into members the body does not have. Issuing is the human's act (DECISIONS §20: an agent key →
 * 403): nothing is issued, nothing is recorded, and metadata never reaches the signed constraints.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestContext, type Client, type TestAccount, type TestContext } from '../support/context.js';
import { agentApiKey, decodeCredential, issueMandate, mandateAgent, mandateBody, resolveCredential, type MandateAgent } from '../support/mandates.js';

let ctx: TestContext;
let acct: TestAccount;
let me: MandateAgent;
let other: MandateAgent;
let myKey: Client;

const mandatesOf = (agentId: string) => ctx.database.db.selectFrom('mandates').select(['id', 'status']).where('agent_id', '=', agentId).execute();
const createdRecords = () =>
  ctx.database.db.selectFrom('audit_records').select('id').where('account_id', '=', acct.id).where('type', '=', 'mandate.created').execute();

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 1000 });
  acct = await ctx.account('growth');
  me = await mandateAgent(acct.test);
  other = await mandateAgent(acct.test);
  myKey = await agentApiKey(ctx, acct.test, me.agentId);
});
afterAll(() => ctx?.close());

describe('an agent key cannot issue', () => {
  const widening = {
    amount_max: 10_000,
    budget: 9_000_000,
    recurrence: { frequency: 'ON_DEMAND', max_occurrences: 1_000 },
    expires_in: 31_622_400,
    payees: [{ id: 'anyone', name: 'Anyone', website: 'https://attacker.example' }],
  };
  test.each([
    ['for its own agent', () => mandateBody(me.agentId), {}],
    ['for its own agent, widened to every limit', () => mandateBody(me.agentId, widening), {}],
    ['with an Idempotency-Key', () => mandateBody(me.agentId), { 'Idempotency-Key': 'self-issue-1' }],
    ['for another agent', () => mandateBody(other.agentId), {}],
    ['with a malformed body (no oracle on its shape)', () => ({ agent_id: me.agentId, nonsense: true }), {}],
  ] as const)('%s → 403 forbidden; nothing issued or recorded', async (_what, body, headers) => {
    const before = (await createdRecords()).length;
    const res = await myKey.post('/v1/mandates', body(), headers);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect(await mandatesOf(me.agentId)).toEqual([]);
    expect(await mandatesOf(other.agentId)).toEqual([]);
    expect(await createdRecords()).toHaveLength(before);
  });

  test("it cannot revoke its own mandate (a mandate is the human's to take back), nor read another agent's", async () => {
    const mine = await issueMandate(acct.test, me.agentId);
    const theirs = await issueMandate(acct.test, other.agentId);
    const revoke = await myKey.post(`/v1/mandates/${mine.id}/revoke`);
    expect(revoke.status).toBe(403);
    expect((await acct.test.get(`/v1/mandates/${mine.id}`)).body.status).toBe('active');
    expect((await myKey.get(`/v1/mandates/${theirs.id}`)).status).toBe(404);
    expect((await myKey.get(`/v1/mandates?agent_id=${other.agentId}`)).body.data).toEqual([]);
    expect((await myKey.get(`/v1/mandates/${mine.id}`)).status).toBe(200);
  });
});

describe('widening through the body', () => {
  test('metadata is stored as metadata only: constraint-like keys never reach the signed mandate', async () => {
    const metadata = { amount_max: 9_999_999, budget: 9_999_999, payees: 'anyone', 'payment.amount_range': 'unbounded', constraints: '[]', cnf: 'attacker', vct: 'mandate.payment.open.2' };
    const m = await issueMandate(acct.test, me.agentId, { metadata });
    expect(m.metadata).toEqual(metadata);
    const { open } = resolveCredential(m.credential);
    expect(open).toEqual(m.open_mandate);
    expect(open.vct).toBe('mandate.payment.open.1');
    expect(open.constraints.find((c: any) => c.type === 'payment.amount_range')).toEqual({ type: 'payment.amount_range', currency: 'USD', max: 10_000 });
    expect(open.constraints.map((c: any) => c.type)).not.toContain('payment.budget');
    expect(open.cnf.jwk).toEqual({ kty: 'EC', crv: 'P-256', x: me.key.publicJwk.x, y: me.key.publicJwk.y });
    // Nothing of the metadata is in the credential at all.
    const { payload, disclosures } = decodeCredential(m.credential);
    expect(JSON.stringify([payload, disclosures])).not.toContain('9999999');
    expect(JSON.stringify([payload, disclosures])).not.toContain('attacker');
  });

  test.each([
    ['constraints', [{ type: 'payment.budget', max: 1e9, currency: 'USD' }]],
    ['cnf', { jwk: { kty: 'EC', crv: 'P-256', x: 'a'.repeat(43), y: 'b'.repeat(43) } }],
    ['currency', 'JPY'],
    ['vct', 'mandate.payment.open.1'],
    ['exp', 4_102_444_800],
    ['iss', 'https://attacker.example'],
    ['status', 'active'],
    ['uses', -5],
  ])('a body member %s the request does not define → 400 naming it, nothing issued', async (member, value) => {
    const before = (await mandatesOf(me.agentId)).length;
    const res = await acct.test.post('/v1/mandates', { ...mandateBody(me.agentId), [member]: value });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: member });
    expect(await mandatesOf(me.agentId)).toHaveLength(before);
  });

  test("an admin cannot bind a mandate to a key that is not the agent's: another agent's P-256 key → 400", async () => {
    const res = await acct.test.post('/v1/mandates', mandateBody(me.agentId, { agent_key_id: other.agentKeyId }));
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('agent_key_id');
  });
});
