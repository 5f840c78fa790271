/**
 * The spend lifecycle after approval (docs/api.md, "Capture and void"): capture (all or part),
 * void, expiry of an approval not captured in time, and single-use tokens. What is not captured
 * leaves the agent's budget in the same transaction, in the period the approval counted in.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { resolveHeldDecision } from '../../src/approvals/resolution.service.js';
import { expireUncapturedApprovals } from '../../src/capture/capture.service.js';
import { createTestContext, policyBody, type Client, type TestAccount, type TestContext } from '../support/context.js';

let clock: Date | undefined;
const now = () => clock ?? new Date();
let ctx: TestContext;
let acct: TestAccount;

beforeAll(async () => {
  // Its own database: the sweep is system-wide, and other files' overdue approvals would share its batches.
  ctx = await createTestContext({ now, testModeRateLimit: 100_000, ownDatabase: true });
  acct = await ctx.account('growth');
});
afterAll(() => ctx?.close());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function newAgent(policy: Record<string, unknown> = {}, client: Client = acct.test): Promise<string> {
  const p = await client.post('/v1/policies', policyBody({ budget_monthly: 10_000, budget_single_max: 10_000, ...policy }));
  expect(p.status, p.text).toBe(201);
  return (await client.post('/v1/agents', { name: 'buyer', policy_id: p.body.id })).body.id;
}

const authorize = (agentId: string, amount: number, client: Client = acct.test) =>
  client.post('/v1/authorize', { agent_id: agentId, amount, currency: 'USD', vendor: 'shop.example' });

async function approved(agentId: string, amount: number, client: Client = acct.test) {
  const res = await authorize(agentId, amount, client);
  expect(res.body.decision, res.text).toBe('approved');
  return res.body as { decision_id: string; authorization_token: string; timestamp: string; capture: Record<string, unknown> };
}

/** The agent's counters by period, as stored. */
const spend = async (agentId: string) =>
  Object.fromEntries(
    (await ctx.database.db.selectFrom('agent_spend').select(['period', 'approved', 'reserved']).where('agent_id', '=', agentId).execute()).map((r) => [
      r.period,
      { approved: Number(r.approved), reserved: Number(r.reserved) },
    ]),
  );
const monthSpend = async (agentId: string) => Object.entries(await spend(agentId)).find(([p]) => p.startsWith('M:'))?.[1].approved ?? 0;

const auditOf = async (client: Client, decisionId: string) =>
  ((await client.get(`/v1/audit-logs?limit=100`)).body.data as any[]).filter((r) => r.decision_id === decisionId).map((r) => r.type).sort();
const eventsOf = async (client: Client, decisionId: string) =>
  ((await client.get('/v1/events?limit=100')).body.data as any[]).filter((e) => e.data.decision_id === decisionId);
const verify = (token: string, consume?: boolean, client: Client = acct.test) => client.post('/v1/authorization-tokens/verify', consume === undefined ? { token } : { token, consume });

describe('the capture object on decisions', () => {
  test('an approval starts uncaptured, with a deadline of approval time + capture_window_seconds (default 7 days)', async () => {
    const agentId = await newAgent();
    const d = await approved(agentId, 500);
    expect(d.capture).toEqual({ status: 'uncaptured', captured_amount: null, captured_at: null, capture_before: expect.stringMatching(ISO), metadata: null, signature: null });
    expect(Date.parse(d.capture.capture_before as string) - Date.parse(d.timestamp)).toBe(604_800_000);
    expect((await acct.test.get(`/v1/decisions/${d.decision_id}`)).body).toEqual(d);

    const short = await newAgent({ capture_window_seconds: 60 });
    const s = await approved(short, 500);
    expect(Date.parse(s.capture.capture_before as string) - Date.parse(s.timestamp)).toBe(60_000);
  });

  test('denied and pending decisions have capture null; a hold approved later gets it from its approval time', async () => {
    const agentId = await newAgent({ require_approval_above: 1_000, capture_window_seconds: 3_600 });
    const denied = await authorize(agentId, 20_000);
    expect(denied.body).toMatchObject({ decision: 'denied', capture: null });
    const held = await authorize(agentId, 2_000);
    expect(held.body).toMatchObject({ decision: 'held', status: 'pending', capture: null });

    const resolved = await resolveHeldDecision(
      { db: ctx.database.db, signer: ctx.signer },
      { decisionId: held.body.decision_id, outcome: 'approved', resolvedBy: 'key_r', actor: { type: 'reviewer', id: 'key_r' } },
    );
    expect(resolved.decision.capture).toMatchObject({ status: 'uncaptured', captured_amount: null });
    const after = (await acct.test.get(`/v1/decisions/${held.body.decision_id}`)).body;
    expect(Date.parse(after.capture.capture_before) - Date.parse(after.resolved_at)).toBe(3_600_000);

    // It captures like any approval.
    const captured = await acct.test.post(`/v1/decisions/${held.body.decision_id}/capture`, { amount: 1_500 });
    expect(captured.status, captured.text).toBe(200);
    expect(captured.body.capture).toMatchObject({ status: 'captured', captured_amount: 1_500 });
    expect(await monthSpend(agentId)).toBe(1_500);
  });
});

describe('POST /v1/decisions/:id/capture', () => {
  test('all of it by default: the spend stays, the token is used up, with event and audit record', async () => {
    const agentId = await newAgent();
    const d = await approved(agentId, 700);
    const res = await acct.test.post(`/v1/decisions/${d.decision_id}/capture`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ decision_id: d.decision_id, decision: 'approved', status: 'approved', authorization_token: d.authorization_token });
    expect(res.body.capture).toEqual({ status: 'captured', captured_amount: 700, captured_at: expect.stringMatching(ISO), capture_before: d.capture.capture_before, metadata: {}, signature: null });
    expect(await monthSpend(agentId)).toBe(700);
    expect((await verify(d.authorization_token)).body).toEqual({ valid: false, claims: null, error: 'consumed' });
    expect(await auditOf(acct.test, d.decision_id)).toEqual(['authorization.captured', 'authorization.decision']);
    const [event] = (await eventsOf(acct.test, d.decision_id)).filter((e) => e.event === 'authorization.captured');
    expect(event.data).toMatchObject({ decision_id: d.decision_id, capture: { status: 'captured', captured_amount: 700 } });
    expect(event.data).not.toHaveProperty('authorization_token');
  });

  test('part of it: the difference is released at once, so the budget serves the next request', async () => {
    const agentId = await newAgent({ budget_monthly: 1_000 });
    const d = await approved(agentId, 1_000);
    expect((await authorize(agentId, 300)).body.reason_code).toBe('budget_exceeded');
    const res = await acct.test.post(`/v1/decisions/${d.decision_id}/capture`, { amount: 600 });
    expect(res.body.capture).toMatchObject({ status: 'captured', captured_amount: 600 });
    expect(await monthSpend(agentId)).toBe(600);
    const record = ((await acct.test.get(`/v1/audit-logs?type=authorization.captured&agent_id=${agentId}`)).body.data as any[])[0];
    expect(record).toMatchObject({ decision_id: d.decision_id, amount: 600, actor: { type: 'api_key' }, metadata: { approved_amount: 1_000, captured_amount: 600, released_amount: 400 } });
    expect((await authorize(agentId, 300)).body.decision).toBe('approved');
    expect((await authorize(agentId, 200)).body.reason_code).toBe('budget_exceeded');
  });

  test('more than approved → 400 amount, and nothing changes', async () => {
    const agentId = await newAgent();
    const d = await approved(agentId, 500);
    const before = await spend(agentId);
    const res = await acct.test.post(`/v1/decisions/${d.decision_id}/capture`, { amount: 501 });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'amount' });
    expect(await spend(agentId)).toEqual(before);
    expect((await acct.test.get(`/v1/decisions/${d.decision_id}`)).body.capture.status).toBe('uncaptured');
    expect(await auditOf(acct.test, d.decision_id)).toEqual(['authorization.decision']);
    expect((await verify(d.authorization_token)).body.valid).toBe(true);
  });

  test.each([
    ['zero', { amount: 0 }, 'amount'],
    ['negative', { amount: -5 }, 'amount'],
    ['a fraction', { amount: 1.5 }, 'amount'],
    ['a string', { amount: '100' }, 'amount'],
    ['an unknown field', { currency: 'USD' }, 'currency'],
  ])('%s → 400 naming %s', async (_name, body, param) => {
    const agentId = await newAgent();
    const d = await approved(agentId, 500);
    const res = await acct.test.post(`/v1/decisions/${d.decision_id}/capture`, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
  });

  test('once only: a second capture, a capture of a voided one and a void of a captured one → 409 conflict', async () => {
    const agentId = await newAgent();
    const a = await approved(agentId, 500);
    expect((await acct.test.post(`/v1/decisions/${a.decision_id}/capture`, { amount: 100 })).status).toBe(200);
    const again = await acct.test.post(`/v1/decisions/${a.decision_id}/capture`, { amount: 100 });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
    expect((await acct.test.post(`/v1/decisions/${a.decision_id}/void`)).status).toBe(409);

    const b = await approved(agentId, 500);
    expect((await acct.test.post(`/v1/decisions/${b.decision_id}/void`)).status).toBe(200);
    expect((await acct.test.post(`/v1/decisions/${b.decision_id}/capture`)).status).toBe(409);
    expect((await acct.test.post(`/v1/decisions/${b.decision_id}/void`)).status).toBe(409);
    expect(await monthSpend(agentId)).toBe(100);
  });

  test('a denied or pending decision cannot be captured or voided → 409 conflict', async () => {
    const agentId = await newAgent({ require_approval_above: 1_000 });
    const denied = (await authorize(agentId, 50_000)).body.decision_id;
    const held = (await authorize(agentId, 2_000)).body.decision_id;
    for (const id of [denied, held]) {
      for (const action of ['capture', 'void']) {
        const res = await acct.test.post(`/v1/decisions/${id}/${action}`);
        expect(res.status).toBe(409);
        expect(res.body.error.code).toBe('conflict');
      }
    }
    expect(await spend(agentId)).toMatchObject({ [`M:${new Date().toISOString().slice(0, 7)}`]: { approved: 0, reserved: 2_000 } });
  });

  test('an unknown decision → 404', async () => {
    expect((await acct.test.post('/v1/decisions/dec_nothing/capture')).status).toBe(404);
    expect((await acct.test.post('/v1/decisions/dec_nothing/void')).status).toBe(404);
  });

  test('Idempotency-Key: the same capture replays its first answer, another body with the key → 409', async () => {
    const agentId = await newAgent();
    const d = await approved(agentId, 900);
    const headers = { 'idempotency-key': `cap-${d.decision_id}` };
    const first = await acct.test.post(`/v1/decisions/${d.decision_id}/capture`, { amount: 400 }, headers);
    const replay = await acct.test.post(`/v1/decisions/${d.decision_id}/capture`, { amount: 400 }, headers);
    expect(first.status).toBe(200);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    const other = await acct.test.post(`/v1/decisions/${d.decision_id}/capture`, { amount: 300 }, headers);
    expect(other.status).toBe(409);
    expect(other.body.error.param).toBe('Idempotency-Key');
    expect(await auditOf(acct.test, d.decision_id)).toEqual(['authorization.captured', 'authorization.decision']);
    expect(await monthSpend(agentId)).toBe(400);

    const v = await approved(agentId, 100);
    const vHeaders = { 'idempotency-key': `void-${v.decision_id}` };
    const voided = await acct.test.post(`/v1/decisions/${v.decision_id}/void`, undefined, vHeaders);
    const voidReplay = await acct.test.post(`/v1/decisions/${v.decision_id}/void`, undefined, vHeaders);
    expect(voidReplay.headers.get('idempotent-replayed')).toBe('true');
    expect(voidReplay.text).toBe(voided.text);
  });
});

describe('POST /v1/decisions/:id/void', () => {
  test('releases the whole amount; the token then answers voided; event and audit record', async () => {
    const agentId = await newAgent({ budget_monthly: 1_000 });
    const d = await approved(agentId, 800);
    const res = await acct.test.post(`/v1/decisions/${d.decision_id}/void`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.capture).toEqual({ status: 'voided', captured_amount: null, captured_at: null, capture_before: d.capture.capture_before, metadata: null, signature: null });
    expect(await monthSpend(agentId)).toBe(0);
    expect((await verify(d.authorization_token)).body).toEqual({ valid: false, claims: null, error: 'voided' });
    expect((await verify(d.authorization_token, true)).body.error).toBe('voided');
    expect(await auditOf(acct.test, d.decision_id)).toEqual(['authorization.decision', 'authorization.voided']);
    expect((await eventsOf(acct.test, d.decision_id)).map((e) => e.event).sort()).toEqual(['authorization.voided', 'authorize.approved']);
    expect((await authorize(agentId, 1_000)).body.decision).toBe('approved');
  });

  test('a body with fields → 400', async () => {
    const agentId = await newAgent();
    const d = await approved(agentId, 100);
    const res = await acct.test.post(`/v1/decisions/${d.decision_id}/void`, { amount: 1 });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('amount');
  });
});

describe('a capture or void later than the approval: released from the approval own period', () => {
  test('approved on 31 January, captured in part and voided in February: January gives back, February is untouched', async () => {
    clock = new Date('2026-01-31T23:50:00Z');
    try {
      const agentId = await newAgent({ budget_monthly: 1_000, budget_daily: 1_000 });
      const a = await approved(agentId, 600);
      const b = await approved(agentId, 300);
      clock = new Date('2026-02-01T00:10:00Z');
      expect((await acct.test.post(`/v1/decisions/${a.decision_id}/capture`, { amount: 200 })).status).toBe(200);
      expect((await acct.test.post(`/v1/decisions/${b.decision_id}/void`)).status).toBe(200);
      expect(await spend(agentId)).toEqual({ 'M:2026-01': { approved: 200, reserved: 0 }, 'D:2026-01-31': { approved: 200, reserved: 0 } });
    } finally {
      clock = undefined;
    }
  });
});

describe('expiry of approvals not captured in time', () => {
  test('the sweep expires them (amount released, token expired, event and audit by the system); a second run changes nothing', async () => {
    const agentId = await newAgent({ capture_window_seconds: 60, budget_monthly: 1_000 });
    const d = await approved(agentId, 900);
    const kept = await approved(agentId, 100);
    await acct.test.post(`/v1/decisions/${kept.decision_id}/capture`);
    const later = new Date(Date.now() + 61_000);
    const first = await expireUncapturedApprovals({ db: ctx.database.db, now: () => later });
    expect(first.expired).toContain(d.decision_id);
    expect(first.expired).not.toContain(kept.decision_id);
    expect((await acct.test.get(`/v1/decisions/${d.decision_id}`)).body.capture).toMatchObject({ status: 'expired', captured_amount: null });
    expect(await monthSpend(agentId)).toBe(100);
    expect((await verify(d.authorization_token)).body.error).toBe('expired');
    const record = ((await acct.test.get(`/v1/audit-logs?type=authorization.expired&agent_id=${agentId}`)).body.data as any[])[0];
    expect(record).toMatchObject({ decision_id: d.decision_id, actor: { type: 'system', id: null }, amount: 900, metadata: { released_amount: 900 } });
    expect((await eventsOf(acct.test, d.decision_id)).map((e) => e.event)).toContain('authorization.expired');

    const second = await expireUncapturedApprovals({ db: ctx.database.db, now: () => later });
    expect(second.expired).not.toContain(d.decision_id);
    expect(await monthSpend(agentId)).toBe(100);
    // Expired for good.
    expect((await acct.test.post(`/v1/decisions/${d.decision_id}/capture`)).status).toBe(409);
    expect((await acct.test.post(`/v1/decisions/${d.decision_id}/void`)).status).toBe(409);
  });

  test('a capture arriving after the deadline, before the sweep: 409, and the expiry is recorded then', async () => {
    const agentId = await newAgent({ capture_window_seconds: 60 });
    const d = await approved(agentId, 400);
    clock = new Date(Date.now() + 60_001);
    try {
      expect((await verify(d.authorization_token)).body.error).toBe('expired');
      const res = await acct.test.post(`/v1/decisions/${d.decision_id}/capture`);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('conflict');
    } finally {
      clock = undefined;
    }
    expect((await acct.test.get(`/v1/decisions/${d.decision_id}`)).body.capture.status).toBe('expired');
    expect(await monthSpend(agentId)).toBe(0);
    expect(await auditOf(acct.test, d.decision_id)).toEqual(['authorization.decision', 'authorization.expired']);
  });
});

describe('single-use tokens', () => {
  test('consume: valid once, then consumed for every verify; a capture still works after it', async () => {
    const agentId = await newAgent();
    const d = await approved(agentId, 300);
    expect((await verify(d.authorization_token)).body.valid).toBe(true);
    const first = await verify(d.authorization_token, true);
    expect(first.body).toMatchObject({ valid: true, error: null, claims: { jti: d.decision_id, amount: 300 } });
    expect((await verify(d.authorization_token, true)).body).toEqual({ valid: false, claims: null, error: 'consumed' });
    expect((await verify(d.authorization_token)).body).toEqual({ valid: false, claims: null, error: 'consumed' });
    expect(await auditOf(acct.test, d.decision_id)).toEqual(['authorization.decision', 'authorization_token.consumed']);
    expect((await acct.test.post(`/v1/decisions/${d.decision_id}/capture`)).status).toBe(200);
    expect((await verify(d.authorization_token)).body.error).toBe('consumed');
  });

  test('consume: false verifies without using it up', async () => {
    const agentId = await newAgent();
    const d = await approved(agentId, 300);
    expect((await verify(d.authorization_token, false)).body.valid).toBe(true);
    expect((await verify(d.authorization_token, true)).body.valid).toBe(true);
  });

  test('a consume retried with its Idempotency-Key replays its first answer (valid) to that key; a new request is told consumed', async () => {
    const agentId = await newAgent();
    const d = await approved(agentId, 300);
    const headers = { 'idempotency-key': `consume-${d.decision_id}` };
    const first = await acct.test.post('/v1/authorization-tokens/verify', { token: d.authorization_token, consume: true }, headers);
    const retry = await acct.test.post('/v1/authorization-tokens/verify', { token: d.authorization_token, consume: true }, headers);
    expect(first.body.valid).toBe(true);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.text).toBe(first.text);
    expect((await verify(d.authorization_token, true)).body.error).toBe('consumed');
    expect(await auditOf(acct.test, d.decision_id)).toEqual(['authorization.decision', 'authorization_token.consumed']);
  });

  test('consume must be a boolean', async () => {
    const res = await acct.test.post('/v1/authorization-tokens/verify', { token: 'gca_x', consume: 'yes' });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('consume');
  });

  test('concurrent consumes of one token: exactly one is told valid', async () => {
    const agentId = await newAgent();
    for (let round = 0; round < 3; round++) {
      const d = await approved(agentId, 10);
      const answers = await Promise.all(Array.from({ length: 12 }, () => verify(d.authorization_token, true)));
      expect(answers.every((a) => a.status === 200)).toBe(true);
      expect(answers.filter((a) => a.body.valid).length).toBe(1);
      expect(answers.filter((a) => a.body.error === 'consumed').length).toBe(11);
    }
  });
});

describe('consistency with the rest of the service', () => {
  test('capture_window_seconds is validated in a simulated draft too, and PATCH changes it for later approvals', async () => {
    const res = await acct.test.post('/v1/policies/simulate', {
      policy: policyBody({ capture_window_seconds: 59 }),
      requests: [{ agent_id: 'agt_x', amount: 1, currency: 'USD', vendor: 'shop.example' }],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('policy.capture_window_seconds');

    const p = await acct.test.post('/v1/policies', policyBody());
    const agentId = (await acct.test.post('/v1/agents', { name: 'patched', policy_id: p.body.id })).body.id;
    const patched = await acct.test.patch(`/v1/policies/${p.body.id}`, { capture_window_seconds: 120 });
    expect(patched.body.capture_window_seconds).toBe(120);
    expect((await acct.test.patch(`/v1/policies/${p.body.id}`, { capture_window_seconds: 2_592_001 })).body.error.param).toBe('capture_window_seconds');
    const d = await approved(agentId, 10);
    expect(Date.parse(d.capture.capture_before as string) - Date.parse(d.timestamp)).toBe(120_000);
  });

  test('the three new event types are webhook event types: an endpoint subscribes to them and gets their deliveries', async () => {
    const a = await ctx.account('growth');
    const res = await a.test.post('/v1/webhook-endpoints', { url: 'https://93.184.216.34/hook', events: ['authorization.captured', 'authorization.voided', 'authorization.expired'] });
    expect(res.status, res.text).toBe(201);
    const agentId = await newAgent({}, a.test);
    const d = await approved(agentId, 100, a.test);
    await a.test.post(`/v1/decisions/${d.decision_id}/capture`);
    const events = (await a.test.get('/v1/events?type=authorization.captured')).body.data as any[];
    expect(events).toHaveLength(1);
    const redelivered = await a.test.post(`/v1/events/${events[0].id}/redeliver`);
    expect(redelivered.status, redelivered.text).toBe(200);
    expect(redelivered.body.data.map((x: any) => x.endpoint_id)).toEqual([res.body.id]);
  });

  test('the audit chain still verifies after captures, voids, expiries and consumes', async () => {
    const a = await ctx.account('growth');
    const agentId = await newAgent({ capture_window_seconds: 60 }, a.test);
    const one = await approved(agentId, 100, a.test);
    const two = await approved(agentId, 100, a.test);
    await approved(agentId, 100, a.test);
    await verify(one.authorization_token, true, a.test);
    await a.test.post(`/v1/decisions/${one.decision_id}/capture`, { amount: 50 });
    await a.test.post(`/v1/decisions/${two.decision_id}/void`);
    await expireUncapturedApprovals({ db: ctx.database.db, now: () => new Date(Date.now() + 120_000) });
    const types = ((await a.test.get('/v1/audit-logs?limit=100')).body.data as any[]).map((r) => r.type);
    expect(types).toEqual(expect.arrayContaining(['authorization.captured', 'authorization.voided', 'authorization.expired', 'authorization_token.consumed']));
    const verified = await a.test.get('/v1/audit-logs/verify');
    expect(verified.body).toMatchObject({ valid: true });
    expect(verified.body.records).toBeGreaterThanOrEqual(types.length);
  });

  test('quick-start remaining_balance follows captures and voids; /v1/usage counts only authorizations', async () => {
    const a = await ctx.account('growth');
    const live = a.live!;
    const agentId = (await live.post('/agents', { name: 'shopper', agent_type: 'procurement' })).body.id;
    const vault = (await live.post('/vaults', { name: 'Groceries', agent_id: agentId, daily_limit: 100, max_single_transaction: 60 })).body;
    const pay = (amount: number) => live.post('/authorize', { token: vault.token, amount, merchant_name: 'instacart.com', merchant_category: 'Groceries' });
    const first = await pay(60);
    expect(first.body).toMatchObject({ authorized: true, remaining_balance: 40 });
    const checks = (await live.get('/v1/usage')).body.checks;

    expect((await live.post(`/v1/decisions/${first.body.transaction_id}/capture`, { amount: 2_500 })).status).toBe(200);
    const second = await pay(10);
    expect(second.body).toMatchObject({ authorized: true, remaining_balance: 65 });
    expect((await live.post(`/v1/decisions/${second.body.transaction_id}/void`)).status).toBe(200);
    const third = await pay(5);
    expect(third.body).toMatchObject({ authorized: true, remaining_balance: 70 });
    // Captures and voids are not checks: only the two further authorizations were counted.
    expect((await live.get('/v1/usage')).body.checks).toBe(checks + 2);
  });
});
