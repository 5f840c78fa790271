import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { autoFreezeTips, evaluate, type EvaluatedPolicy, type EvaluationInput } from '../../src/policies/evaluate.js';
import { normalizeVendor, vendorMatches } from '../../src/policies/vendor.js';
import { evaluatedPolicy } from '../support/policies.js';

const basePolicy: EvaluatedPolicy = evaluatedPolicy();
const none = { approved: 0, reserved: 0 };
const input = (over: Partial<EvaluationInput> = {}): EvaluationInput => ({
  agent: { kyc_status: 'verified' },
  policy: basePolicy,
  request: { amount: 1_000, currency: 'USD', vendor: 'openai.com', category: null },
  spend: { month: none, day: none },
  ...over,
});

describe('normalizeVendor', () => {
  test.each([
    ['Amazon.com', 'amazon.com'],
    ['https://www.amazon.com/gp/cart?x=1', 'amazon.com'],
    ['http://user:pw@Shop.Example.COM:8443/path', 'shop.example.com'],
    ['amazon.com.', 'amazon.com'],
    ['  www.OpenAI.com  ', 'openai.com'],
    ['Acme Corp', 'acme corp'],
  ])('%s → %s', (raw, normal) => expect(normalizeVendor(raw)).toBe(normal));
  // vendorMatches: test/unit/vendor.test.ts.
});

describe('evaluate', () => {
  test('budgets include reservations, and the daily budget is checked when set', () => {
    expect(evaluate(input({ spend: { month: { approved: 99_000, reserved: 500 }, day: none } })).decision).toBe('denied');
    expect(evaluate(input({ spend: { month: { approved: 99_000, reserved: 0 }, day: none } })).decision).toBe('approved');
    const daily = { ...basePolicy, budget_daily: 1_500 };
    expect(evaluate(input({ policy: daily, spend: { month: none, day: { approved: 0, reserved: 600 } } }))).toMatchObject({ decision: 'denied', reason_code: 'budget_exceeded' });
  });

  // Each limit is inclusive: spending up to it exactly is allowed, one cent beyond is not.
  test.each([
    ['single maximum', { budget_single_max: 1_000 }, none, none],
    ['monthly budget', { budget_monthly: 3_000 }, { approved: 1_500, reserved: 500 }, none],
    ['daily budget', { budget_daily: 2_500 }, none, { approved: 1_000, reserved: 500 }],
    ['daily budget, reservations only', { budget_daily: 1_600 }, none, { approved: 0, reserved: 600 }],
  ])('the %s: reaching it exactly is approved, one cent beyond is budget_exceeded', (_, limits, month, day) => {
    const policy = { ...basePolicy, ...limits };
    expect(evaluate(input({ policy, spend: { month, day } }))).toMatchObject({ decision: 'approved', reason_code: null });
    const over = evaluate(input({ policy, request: { ...input().request, amount: 1_001 }, spend: { month, day } }));
    expect(over).toMatchObject({ decision: 'denied', reason_code: 'budget_exceeded' });
  });

  test('no policy fails closed with policy_applied null', () => {
    expect(evaluate(input({ policy: null }))).toMatchObject({ decision: 'denied', reason_code: 'policy_denied', policy_applied: null });
  });

  const arbPolicy = fc.record({
    id: fc.constant('pol_x'),
    active: fc.boolean(),
    currency: fc.constantFrom('USD', 'EUR'),
    budget_monthly: fc.nat({ max: 1_000_000 }),
    budget_daily: fc.option(fc.nat({ max: 1_000_000 }), { nil: null }),
    budget_single_max: fc.nat({ max: 100_000 }),
    vendor_allowlist: fc.array(fc.constantFrom('a.com', 'b.com', 'c.io'), { maxLength: 3 }),
    vendor_denylist: fc.array(fc.constantFrom('a.com', 'b.com', 'c.io'), { maxLength: 3 }),
    require_approval_above: fc.option(fc.nat({ max: 100_000 }), { nil: null }),
    categories_allowed: fc.array(fc.constantFrom('saas', 'travel'), { maxLength: 2 }),
  });
  const arbInput = fc.record({
    agent: fc.record({ kyc_status: fc.constantFrom('pending' as const, 'verified' as const, 'rejected' as const) }),
    policy: fc.option(arbPolicy, { nil: null }),
    request: fc.record({
      amount: fc.integer({ min: 1, max: 200_000 }),
      currency: fc.constantFrom('USD', 'EUR'),
      vendor: fc.constantFrom('a.com', 'www.a.com', 'x.b.com', 'c.io', 'd.net', 'https://A.com/x'),
      category: fc.option(fc.constantFrom('saas', 'travel', 'food'), { nil: null }),
    }),
    spend: fc.record({
      month: fc.record({ approved: fc.nat({ max: 1_000_000 }), reserved: fc.nat({ max: 1_000_000 }) }),
      day: fc.record({ approved: fc.nat({ max: 1_000_000 }), reserved: fc.nat({ max: 1_000_000 }) }),
    }),
  });

  test('never approves or holds above budget_single_max, for a denylisted vendor, or past a budget', () => {
    fc.assert(
      fc.property(arbInput, (i) => {
        const out = evaluate(i);
        if (out.decision === 'denied') return;
        const p = i.policy!;
        expect(p).not.toBeNull();
        expect(p.active).toBe(true);
        expect(i.request.amount).toBeLessThanOrEqual(p.budget_single_max);
        expect(p.vendor_denylist.some((d) => vendorMatches(i.request.vendor, d))).toBe(false);
        expect(i.spend.month.approved + i.spend.month.reserved + i.request.amount).toBeLessThanOrEqual(p.budget_monthly);
        if (p.budget_daily !== null) {
          expect(i.spend.day.approved + i.spend.day.reserved + i.request.amount).toBeLessThanOrEqual(p.budget_daily);
        }
        expect(i.request.currency).toBe(p.currency);
        expect(i.agent.kyc_status).not.toBe('rejected');
      }),
      { numRuns: 5_000 },
    );
  });

  test('approves only what needs no review: allowlisted, or under the threshold with no allowlist', () => {
    fc.assert(
      fc.property(arbInput, (i) => {
        const out = evaluate(i);
        if (out.decision !== 'approved') return;
        const p = i.policy!;
        const allowlisted = p.vendor_allowlist.some((a) => vendorMatches(i.request.vendor, a));
        if (!allowlisted) {
          expect(p.vendor_allowlist).toEqual([]);
          if (p.require_approval_above !== null) expect(i.request.amount).toBeLessThanOrEqual(p.require_approval_above);
        }
      }),
      { numRuns: 5_000 },
    );
  });
});

describe('reasons speak money in the currency\'s own decimal places (the machine fields stay in minor units)', () => {
  const jpy = { ...basePolicy, currency: 'JPY' };
  const kwd = { ...basePolicy, currency: 'KWD' };
  test.each([
    ['the approval threshold in USD', input({ policy: { ...basePolicy, require_approval_above: 5_000 }, request: { amount: 7_500, currency: 'USD', vendor: 'x.example', category: null } }), 'Amount is above the approval threshold of 50.00 USD; a reviewer must approve.'],
    ['the approval threshold in JPY (no minor digits)', input({ policy: { ...jpy, require_approval_above: 5_000 }, request: { amount: 7_500, currency: 'JPY', vendor: 'x.example', category: null } }), 'Amount is above the approval threshold of 5000 JPY; a reviewer must approve.'],
    ['the single-transaction maximum in KWD (three)', input({ policy: { ...kwd, budget_single_max: 1_500 }, request: { amount: 2_000, currency: 'KWD', vendor: 'x.example', category: null } }), 'Amount exceeds the single-transaction maximum of 1.500 KWD.'],
    ['the monthly budget', input({ spend: { month: { approved: 99_500, reserved: 0 }, day: none } }), 'Amount would exceed the monthly budget of 1000.00 USD.'],
    ['the single-transaction maximum', input({ request: { amount: 20_000, currency: 'USD', vendor: 'x.example', category: null } }), 'Amount exceeds the single-transaction maximum of 100.00 USD.'],
    ['the daily budget', input({ policy: { ...basePolicy, budget_daily: 1_999 }, spend: { month: none, day: { approved: 1_000, reserved: 0 } } }), 'Amount would exceed the daily budget of 19.99 USD.'],
    ['a velocity amount', input({ policy: { ...basePolicy, velocity_limits: [{ window_seconds: 3_600, max_amount: 1_999 }] }, velocity: [{ count: 1, amount: 1_000 }] }), 'More than 19.99 USD within 3600 s.'],
  ])('%s', (_name, given, reason) => {
    expect(evaluate(given).reason).toBe(reason);
  });
});

describe('every rule says why in words', () => {
  const req = (over: Partial<EvaluationInput['request']>) => ({ ...input().request, ...over });
  test.each([
    ['no policy', input({ policy: null }), 'No policy is bound to the agent.'],
    ['an inactive policy', input({ policy: { ...basePolicy, active: false } }), 'The policy bound to the agent is inactive.'],
    ['a rejected identity check', input({ agent: { kyc_status: 'rejected' } }), "The agent owner's identity verification was rejected."],
    ['another currency', input({ request: req({ currency: 'EUR' }) }), 'Currency EUR is not the policy currency USD.'],
    ['a denylisted vendor', input({ policy: { ...basePolicy, vendor_denylist: ['bad.example'] }, request: req({ vendor: 'bad.example' }) }), "Vendor bad.example is on the policy's denylist."],
    ['a category not allowed', input({ policy: { ...basePolicy, categories_allowed: ['saas'] }, request: req({ category: 'travel' }) }), 'Category travel is not allowed by the policy.'],
    ['no category where one is required', input({ policy: { ...basePolicy, categories_allowed: ['saas'] } }), 'The policy requires a category and none was given.'],
    ['a velocity count', input({ policy: { ...basePolicy, velocity_limits: [{ window_seconds: 60, max_count: 2 }] }, velocity: [{ count: 2, amount: 0 }] }), 'More than 2 spends within 60 s.'],
    ['a suspected duplicate', input({ policy: { ...basePolicy, duplicate_window_seconds: 30 }, duplicateSuspected: true }), 'An identical request was made within the last 30 s without an Idempotency-Key; a reviewer must confirm it is not a duplicate.'],
    ['a vendor not on the allowlist', input({ policy: { ...basePolicy, vendor_allowlist: ['shop.example'] } }), "Vendor openai.com is not on the policy's allowlist; a reviewer must approve."],
  ])('%s', (_name, given, reason) => {
    expect(evaluate(given).reason).toBe(reason);
  });
});

describe('velocity limits and duplicate suspicion apply only where configured', () => {
  const limited = (limit: { max_count?: number | null; max_amount?: number | null }) => ({ ...basePolicy, velocity_limits: [{ window_seconds: 60, ...limit }] });

  test('a limit without a count (null) limits only the amount, and one without an amount only the count', () => {
    expect(evaluate(input({ policy: limited({ max_count: null, max_amount: 5_000 }), velocity: [{ count: 50, amount: 0 }] })).decision).toBe('approved');
    expect(evaluate(input({ policy: limited({ max_count: 100, max_amount: null }), velocity: [{ count: 0, amount: 50_000 }] })).decision).toBe('approved');
  });

  test('no velocity counted yet (none passed) is nothing seen: the request alone is measured against the limit', () => {
    expect(evaluate(input({ policy: limited({ max_amount: 999 }) }))).toMatchObject({ decision: 'denied', reason_code: 'velocity_exceeded' });
    expect(evaluate(input({ policy: limited({ max_amount: 999 }), velocity: [] }))).toMatchObject({ decision: 'denied', reason_code: 'velocity_exceeded' });
    expect(evaluate(input({ policy: limited({ max_amount: 1_000 }) })).decision).toBe('approved');
  });

  test('a suspected duplicate is held only under a duplicate window, and nothing is suspected unless said so', () => {
    expect(evaluate(input({ duplicateSuspected: true })).decision).toBe('approved');
    expect(evaluate(input({ policy: { ...basePolicy, duplicate_window_seconds: 30 } })).decision).toBe('approved');
  });
});

describe('autoFreezeTips', () => {
  test('tips when the denials in the window reach the configured number; never without a rule', () => {
    const rule = { denials: 3, window_seconds: 600 };
    expect(autoFreezeTips(rule, 2)).toBe(false);
    expect(autoFreezeTips(rule, 3)).toBe(true);
    expect(autoFreezeTips(null, 100)).toBe(false);
    expect(autoFreezeTips(undefined, 100)).toBe(false);
  });
});

describe('holds: false (an AP2 mandate payment, DECISIONS §20 step 8)', () => {
  const held = [
    ['a suspected duplicate', input({ policy: { ...basePolicy, duplicate_window_seconds: 30 }, duplicateSuspected: true })],
    ['an allowlist miss', input({ policy: { ...basePolicy, vendor_allowlist: ['other.example'] } })],
    ['an amount above the approval threshold', input({ policy: { ...basePolicy, require_approval_above: 10 } })],
  ] as const;
  test.each(held)('%s is held by default and approved without the hold step', (_name, i) => {
    expect(evaluate(i).decision).toBe('held');
    expect(evaluate(i, { holds: false })).toEqual({ decision: 'approved', reason_code: null, reason: null, policy_applied: basePolicy.id });
  });
  test('every rule before the hold step still denies', () => {
    const over = { holds: false };
    expect(evaluate(input({ policy: { ...basePolicy, active: false } }), over).reason_code).toBe('policy_denied');
    expect(evaluate(input({ policy: { ...basePolicy, vendor_denylist: ['openai.com'] } }), over).reason_code).toBe('policy_denied');
    expect(evaluate(input({ policy: { ...basePolicy, budget_single_max: 999 } }), over).reason_code).toBe('budget_exceeded');
    expect(evaluate(input({ spend: { month: { approved: 99_500, reserved: 0 }, day: none } }), over).reason_code).toBe('budget_exceeded');
    expect(evaluate(input({ policy: { ...basePolicy, velocity_limits: [{ window_seconds: 60, max_count: 1 }] }, velocity: [{ count: 1, amount: 5 }] }), over).reason_code).toBe('velocity_exceeded');
    expect(evaluate(input({ agent: { kyc_status: 'rejected' } }), over).reason_code).toBe('policy_denied');
  });
});
