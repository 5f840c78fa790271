/**
 * Stripe Issuing real-time authorizations (docs/rails/stripe-issuing.md): each rule of the
 * request's decision, with Stripe's own fixtures signed by the official package and posted to the
 * running service over HTTP; answers read as Stripe reads them.
 */
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { resolveHeldDecision } from '../../src/approvals/resolution.service.js';
import { createTestContext, policyBody, type Client, type TestAccount, type TestContext } from '../support/context.js';
import { accountWithRail, asStripeReadsIt, connectStripeIssuing, postToRail, requestEvent, signature, stripeEvent, type Swipe } from '../support/stripe-issuing.js';

let ctx: TestContext;
let acct: TestAccount;
let rail: { id: string; secret: string };

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  ({ acct, rail } = await accountWithRail(ctx));
});
afterAll(() => ctx?.close());

async function newAgent(policy: Record<string, unknown> = {}, client: Client = acct.test): Promise<string> {
  const p = await client.post('/v1/policies', policyBody({ budget_monthly: 10_000, budget_single_max: 10_000, ...policy }));
  expect(p.status, p.text).toBe(201);
  const a = await client.post('/v1/agents', { name: 'card buyer', policy_id: p.body.id });
  expect(a.status, a.text).toBe(201);
  return a.body.id;
}

const swipe = (s: Swipe, opts: { id?: string } = {}) => {
  const event = requestEvent(s, opts);
  return { event, send: () => postToRail(ctx, rail.id, event, { secret: rail.secret }) };
};

/** Swipes and reads the answer as Stripe does; also checks the answer's Stripe-Version. */
async function answerTo(s: Swipe) {
  const { event, send } = swipe(s);
  const res = await send();
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get('stripe-version')).toBe(Stripe.API_VERSION);
  return { event, authorizationId: event.data.object.id as string, ...asStripeReadsIt(res) };
}

const decision = async (id: string) => (await acct.test.get(`/v1/decisions/${id}`)).body;
const decisionsOf = async (agentId: string) => (await ctx.database.db.selectFrom('decisions').select(['id']).where('agent_id', '=', agentId).execute()).map((r) => r.id);
const monthSpend = async (agentId: string) =>
  Number((await ctx.database.db.selectFrom('agent_spend').select('approved').where('agent_id', '=', agentId).where('period', 'like', 'M:%').executeTakeFirst())?.approved ?? 0);

describe('issuing_authorization.request: decided as POST /v1/authorize decides', () => {
  test('within policy: approved, the new decision captured at once for the amount, naming the rail', async () => {
    const agentId = await newAgent();
    const a = await answerTo({ agentId, amount: 700, merchantName: 'Rocket Rides', category: 'taxicabs_limousines' });
    expect(a.approved).toBe(true);
    expect(a.metadata).toEqual({ decision_id: expect.stringMatching(/^dec_/) });
    const d = await decision(a.metadata.decision_id!);
    expect(d).toMatchObject({
      decision: 'approved',
      agent_id: agentId,
      amount: 700,
      currency: 'USD',
      vendor: 'Rocket Rides',
      category: 'taxicabs_limousines',
      metadata: { stripe_card: expect.stringMatching(/^ic_/), stripe_merchant_name: 'Rocket Rides' },
      capture: { status: 'captured', captured_amount: 700 },
      rail: { type: 'stripe_issuing', connection_id: rail.id, authorization_id: a.authorizationId },
    });
    expect(await monthSpend(agentId)).toBe(700);
    // Audited and evented like every decision, naming the rail.
    const records = ((await acct.test.get(`/v1/audit-logs?agent_id=${agentId}`)).body.data as any[]).filter((r) => r.decision_id === d.decision_id);
    expect(records.map((r) => r.type).sort()).toEqual(['authorization.captured', 'authorization.decision']);
    const decided = records.find((r) => r.type === 'authorization.decision');
    expect(decided.actor).toEqual({ type: 'system', id: rail.id });
    expect(decided.metadata.rail).toEqual({ type: 'stripe_issuing', connection_id: rail.id, authorization_id: a.authorizationId });
    const events = ((await acct.test.get('/v1/events?limit=100')).body.data as any[]).filter((e) => e.data.decision_id === d.decision_id);
    expect(events.map((e) => e.event).sort()).toEqual(['authorization.captured', 'authorize.approved']);
    for (const e of events) expect(e.data.rail).toEqual(d.rail);
  });

  test('the vendor is the host of the merchant URL when there is one; the agent may be on the cardholder', async () => {
    const agentId = await newAgent();
    const a = await answerTo({ agentId, onCardholder: true, amount: 300, merchantName: 'OPENAI *CHATGPT', merchantUrl: 'https://www.OpenAI.com/checkout?x=1' });
    expect(a.approved).toBe(true);
    expect((await decision(a.metadata.decision_id!)).vendor).toBe('www.openai.com');
  });

  test('over budget: declined with the reason code, the decision kept, nothing captured', async () => {
    const agentId = await newAgent({ budget_monthly: 1_000 });
    const a = await answerTo({ agentId, amount: 1_500 });
    expect(a).toMatchObject({ approved: false, metadata: { decision_id: expect.stringMatching(/^dec_/), reason_code: 'budget_exceeded' } });
    expect(await decision(a.metadata.decision_id!)).toMatchObject({ decision: 'denied', reason_code: 'budget_exceeded', capture: null, rail: { authorization_id: a.authorizationId } });
    expect(await monthSpend(agentId)).toBe(0);
  });

  test('a denylisted merchant (by URL host or by name) is declined, policy_denied', async () => {
    const agentId = await newAgent({ vendor_denylist: ['casino.example', 'Lucky Slots'] });
    const byHost = await answerTo({ agentId, amount: 100, merchantName: 'Fun Co', merchantUrl: 'pay.casino.example' });
    expect(byHost).toMatchObject({ approved: false, metadata: { reason_code: 'policy_denied' } });
    const byName = await answerTo({ agentId, amount: 100, merchantName: 'lucky  slots', merchantUrl: null });
    expect(byName).toMatchObject({ approved: false, metadata: { reason_code: 'policy_denied' } });
  });

  test('held: declined with the hold kept pending; once a reviewer approves, the retry matches it', async () => {
    const agentId = await newAgent({ require_approval_above: 1_000 });
    const first = await answerTo({ agentId, amount: 2_500, merchantName: 'Big Hardware' });
    expect(first).toMatchObject({ approved: false, metadata: { reason_code: 'approval_required' } });
    const held = await decision(first.metadata.decision_id!);
    expect(held).toMatchObject({ decision: 'held', status: 'pending', rail: { authorization_id: first.authorizationId } });

    await resolveHeldDecision({ db: ctx.database.db, signer: ctx.signer }, { decisionId: held.decision_id, outcome: 'approved', resolvedBy: 'key_r', actor: { type: 'reviewer', id: 'key_r' } });
    const retry = await answerTo({ agentId, amount: 2_500, merchantName: 'Big Hardware' });
    expect(retry).toEqual(expect.objectContaining({ approved: true, metadata: { decision_id: held.decision_id } }));
    expect((await decision(held.decision_id)).capture).toMatchObject({ status: 'captured', captured_amount: 2_500 });
    expect(await decisionsOf(agentId)).toEqual([held.decision_id]);
  });

  test('an unknown agent, none named, another account\'s agent, a frozen or a deactivated one: declined, no decision', async () => {
    const other = await ctx.account('growth');
    const foreign = await newAgent({}, other.test);
    const frozen = await newAgent();
    expect((await acct.test.post(`/v1/agents/${frozen}/freeze`)).status).toBe(200);
    const gone = await newAgent();
    expect((await acct.test.delete(`/v1/agents/${gone}`)).status).toBe(200);
    const cases: [string | null, string][] = [
      ['agt_doesnotexist0000000000', 'unknown_agent'],
      [null, 'unknown_agent'],
      [foreign, 'unknown_agent'],
      [frozen, 'agent_frozen'],
      [gone, 'agent_deactivated'],
    ];
    for (const [agentId, reason] of cases) {
      const a = await answerTo({ agentId, amount: 100 });
      expect(a, String(agentId)).toEqual(expect.objectContaining({ approved: false, metadata: { reason_code: reason } }));
    }
    expect(await decisionsOf(foreign)).toEqual([]);
    expect(await decisionsOf(frozen)).toEqual([]);
  });
});

describe('rule 1: an approval the agent asked for first is matched and captured', () => {
  test('covering approval: captured for the swipe, the rest released; no new decision', async () => {
    const agentId = await newAgent({ budget_monthly: 5_000 });
    const asked = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 4_000, currency: 'USD', vendor: 'shop.example' });
    expect(asked.body.decision).toBe('approved');
    // The same vendor in normal form (`www.` and the path go); a subdomain would not be (test/security/stripe-preapproval-policy.test.ts).
    const a = await answerTo({ agentId, amount: 3_200, merchantName: 'Shop', merchantUrl: 'https://WWW.shop.example/pay' });
    expect(a).toEqual(expect.objectContaining({ approved: true, metadata: { decision_id: asked.body.decision_id } }));
    expect(await decision(asked.body.decision_id)).toMatchObject({ capture: { status: 'captured', captured_amount: 3_200 }, rail: null });
    expect(await monthSpend(agentId)).toBe(3_200);
    expect(await decisionsOf(agentId)).toEqual([asked.body.decision_id]);
    const token = await acct.test.post('/v1/authorization-tokens/verify', { token: asked.body.authorization_token });
    expect(token.body).toMatchObject({ valid: false, error: 'consumed' });
  });

  test('the smallest covering one, the oldest of equals; another currency, a smaller one or another vendor never match', async () => {
    const agentId = await newAgent({ budget_monthly: 100_000, budget_single_max: 50_000 });
    const ask = async (amount: number, vendor = 'shop.example', currency = 'USD') =>
      (await acct.test.post('/v1/authorize', { agent_id: agentId, amount, currency, vendor })).body.decision_id as string;
    const big = await ask(9_000);
    const oldSmall = await ask(3_000);
    const newSmall = await ask(3_000);
    const tooSmall = await ask(1_000);
    const otherVendor = await ask(2_500, 'elsewhere.example');
    expect([big, oldSmall, newSmall, tooSmall, otherVendor].every(Boolean)).toBe(true);
    const first = await answerTo({ agentId, amount: 2_000, merchantUrl: 'shop.example' });
    expect(first.metadata.decision_id).toBe(oldSmall);
    const second = await answerTo({ agentId, amount: 2_000, merchantUrl: 'shop.example' });
    expect(second.metadata.decision_id).toBe(newSmall);
    const third = await answerTo({ agentId, amount: 2_000, merchantUrl: 'shop.example' });
    expect(third.metadata.decision_id).toBe(big);
    // Nothing covers a fourth: it is a new decision of its own.
    const fourth = await answerTo({ agentId, amount: 2_000, merchantUrl: 'shop.example' });
    expect([big, oldSmall, newSmall, tooSmall, otherVendor]).not.toContain(fourth.metadata.decision_id);
    expect((await decision(tooSmall)).capture.status).toBe('uncaptured');
    expect((await decision(otherVendor)).capture.status).toBe('uncaptured');
  });

  test('two swipes at once against one approval: exactly one takes it', async () => {
    // Nothing else would be approved: a new decision is held (declined), so each answer says which way it went.
    const agentId = await newAgent({ budget_monthly: 50_000, require_approval_above: 100 });
    const asked = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 90, currency: 'USD', vendor: 'shop.example' });
    expect(asked.body.decision).toBe('approved');
    expect((await acct.test.patch(`/v1/policies/${asked.body.policy_applied}`, { require_approval_above: 10 })).status).toBe(200);
    const racers = Array.from({ length: 6 }, () => swipe({ agentId, amount: 80, merchantUrl: 'shop.example' }));
    const answers = (await Promise.all(racers.map((r) => r.send()))).map(asStripeReadsIt);
    const matched = answers.filter((a) => a.metadata.decision_id === asked.body.decision_id);
    expect(matched).toHaveLength(1);
    expect(matched[0]!.approved).toBe(true);
    expect(answers.filter((a) => a.approved)).toHaveLength(1);
    expect((await decision(asked.body.decision_id)).capture).toMatchObject({ status: 'captured', captured_amount: 80 });
    expect(await monthSpend(agentId)).toBe(80);
  });
});

describe('repeats, other events, the answer', () => {
  test('the same event: the first answer, nothing new recorded; the same authorization under a new event id: a request for the increase', async () => {
    const agentId = await newAgent();
    const { event, send } = swipe({ agentId, amount: 500 });
    const first = asStripeReadsIt(await send());
    const again = asStripeReadsIt(await send());
    expect(again).toEqual(first);
    expect(await decisionsOf(agentId)).toEqual([first.metadata.decision_id]);
    expect(await monthSpend(agentId)).toBe(500);
    // Stripe's incremental authorization: the same authorization, a new event, the increase in pending_request.
    const increase = { ...event, id: `${event.id}_increase`, data: { object: { ...event.data.object, amount: 500, pending_request: { ...event.data.object.pending_request, amount: 300 } } } };
    const more = asStripeReadsIt(await postToRail(ctx, rail.id, increase, { secret: rail.secret }));
    expect(more.approved).toBe(true);
    expect(more.metadata.decision_id).not.toBe(first.metadata.decision_id);
    expect(await decision(more.metadata.decision_id!)).toMatchObject({ amount: 300, increment_of: first.metadata.decision_id, rail: { authorization_id: event.data.object.id } });
    expect(await monthSpend(agentId)).toBe(800);
    const metrics = (await ctx.raw('/metrics')).text;
    expect(metrics).toMatch(/rail_answers_total\{rail="stripe_issuing",outcome="replayed"\} [1-9]/);
    expect(metrics).toMatch(/rail_answers_total\{rail="stripe_issuing",outcome="approved"\} [1-9]/);
  });

  test('another event type: {"received": true}, with the connection\'s Stripe-Version', async () => {
    const custom = await connectStripeIssuing(acct.test, { stripe_version: '2025-03-31.basil' });
    const res = await postToRail(ctx, custom.id, stripeEvent('issuing_card.created', { id: 'ic_123', object: 'issuing.card', livemode: false }), { secret: custom.secret });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true });
    expect(res.headers.get('stripe-version')).toBe('2025-03-31.basil');
  });

  test('a request Stripe sends with an amount, vendor or text no decision can take is declined, invalid_request', async () => {
    const agentId = await newAgent();
    for (const s of [
      { agentId, amount: 0 },
      { agentId, amount: 100, merchantName: ' ', merchantUrl: null },
      { agentId, amount: 100, merchantName: 'Null\u0000Shop', merchantUrl: null },
      { agentId, amount: 100, category: 'taxi\u0000' },
      { agentId: `${agentId}\u0000`, amount: 100 },
    ]) {
      const a = await answerTo(s);
      expect(a, JSON.stringify(s)).toEqual(expect.objectContaining({ approved: false, metadata: { reason_code: 'invalid_request' } }));
    }
    expect(await decisionsOf(agentId)).toEqual([]);
  });
});

describe('live mode', () => {
  test('a live connection answers live events; a decision counts as a billable check, a matched approval does not add one', async () => {
    const live = acct.live!;
    const conn = await connectStripeIssuing(live);
    const agentId = await newAgent({}, live);
    const usage = async () => (await live.get('/v1/usage')).body.checks as number;
    const before = await usage();
    const event = requestEvent({ agentId, amount: 400, livemode: true });
    const a = asStripeReadsIt(await postToRail(ctx, conn.id, event, { secret: conn.secret }));
    expect(a.approved).toBe(true);
    expect(await usage()).toBe(before + 1);
    const asked = await live.post('/v1/authorize', { agent_id: agentId, amount: 900, currency: 'USD', vendor: 'shop.example' });
    const m = asStripeReadsIt(await postToRail(ctx, conn.id, requestEvent({ agentId, amount: 100, merchantUrl: 'shop.example', livemode: true }), { secret: conn.secret }));
    expect(m.metadata.decision_id).toBe(asked.body.decision_id);
    expect(await usage()).toBe(before + 2);
  });
});

describe('rule 1 across processes', () => {
  test('without the in-process queue, the agent row lock still lets exactly one transaction take an approval', async () => {
    const { lockAgentWithPolicy } = await import('../../src/authorization/authorization.repository.js');
    const { takeCoveringApproval } = await import('../../src/authorization/rail-request.js');
    const agentId = await newAgent();
    const asked = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 1_000, currency: 'USD', vendor: 'shop.example' });
    const take = () =>
      ctx.database.db.transaction().execute(async (trx) => {
        const locked = (await lockAgentWithPolicy(trx, acct.id, false, agentId))!;
        return takeCoveringApproval(trx, locked, { amount: 600, currency: 'USD', vendor: 'shop.example' }, { type: 'system', id: rail.id }, new Date());
      });
    const taken = await Promise.all([take(), take(), take()]);
    expect(taken.filter(Boolean).map((d) => d!.decision_id)).toEqual([asked.body.decision_id]);
    expect(await monthSpend(agentId)).toBe(600);
  });
});

describe('authentication: Stripe-Signature', () => {
  test('missing, malformed, of another secret, stale or from the future → 400 naming the header; nothing recorded', async () => {
    const agentId = await newAgent();
    const payload = JSON.stringify(requestEvent({ agentId, amount: 100 }));
    const headers: [string, string | null][] = [
      ['missing', null],
      ['malformed', 'not a signature'],
      ['no v1', `t=${Math.floor(Date.now() / 1000)}`],
      ['another secret', signature(payload, 'whsec_someoneelse0000000')],
      ['stale', signature(payload, rail.secret, Math.floor(Date.now() / 1000) - 600)],
      ['from the future', signature(payload, rail.secret, Math.floor(Date.now() / 1000) + 600)],
    ];
    for (const [name, header] of headers) {
      const res = await postToRail(ctx, rail.id, payload, { header });
      expect(res.status, name).toBe(400);
      expect(res.body.error, name).toMatchObject({ code: 'invalid_request', param: 'Stripe-Signature' });
      expect(res.text, name).not.toMatch(/whsec_|at .*\.ts/);
    }
    expect(await decisionsOf(agentId)).toEqual([]);
    expect(await ctx.database.db.selectFrom('rail_authorizations').select('authorization_id').where('authorization_id', '=', JSON.parse(payload).data.object.id).execute()).toEqual([]);
  });
});
