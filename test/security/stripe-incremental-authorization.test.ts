/**
 * Attack: growing a card authorization past the budget. A swipe of 40.00 is approved against a
 * 50.00 budget; Stripe then asks again for the same authorization under a new event id (an
 * incremental authorization of 1,000.00), and finally captures 1,040.00. The increase must be
 * decided like any swipe (declined here), not answered with the first approval replayed; and what
 * the card moved counts in full: the over-capture is applied, audited and evented, so the ledger
 * never shows less than the card spent. Events signed with the official `stripe` package, built
 * from Stripe's published fixtures (test/fixtures/stripe).
 */
import { describe, expect, test } from 'vitest';
import { cardBudgetKit } from '../support/card-budget.js';
import { asStripeReadsIt, authorizationAfter, incrementEvent, requestEvent, stripeEvent, transactionObject } from '../support/stripe-issuing.js';

const { kit, newAgent, post, decision, monthSpend, swipe40 } = cardBudgetKit();
const decisionsOf = async (agentId: string) => (await kit.ctx.database.db.selectFrom('decisions').select('id').where('agent_id', '=', agentId).orderBy('created_at').execute()).map((r) => r.id);
const answers = async () => (await kit.ctx.database.db.selectFrom('rail_authorizations').select('request_event_id').where('connection_id', '=', kit.rail.id).execute()).length;
const auditOf = async (agentId: string, type: string) => (await kit.acct.test.get(`/v1/audit-logs?type=${type}&agent_id=${agentId}&limit=100`)).body.data as any[];
const eventsOf = async (decisionId: string, type: string) =>
  ((await kit.acct.test.get(`/v1/events?type=${type}&limit=100`)).body.data as any[]).filter((e) => e.data.decision_id === decisionId);

describe('an incremental authorization is a new request for the increase', () => {
  test('1,000.00 more on a 50.00 budget: declined, a decision of its own naming the authorization and its first decision', async () => {
    const agentId = await newAgent();
    const first = await swipe40(agentId);
    const increase = incrementEvent(first.request, 100_000, 4_000);
    const answer = asStripeReadsIt(await post(increase));
    expect(answer).toEqual({ approved: false, metadata: { decision_id: expect.stringMatching(/^dec_/), reason_code: 'budget_exceeded' } });
    expect(answer.metadata.decision_id).not.toBe(first.decisionId);
    expect(await decision(answer.metadata.decision_id!)).toMatchObject({
      decision: 'denied',
      amount: 100_000,
      rail: { type: 'stripe_issuing', connection_id: kit.rail.id, authorization_id: first.authorizationId },
      increment_of: first.decisionId,
    });
    expect((await decision(first.decisionId)).increment_of).toBeNull();
    expect(await monthSpend(agentId)).toBe(4_000);
    // Its audit record says what it increased.
    const records = (await auditOf(agentId, 'authorization.decision')).filter((r) => r.decision_id === answer.metadata.decision_id);
    expect(records).toHaveLength(1);
    expect(records[0].metadata).toMatchObject({ increment_of: first.decisionId, rail: { authorization_id: first.authorizationId } });
  });

  test('the same increase event again: the same answer, nothing new recorded', async () => {
    const agentId = await newAgent();
    const first = await swipe40(agentId);
    const increase = incrementEvent(first.request, 100_000, 4_000);
    const once = asStripeReadsIt(await post(increase));
    const [decisions, recorded] = [await decisionsOf(agentId), await answers()];
    const twice = await Promise.all([post(increase), post(increase)]);
    for (const res of twice) expect(asStripeReadsIt(res)).toEqual(once);
    expect(await decisionsOf(agentId)).toEqual(decisions);
    expect(await answers()).toBe(recorded);
    // And the first event again still answers the first request.
    expect(asStripeReadsIt(await post(first.request))).toEqual({ approved: true, metadata: { decision_id: first.decisionId } });
  });

  test('an increase within the budget is approved and counted: its own decision, captured at once', async () => {
    const agentId = await newAgent();
    const first = await swipe40(agentId);
    const answer = asStripeReadsIt(await post(incrementEvent(first.request, 500, 4_000)));
    expect(answer.approved).toBe(true);
    expect(await decision(answer.metadata.decision_id!)).toMatchObject({ amount: 500, capture: { status: 'captured', captured_amount: 500 }, increment_of: first.decisionId });
    expect(await monthSpend(agentId)).toBe(4_500);
    // A second increase now goes over: declined.
    const more = asStripeReadsIt(await post(incrementEvent(first.request, 1_000, 4_500)));
    expect(more).toMatchObject({ approved: false, metadata: { reason_code: 'budget_exceeded' } });
    // Settled at what was approved: each decision counts its own part, nothing over.
    await post(stripeEvent('issuing_transaction.created', transactionObject(first.authorizationId, 'capture', 4_500)));
    expect((await decision(first.decisionId)).capture).toMatchObject({ captured_amount: 4_000 });
    expect((await decision(first.decisionId)).capture.over_capture_amount).toBeUndefined();
    expect((await decision(answer.metadata.decision_id!)).capture).toMatchObject({ captured_amount: 500 });
    expect(await monthSpend(agentId)).toBe(4_500);
  });
});

describe('increases at once', () => {
  test('three increases of one authorization at once: each decided against what the others left, the budget holds', async () => {
    const agentId = await newAgent();
    const first = await swipe40(agentId);
    const increases = [1, 2, 3].map((i) => incrementEvent(first.request, 600, 4_000, { id: `${first.request.id}_inc${i}` }));
    const answered = (await Promise.all(increases.map(post))).map(asStripeReadsIt);
    expect(answered.filter((a) => a.approved)).toHaveLength(1);
    expect(answered.filter((a) => !a.approved).map((a) => a.metadata.reason_code)).toEqual(['budget_exceeded', 'budget_exceeded']);
    expect(await monthSpend(agentId)).toBe(4_600);
    for (const a of answered) expect((await decision(a.metadata.decision_id!)).increment_of).toBe(first.decisionId);
  });

  test('two requests of a new authorization at once: one is its first, the other its increase', async () => {
    const agentId = await newAgent();
    const request = requestEvent({ agentId, amount: 1_000, merchantUrl: 'shop.example' });
    const other = { ...request, id: `${request.id}_other` };
    const [a, b] = (await Promise.all([post(request), post(other)])).map(asStripeReadsIt);
    expect(a!.approved && b!.approved).toBe(true);
    const [da, db] = [await decision(a!.metadata.decision_id!), await decision(b!.metadata.decision_id!)];
    expect(da.decision_id).not.toBe(db.decision_id);
    // Exactly one of them names the other as the decision it increased.
    expect([da.increment_of, db.increment_of].sort()).toEqual([null, da.increment_of ?? db.increment_of].sort());
    expect([da.increment_of, db.increment_of].filter(Boolean)).toEqual([da.increment_of ? db.decision_id : da.decision_id]);
    expect(await monthSpend(agentId)).toBe(2_000);
  });
});

describe('an over-capture is applied in full, evented and audited', () => {
  test('the finding: 40.00 approved, 1,000.00 more declined, 1,040.00 captured → the decision and the spend show 1,040.00', async () => {
    const agentId = await newAgent();
    const first = await swipe40(agentId);
    expect(asStripeReadsIt(await post(incrementEvent(first.request, 100_000, 4_000))).approved).toBe(false);
    await post(stripeEvent('issuing_transaction.created', transactionObject(first.authorizationId, 'capture', 104_000)));

    const d = await decision(first.decisionId);
    expect(d.capture).toMatchObject({ status: 'captured', captured_amount: 104_000, over_capture_amount: 100_000 });
    expect(await monthSpend(agentId)).toBe(104_000);
    const adjusted = (await auditOf(agentId, 'authorization.adjusted')).filter((r) => r.decision_id === first.decisionId);
    expect(adjusted).toHaveLength(1);
    expect(adjusted[0]).toMatchObject({
      actor: { type: 'system', id: kit.rail.id },
      amount: 104_000,
      metadata: { over_capture_amount: 100_000, previous_captured_amount: 4_000, captured_amount: 104_000, added_amount: 100_000, rail: { authorization_id: first.authorizationId } },
    });
    const events = await eventsOf(first.decisionId, 'authorization.adjusted');
    expect(events).toHaveLength(1);
    expect(events[0].data.capture).toMatchObject({ captured_amount: 104_000, over_capture_amount: 100_000 });
    // The budget is spent: the next swipe is declined.
    expect(asStripeReadsIt(await post(requestEvent({ agentId, amount: 100, merchantUrl: 'shop.example' })))).toMatchObject({ approved: false, metadata: { reason_code: 'budget_exceeded' } });
  });

  test('an authorization amount raised by issuing_authorization.updated counts too', async () => {
    const agentId = await newAgent();
    const first = await swipe40(agentId);
    await post(stripeEvent('issuing_authorization.updated', authorizationAfter(first.request, { status: 'pending', amount: 9_000 })));
    expect((await decision(first.decisionId)).capture).toMatchObject({ captured_amount: 9_000, over_capture_amount: 5_000 });
    expect(await monthSpend(agentId)).toBe(9_000);
    const adjusted = (await auditOf(agentId, 'authorization.adjusted')).filter((r) => r.decision_id === first.decisionId);
    expect(adjusted.map((r) => r.metadata.over_capture_amount)).toEqual([5_000]);
  });

  test('measured against what was approved for the card authorization: a 1,000 pre-approval matched by a 600 swipe and settled at 1,000 is 400 over', async () => {
    const agentId = await newAgent();
    const asked = await kit.acct.test.post('/v1/authorize', { agent_id: agentId, amount: 1_000, currency: 'USD', vendor: 'shop.example' });
    expect(asked.body.decision).toBe('approved');
    const request = requestEvent({ agentId, amount: 600, merchantUrl: 'shop.example' });
    expect(asStripeReadsIt(await post(request)).metadata.decision_id).toBe(asked.body.decision_id);
    expect(await monthSpend(agentId)).toBe(600);
    await post(stripeEvent('issuing_transaction.created', transactionObject(request.data.object.id, 'capture', 1_000)));
    expect((await decision(asked.body.decision_id)).capture).toMatchObject({ status: 'captured', captured_amount: 1_000, over_capture_amount: 400 });
    expect(await monthSpend(agentId)).toBe(1_000);
    const adjusted = (await auditOf(agentId, 'authorization.adjusted')).filter((r) => r.decision_id === asked.body.decision_id);
    expect(adjusted.map((r) => r.metadata.over_capture_amount)).toEqual([400]);
  });

  test('a refund that brings it back under what was approved ends the over-capture; the same capture again changes nothing', async () => {
    const agentId = await newAgent();
    const first = await swipe40(agentId);
    const capture = transactionObject(first.authorizationId, 'capture', 6_000);
    await post(stripeEvent('issuing_transaction.created', capture));
    await post(stripeEvent('issuing_transaction.created', capture));
    expect((await decision(first.decisionId)).capture).toMatchObject({ captured_amount: 6_000, over_capture_amount: 2_000 });
    expect(await monthSpend(agentId)).toBe(6_000);
    await post(stripeEvent('issuing_transaction.created', transactionObject(first.authorizationId, 'refund', 3_000)));
    const after = (await decision(first.decisionId)).capture;
    expect(after).toMatchObject({ captured_amount: 3_000 });
    expect(after.over_capture_amount).toBeUndefined();
    expect(await monthSpend(agentId)).toBe(3_000);
  });
});

describe('the books balance after it all', () => {
  // Runs last: every increase, over-capture and refund above is in this account's books.
  test('verify: valid, no ledger mismatch (the spend counters equal what the decisions, with their over-captures, say)', async () => {
    const res = await kit.acct.test.get('/v1/audit-logs/verify');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: true, ledger_mismatches: 0, ledger_mismatch_examples: [] });
  });
});
