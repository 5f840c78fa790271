/**
 * Attack: make the money a card moved go uncounted. A signed Stripe event is a report of what
 * happened, not a request to judge: (a) an event whose merchant data or metadata holds a Unicode
 * noncharacter or an unpaired surrogate (anyone who names a merchant or edits a card's metadata can
 * put one there) was refused with a 400 once the signature held, so a capture in it was never
 * counted and a request fell to Stripe's own fallback; (b) a capture on an authorization Stripe
 * declined (a force capture) counted 0. Both leave the ledger showing less than the card spent.
 */
import { describe, expect, test } from 'vitest';
import { cardBudgetKit } from '../support/card-budget.js';
import { asStripeReadsIt, authorizationAfter, postToRail, requestEvent, stripeEvent, transactionObject } from '../support/stripe-issuing.js';

const { kit, newAgent, post, decision, monthSpend, swipe40 } = cardBudgetKit();

describe('a signed event with text that is not I-JSON is still read', () => {
  // JSON.stringify writes U+FFFF raw and a lone surrogate as an escape: both spellings are sent.
  test.each([
    ['a raw noncharacter', 'SHOP \uFFFF'],
    ['an escaped unpaired surrogate', 'SHOP \uD800'],
  ])('a capture above the approval whose merchant name holds %s is counted in full', async (_name, merchantName) => {
    const agentId = await newAgent();
    const first = await swipe40(agentId);
    const capture = transactionObject(first.authorizationId, 'capture', 9_000);
    capture.merchant_data = { ...capture.merchant_data, name: merchantName };
    await post(stripeEvent('issuing_transaction.created', capture));
    expect((await decision(first.decisionId)).capture).toMatchObject({ captured_amount: 9_000, over_capture_amount: 5_000 });
    expect(await monthSpend(agentId)).toBe(9_000);
  });

  test('a request whose merchant name holds a noncharacter is answered, declined invalid_request, not refused', async () => {
    const agentId = await newAgent();
    // A denylisted name with a noncharacter appended would be another string to the lists.
    const res = await post(requestEvent({ agentId, amount: 1_000, merchantUrl: null, merchantName: 'SHOP \uFDD0' }));
    expect(asStripeReadsIt(res)).toEqual({ approved: false, metadata: { reason_code: 'invalid_request' } });
    expect(await monthSpend(agentId)).toBe(0);
  });

  test('a member named twice is still refused once the signature holds (nothing recorded)', async () => {
    const agentId = await newAgent();
    const event = requestEvent({ agentId, amount: 1_000, merchantUrl: 'shop.example' });
    const text = JSON.stringify(event).replace('"livemode":false', '"livemode":false,"livemode":false');
    const res = await postToRail(kit.ctx, kit.rail.id, text, { secret: kit.rail.secret });
    expect(res.status).toBe(400);
    expect(await monthSpend(agentId)).toBe(0);
  });
});

describe('a force capture on an authorization the rail declined', () => {
  test('counts in full: the decision shows the capture and the spend rises', async () => {
    const agentId = await newAgent();
    const first = await swipe40(agentId);
    await post(stripeEvent('issuing_authorization.created', authorizationAfter(first.request, { approved: false, status: 'closed' })));
    expect(await monthSpend(agentId)).toBe(0);
    await post(stripeEvent('issuing_transaction.created', transactionObject(first.authorizationId, 'capture', 4_000)));
    expect((await decision(first.decisionId)).capture).toMatchObject({ captured_amount: 4_000 });
    expect(await monthSpend(agentId)).toBe(4_000);
  });

  test('the books balance after it all', async () => {
    expect((await kit.acct.test.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true, ledger_mismatches: 0 });
  });
});
