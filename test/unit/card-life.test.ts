/** What a card authorization counts, from the facts the rail reported (src/rail-connections/card-life.ts). */
import { describe, expect, test } from 'vitest';
import { allocateCounted, countedAmount, mergeFacts, type AuthorizationFacts, type Settlement } from '../../src/rail-connections/card-life.js';
import { timestampNotAhead } from '../../src/rails/stripe-issuing/endpoint.js';

const none: Settlement = { captureNet: 0, captures: 0, refundNet: 0 };
const facts = (f: Partial<AuthorizationFacts>): AuthorizationFacts => ({ approved: null, status: null, amount: null, ...f });

describe('countedAmount', () => {
  test.each([
    ['nothing reported yet', facts({}), none, 700, 'unchanged'],
    ['approved and pending at the full amount', facts({ approved: true, status: 'pending', amount: 700 }), none, 700, 'held'],
    ['a partial reversal while pending', facts({ approved: true, status: 'pending', amount: 300 }), none, 300, 'held'],
    ['declined by the rail', facts({ approved: false, status: 'closed', amount: 0 }), none, 0, 'declined'],
    ['a capture on a declined authorization (a force capture) counts', facts({ approved: false }), { captureNet: -700, captures: 1, refundNet: 0 }, 700, 'settled'],
    ['reversed', facts({ approved: true, status: 'reversed', amount: 0 }), none, 0, 'reversed'],
    ['expired', facts({ approved: true, status: 'expired', amount: 0 }), none, 0, 'expired'],
    ['closed, settlement not seen yet', facts({ approved: true, status: 'closed', amount: 0 }), none, 700, 'unchanged'],
    ['a partial capture', facts({ status: 'closed' }), { captureNet: -500, captures: 1, refundNet: 0 }, 500, 'settled'],
    ['two captures', facts({ status: 'pending', amount: 700 }), { captureNet: -650, captures: 2, refundNet: 0 }, 650, 'settled'],
    ['a capture, then a refund', facts({ status: 'closed' }), { captureNet: -700, captures: 1, refundNet: 200 }, 500, 'refunded'],
    ['refunds beyond the capture', facts({ status: 'closed' }), { captureNet: -700, captures: 1, refundNet: 900 }, 0, 'refunded'],
    ['a refund seen before its capture changes nothing yet', facts({ approved: true, status: 'pending', amount: 700 }), { captureNet: 0, captures: 0, refundNet: 200 }, 700, 'held'],
    ['a capture after a reversal counts', facts({ status: 'reversed' }), { captureNet: -400, captures: 1, refundNet: 0 }, 400, 'settled'],
  ])('%s', (_name, f, settled, amount, reason) => {
    expect(countedAmount(f, settled, 700)).toEqual({ amount, reason });
  });
});

describe('mergeFacts', () => {
  const stored = { approved: true, status: 'closed', amount: 200, amountAt: 100 };
  test('a terminal status never goes back to pending', () => {
    expect(mergeFacts(stored, facts({ status: 'pending', amount: 700 }), 50).status).toBe('closed');
    expect(mergeFacts({ ...stored, status: 'pending' }, facts({ status: 'reversed' }), 50).status).toBe('reversed');
  });
  test('an older amount never replaces a newer one; an equal or later one does', () => {
    expect(mergeFacts(stored, facts({ amount: 700 }), 99)).toMatchObject({ amount: 200, amountAt: 100 });
    expect(mergeFacts(stored, facts({ amount: 150 }), 100)).toMatchObject({ amount: 150, amountAt: 100 });
    expect(mergeFacts({ approved: null, status: null, amount: null, amountAt: null }, facts({ amount: 700 }), 1)).toMatchObject({ amount: 700, amountAt: 1 });
  });
  test('approved keeps what was known when a report leaves it out', () => {
    expect(mergeFacts(stored, facts({}), 200).approved).toBe(true);
    expect(mergeFacts(stored, facts({ approved: false }), 200).approved).toBe(false);
  });
});

describe('allocateCounted: what an authorization counts, shared over the decisions that approved it', () => {
  test.each([
    ['one decision, settled at what it approved', 4_000, [4_000], [[4_000, 0]], 4_000],
    ['one decision, a partial capture', 3_000, [4_000], [[3_000, 0]], 4_000],
    ['the finding: 40.00 approved, 1,040.00 captured', 104_000, [4_000], [[104_000, 100_000]], 4_000],
    ['a 1,000 pre-approval matched by a 600 swipe, settled at 1,000', 1_000, [600], [[1_000, 400]], 600],
    ['an increase: each decision its own part', 4_500, [4_000, 500], [[4_000, 0], [500, 0]], 4_500],
    ['an increase, partly reversed: the later one gives back first', 4_200, [4_000, 500], [[4_000, 0], [200, 0]], 4_500],
    ['an increase, then more than both: the excess on the first', 5_000, [4_000, 500], [[4_500, 500], [500, 0]], 4_500],
    ['reversed: nothing counts', 0, [4_000, 500], [[0, 0], [0, 0]], 4_500],
  ])('%s', (_name, total, approved, shares, approvedTotal) => {
    const out = allocateCounted(total, approved);
    expect(out.shares.map((s) => [s.amount, s.over])).toEqual(shares);
    expect(out.approvedTotal).toBe(approvedTotal);
    expect(out.shares.reduce((sum, s) => sum + s.amount, 0)).toBe(total);
  });
});

describe('timestampNotAhead: the signature tolerance on the future side', () => {
  const now = 1_800_000_000_000;
  const t = now / 1000;
  test.each([
    [`t=${t},v1=ab`, true],
    [`t=${t + 300},v1=ab`, true],
    [`t=${t + 301},v1=ab`, false],
    [`t=${t + 3_600},v1=ab`, false],
    [`t=${t - 10_000},v1=ab`, true],
    [`t=${t},t=${t + 3_600},v1=ab`, false],
    [`t=${t + 3_600},v1=ab,t=${t}`, true],
    ['t=soon,v1=ab', false],
    ['v1=ab', false],
  ])('%s → %s', (header, ok) => expect(timestampNotAhead(header, now)).toBe(ok));
});
