/**
 * DECISIONS §20 step 6 ("an open claim changed") and step 7 (the constraints, in order): each rule
 * of design §1.3's table, with a case that passes only while the rule is there.
 */
import { describe, expect, test } from 'vitest';
import { checkConstraints, jsonEqual, mandateInstant, type MandateCounters } from '../../src/mandates/constraints.js';

type Json = Record<string, unknown>;
const HASH = 'q1cYv0rbKYpsfC5LA3RvF_b0Ngj_FbFQaq4PzkmHbyo';
const NOW = new Date('2026-11-27T12:00:00Z');
const FRESH: MandateCounters = { uses: 0, budget_used: 0, last_used_at: null };

const payees = [
  { id: 'cat-store', name: 'Cat Store', website: 'https://cats.example' },
  { id: 'dog-store', name: 'Dog Store' },
];
const instruments = [{ id: 'card-1', type: 'card', description: 'Visa ending 4242' }];

/** An open mandate shaped as we issue one (constraint order of design I20), every constraint present. */
function openMandate(overrides: Record<string, Json | undefined> = {}, extra: Json = {}): Json {
  const all: Record<string, Json | undefined> = {
    'payment.amount_range': { type: 'payment.amount_range', currency: 'USD', max: 5_000, min: 100 },
    'payment.allowed_payees': { type: 'payment.allowed_payees', allowed: payees },
    'payment.allowed_payment_instruments': { type: 'payment.allowed_payment_instruments', allowed: instruments },
    'payment.budget': { type: 'payment.budget', max: 120, currency: 'USD' },
    'payment.agent_recurrence': { type: 'payment.agent_recurrence', frequency: 'ON_DEMAND', max_occurrences: 3 },
    'payment.execution_date': { type: 'payment.execution_date', not_before: '2026-01-01T00:00:00Z', not_after: '2026-12-31T23:59:59Z' },
    'payment.reference': { type: 'payment.reference', conditional_transaction_id: HASH },
    ...overrides,
  };
  return {
    vct: 'mandate.payment.open.1',
    constraints: Object.values(all).filter((c) => c !== undefined),
    cnf: { jwk: { kty: 'EC', crv: 'P-256', x: 'x'.repeat(43), y: 'y'.repeat(43) } },
    iat: 1_790_000_000,
    exp: 1_800_000_000,
    ...extra,
  };
}

function closedMandate(extra: Json = {}): Json {
  return {
    vct: 'mandate.payment.1',
    transaction_id: 'txn-1',
    payee: { id: 'cat-store', name: 'Cat Store', website: 'https://cats.example' },
    payment_amount: { amount: 2_500, currency: 'USD' },
    payment_instrument: { id: 'card-1', type: 'card' },
    iat: 1_795_000_000,
    ...extra,
  };
}

const check = (open: Json, closed: Json, counters: MandateCounters = FRESH, now: Date = NOW, hash: string | undefined = HASH) =>
  checkConstraints(open, closed, counters, now, hash);

const mismatch = (reason: string | RegExp) => ({ reason_code: 'mandate_mismatch', receiptError: 'invalid_mandate', reason: expect.stringMatching(reason) });
const unresolved = (reason: string | RegExp) => ({ reason_code: 'mandate_unresolved', receiptError: 'unresolved_constraint', reason: expect.stringMatching(reason) });
const failed = (type: string, reason: string | RegExp = '') => ({
  reason_code: 'mandate_constraint_failed',
  receiptError: 'invalid_mandate',
  reason: expect.stringMatching(new RegExp(`^${type.replace('.', '\\.')}: .*${typeof reason === 'string' ? reason : reason.source}`)),
});

test('the mandate as issued and a closed mandate within it pass', () => {
  expect(check(openMandate(), closedMandate())).toBeUndefined();
});

describe('step 6: an open claim other than vct, constraints, cnf, iat, exp must be repeated unchanged', () => {
  const preset = { payee: { id: 'cat-store', name: 'Cat Store', website: 'https://cats.example' } };

  test('a preset repeated with its members in another order passes', () => {
    expect(check(openMandate({}, preset), closedMandate({ payee: { website: 'https://cats.example', name: 'Cat Store', id: 'cat-store' } }))).toBeUndefined();
  });

  test('a preset payee the closed mandate changes is a mismatch', () => {
    expect(check(openMandate({}, preset), closedMandate({ payee: { id: 'cat-store', name: 'Cat Store', website: 'https://evil.example' } }))).toEqual(
      mismatch(/payee/),
    );
  });

  test('a preset the closed mandate leaves out is a mismatch', () => {
    const closed = closedMandate();
    delete closed.payee;
    expect(check(openMandate({}, preset), closed)).toEqual(mismatch(/payee/));
  });

  test.each([
    ['payment_amount', { amount: 2_500, currency: 'USD' }, { amount: 2_501, currency: 'USD' }],
    ['payment_instrument', { id: 'card-1', type: 'card' }, { id: 'card-1', type: 'card', description: 'x' }],
    ['pisp', { legal_name: 'P', brand_name: 'P', domain_name: 'p.example' }, undefined],
    ['execution_date', '2026-12-01', '2026-12-02'],
    ['risk_data', { device: 'a' }, { device: 'b' }],
    ['anything_else', [1, 2], [2, 1]],
  ])('a preset %s changed is a mismatch', (name, openValue, closedValue) => {
    expect(check(openMandate({}, { [name]: openValue }), closedMandate({ [name]: closedValue }))).toEqual(mismatch(name));
  });

  test('vct, constraints, cnf, iat and exp are the mandate itself, not presets', () => {
    expect(check(openMandate(), closedMandate({ iat: 1, exp: 2, cnf: { other: true }, constraints: [] }))).toBeUndefined();
  });

  test('the mismatch comes before any constraint', () => {
    expect(check(openMandate({}, preset), closedMandate({ payee: { id: 'nobody', name: 'Nobody' }, payment_amount: { amount: 1, currency: 'EUR' } }))).toEqual(
      mismatch(/payee/),
    );
  });
});

describe('step 7: a constraint that cannot be evaluated is unresolved', () => {
  test('constraints that are not an array', () => {
    expect(check({ ...openMandate(), constraints: { type: 'payment.reference' } }, closedMandate())).toEqual(unresolved(/^constraints: /));
  });

  test('constraints without a payment.reference (open_payment_mandate.json requires one)', () => {
    expect(check(openMandate({ 'payment.reference': undefined }), closedMandate())).toEqual(unresolved(/payment\.reference/));
  });

  test.each([
    ['a string', 'payment.budget'],
    ['an object without a type', { currency: 'USD', max: 1 }],
    ['a type that is not a string', { type: 7 }],
  ])('a constraint that is %s', (_what, c) => {
    const open = openMandate();
    (open.constraints as unknown[]).splice(1, 0, c);
    expect(check(open, closedMandate())).toEqual(unresolved(/^constraints\[1\]: /));
  });

  test('an unknown type', () => {
    const open = openMandate();
    (open.constraints as unknown[]).splice(1, 0, { type: 'payment.allowed_moons', allowed: [] });
    expect(check(open, closedMandate())).toEqual(unresolved(/^payment\.allowed_moons: unknown/));
  });

  test('a type named like an Object.prototype member is unknown, not a crash', () => {
    const open = openMandate();
    (open.constraints as unknown[]).unshift({ type: 'toString' });
    expect(check(open, closedMandate())).toEqual(unresolved(/^toString: unknown/));
  });

  test.each<[string, Json]>([
    ['payment.amount_range', { type: 'payment.amount_range', currency: 'USD' }],
    ['payment.amount_range', { type: 'payment.amount_range', currency: 'USD', max: 50.5 }],
    ['payment.amount_range', { type: 'payment.amount_range', currency: 'USD', max: '5000' }],
    ['payment.amount_range', { type: 'payment.amount_range', max: 5_000 }],
    ['payment.amount_range', { type: 'payment.amount_range', currency: 'USD', max: 5_000, min: null }],
    ['payment.allowed_payees', { type: 'payment.allowed_payees' }],
    ['payment.allowed_payees', { type: 'payment.allowed_payees', allowed: { id: 'cat-store', name: 'Cat Store' } }],
    ['payment.allowed_payees', { type: 'payment.allowed_payees', allowed: [{ name: 'Cat Store' }] }],
    ['payment.allowed_payees', { type: 'payment.allowed_payees', allowed: [{ id: 'cat-store', name: 'Cat Store', website: 7 }] }],
    ['payment.allowed_payees', { type: 'payment.allowed_payees', allowed: ['cat-store'] }],
    ['payment.allowed_payees', { type: 'payment.allowed_payees', allowed: [null] }],
    ['payment.allowed_payment_instruments', { type: 'payment.allowed_payment_instruments', allowed: [{ id: 'card-1' }] }],
    ['payment.allowed_payment_instruments', { type: 'payment.allowed_payment_instruments', allowed: [{ id: 'card-1', type: 'card', description: 7 }] }],
    ['payment.allowed_pisps', { type: 'payment.allowed_pisps', allowed: [{ legal_name: 'P', brand_name: 'P' }] }],
    ['payment.budget', { type: 'payment.budget', currency: 'USD' }],
    ['payment.budget', { type: 'payment.budget', max: '120', currency: 'USD' }],
    ['payment.budget', { type: 'payment.budget', max: 120 }],
    ['payment.budget', { type: 'payment.budget', max: Infinity, currency: 'USD' }],
    ['payment.agent_recurrence', { type: 'payment.agent_recurrence' }],
    ['payment.agent_recurrence', { type: 'payment.agent_recurrence', frequency: 'HOURLY' }],
    ['payment.agent_recurrence', { type: 'payment.agent_recurrence', frequency: 'monthly' }],
    ['payment.agent_recurrence', { type: 'payment.agent_recurrence', frequency: 'MONTHLY', max_occurrences: 1.5 }],
    ['payment.execution_date', { type: 'payment.execution_date', not_before: 'tomorrow' }],
    ['payment.execution_date', { type: 'payment.execution_date', not_after: 20_261_231 }],
    ['payment.reference', { type: 'payment.reference' }],
    ['payment.reference', { type: 'payment.reference', conditional_transaction_id: 7 }],
  ])('%s not per its $defs: %j', (type, c) => {
    expect(check(openMandate({ [type]: c }), closedMandate())).toEqual(unresolved(new RegExp(`^${type.replace('.', '\\.')}: `)));
  });

  test('payment.reference with no open_checkout_hash to check it against', () => {
    expect(checkConstraints(openMandate(), closedMandate(), FRESH, NOW, undefined)).toEqual(unresolved(/^payment\.reference: open_checkout_hash is required/));
  });
});

describe('step 7: a failing constraint, its description starting with its type', () => {
  describe('payment.amount_range', () => {
    test.each([100, 5_000])('%i, at a bound, passes', (amount) => {
      expect(check(openMandate(), closedMandate({ payment_amount: { amount, currency: 'USD' } }))).toBeUndefined();
    });
    test('below min', () => {
      expect(check(openMandate(), closedMandate({ payment_amount: { amount: 99, currency: 'USD' } }))).toEqual(failed('payment.amount_range', 'below the minimum'));
    });
    test('above max', () => {
      expect(check(openMandate(), closedMandate({ payment_amount: { amount: 5_001, currency: 'USD' } }))).toEqual(failed('payment.amount_range', 'above the maximum'));
    });
    test('another currency', () => {
      expect(check(openMandate(), closedMandate({ payment_amount: { amount: 2_500, currency: 'EUR' } }))).toEqual(failed('payment.amount_range', 'currency EUR'));
    });
    test('a closed mandate without payment_amount fails (step 4 refuses it first; this is the rule\'s own guard)', () => {
      const closed = closedMandate();
      delete closed.payment_amount;
      expect(check(openMandate(), closed)).toEqual(failed('payment.amount_range', 'no payment_amount'));
      expect(check(openMandate({ 'payment.amount_range': undefined, 'payment.agent_recurrence': undefined }), closed)).toEqual(failed('payment.budget', 'no payment_amount'));
      expect(check(openMandate(), closedMandate({ payment_amount: { amount: '2500', currency: 'USD' } }))).toEqual(failed('payment.amount_range', 'no payment_amount'));
    });
    test('min absent: no minimum', () => {
      const open = openMandate({ 'payment.amount_range': { type: 'payment.amount_range', currency: 'USD', max: 5_000 } });
      expect(check(open, closedMandate({ payment_amount: { amount: 1, currency: 'USD' } }))).toBeUndefined();
    });
  });

  describe('payment.allowed_payees', () => {
    test('the id of another disclosed entry passes', () => {
      expect(check(openMandate(), closedMandate({ payee: { id: 'dog-store', name: 'Dog Store' } }))).toBeUndefined();
    });
    test('an id no entry has fails, whatever its name and website', () => {
      expect(check(openMandate(), closedMandate({ payee: { id: 'cat-store-2', name: 'Cat Store', website: 'https://cats.example' } }))).toEqual(
        failed('payment.allowed_payees', 'cat-store-2'),
      );
    });
    test("an allowed id with another name or website fails: the vendor decided is derived from them", () => {
      const cat = payees[0]!;
      for (const changed of [{ ...cat, website: 'https://dogs.example' }, { ...cat, name: 'Dog Store' }, { id: cat.id, name: cat.name }, { ...cat, website: 'https://cats.example.evil' }]) {
        expect(check(openMandate(), closedMandate({ payee: changed }))).toEqual(failed('payment.allowed_payees', 'name and website'));
      }
    });
    test('a payee without an id fails', () => {
      expect(check(openMandate(), closedMandate({ payee: { name: 'Cat Store' } }))).toEqual(failed('payment.allowed_payees', 'no payee id'));
    });
  });

  describe('payment.allowed_payment_instruments', () => {
    test('an instrument no entry has fails', () => {
      expect(check(openMandate(), closedMandate({ payment_instrument: { id: 'card-2', type: 'card' } }))).toEqual(failed('payment.allowed_payment_instruments', 'card-2'));
    });
    test('no instrument fails', () => {
      const closed = closedMandate();
      delete closed.payment_instrument;
      expect(check(openMandate(), closed)).toEqual(failed('payment.allowed_payment_instruments', 'no payment_instrument'));
    });
  });

  describe('payment.allowed_pisps', () => {
    const pisp = { legal_name: 'Pay Ltd', brand_name: 'Pay', domain_name: 'pay.example' };
    const open = () => openMandate({ 'payment.allowed_pisps': { type: 'payment.allowed_pisps', allowed: [{ legal_name: 'Other', brand_name: 'O', domain_name: 'o.example' }, pisp] } });
    test('a pisp equal to an entry in all three fields passes', () => {
      expect(check(open(), closedMandate({ pisp }))).toBeUndefined();
    });
    test('no pisp fails', () => {
      expect(check(open(), closedMandate())).toEqual(failed('payment.allowed_pisps', 'no pisp'));
    });
    test.each(['legal_name', 'brand_name', 'domain_name'])('a pisp with another %s fails', (field) => {
      expect(check(open(), closedMandate({ pisp: { ...pisp, [field]: 'changed' } }))).toEqual(failed('payment.allowed_pisps'));
    });
  });

  describe('payment.execution_date: now in the window, and a given date within 300 s of now', () => {
    test.each(['2026-11-27T12:00:00Z', '2026-11-27T12:04:59Z', '2026-11-27T11:55:00Z', '2026-11-27T13:00:00+01:00', '2026-11-27T12:02:00.999Z'])('%s, now to within 300 s, passes', (execution_date) => {
      expect(check(openMandate(), closedMandate({ execution_date }))).toBeUndefined();
    });
    test('a date inside the window but not now fails: the agent never chooses when it pays', () => {
      for (const execution_date of ['2026-01-01T00:00:00Z', '2026-12-31T23:59:59Z', '2026-11-27T12:05:01Z', '2026-11-27T11:54:59Z', '2026-11-27']) {
        expect(check(openMandate(), closedMandate({ execution_date }))).toEqual(failed('payment.execution_date', 'is not now'));
      }
    });
    test('a window that has closed fails even with a date inside it: the payment is made now', () => {
      const later = new Date('2027-01-02T00:00:00Z');
      expect(check(openMandate(), closedMandate({ execution_date: '2026-12-31T23:59:59Z' }), FRESH, later)).toEqual(failed('payment.execution_date', 'is not now'));
      expect(check(openMandate(), closedMandate({ execution_date: later.toISOString() }), FRESH, later)).toEqual(failed('payment.execution_date', 'now is after'));
    });
    test('a window not yet open fails even with a date inside it', () => {
      const early = new Date('2025-06-01T00:00:00Z');
      expect(check(openMandate(), closedMandate({ execution_date: '2026-01-01T00:00:00Z' }), FRESH, early)).toEqual(failed('payment.execution_date', 'is not now'));
      expect(check(openMandate(), closedMandate({ execution_date: early.toISOString() }), FRESH, early)).toEqual(failed('payment.execution_date', 'now is before'));
    });
    test('bounds compare as instants: an offset form of now passes, an offset that puts the bound behind now fails', () => {
      const open = openMandate({ 'payment.execution_date': { type: 'payment.execution_date', not_after: '2026-11-27T12:30:00+01:00' } });
      expect(check(open, closedMandate())).toEqual(failed('payment.execution_date', 'now is after'));
      expect(check(openMandate({ 'payment.execution_date': { type: 'payment.execution_date', not_after: '2026-11-27T12:30:00-01:00' } }), closedMandate())).toBeUndefined();
    });
    test('absent means now: a window that has closed fails', () => {
      expect(check(openMandate(), closedMandate(), FRESH, new Date('2027-01-01T00:00:00Z'))).toEqual(failed('payment.execution_date', 'now is after'));
      expect(check(openMandate(), closedMandate(), FRESH, new Date('2025-06-01T00:00:00Z'))).toEqual(failed('payment.execution_date', 'now is before'));
    });
    test('a closed execution_date that is not a date fails', () => {
      expect(check(openMandate(), closedMandate({ execution_date: 'soon' }))).toEqual(failed('payment.execution_date', 'not a date'));
    });
    test('one bound alone', () => {
      const open = openMandate({ 'payment.execution_date': { type: 'payment.execution_date', not_after: '2026-06-30' } });
      expect(check(open, closedMandate())).toEqual(failed('payment.execution_date', 'after'));
      expect(check(open, closedMandate(), FRESH, new Date('2026-06-30T00:00:00Z'))).toBeUndefined();
    });
  });

  describe('payment.budget: budget_used + amount ≤ round(max × 10^minor digits)', () => {
    test('spend reaching the budget exactly passes; one minor unit over fails', () => {
      expect(check(openMandate(), closedMandate(), { uses: 1, budget_used: 9_500, last_used_at: null })).toBeUndefined();
      expect(check(openMandate(), closedMandate(), { uses: 1, budget_used: 9_501, last_used_at: null })).toEqual(
        failed('payment.budget', 'over its budget of 120.00 USD'),
      );
    });
    test('another currency fails', () => {
      const open = openMandate({ 'payment.amount_range': undefined, 'payment.budget': { type: 'payment.budget', max: 120, currency: 'EUR' } });
      expect(check(open, closedMandate())).toEqual(failed('payment.budget', 'currency USD'));
    });
    test('rounded, not truncated: a budget of 0.29 USD is 29 minor units (AP2\'s SDK reads 28)', () => {
      const open = openMandate({ 'payment.amount_range': undefined, 'payment.agent_recurrence': undefined, 'payment.budget': { type: 'payment.budget', max: 0.29, currency: 'USD' } });
      expect(check(open, closedMandate({ payment_amount: { amount: 29, currency: 'USD' } }))).toBeUndefined();
      expect(check(open, closedMandate({ payment_amount: { amount: 30, currency: 'USD' } }))).toEqual(failed('payment.budget'));
    });
    test.each([
      ['JPY', 500, 500, 501],
      ['KWD', 1.5, 1_500, 1_501],
    ])('%s uses its own minor digits: max %d is %i minor units', (currency, max, fits, over) => {
      const open = openMandate({ 'payment.amount_range': undefined, 'payment.agent_recurrence': undefined, 'payment.budget': { type: 'payment.budget', max, currency } });
      expect(check(open, closedMandate({ payment_amount: { amount: fits, currency } }))).toBeUndefined();
      expect(check(open, closedMandate({ payment_amount: { amount: over, currency } }))).toEqual(failed('payment.budget'));
    });
  });

  describe('payment.agent_recurrence', () => {
    const recurrence = (frequency: string, max_occurrences?: number) =>
      openMandate({ 'payment.execution_date': undefined, 'payment.agent_recurrence': { type: 'payment.agent_recurrence', frequency, ...(max_occurrences ? { max_occurrences } : {}) } });
    const after = (last: string, now: string, frequency: string) => check(recurrence(frequency), closedMandate(), { uses: 1, budget_used: 0, last_used_at: new Date(last) }, new Date(now));

    test('without amount_range, or without budget, it fails', () => {
      expect(check(openMandate({ 'payment.amount_range': undefined }), closedMandate())).toEqual(failed('payment.agent_recurrence', 'amount_range and payment.budget'));
      expect(check(openMandate({ 'payment.budget': undefined }), closedMandate())).toEqual(failed('payment.agent_recurrence', 'amount_range and payment.budget'));
    });
    test('uses < max_occurrences passes; at max_occurrences it fails', () => {
      expect(check(recurrence('ON_DEMAND', 3), closedMandate(), { uses: 2, budget_used: 0, last_used_at: NOW })).toBeUndefined();
      expect(check(recurrence('ON_DEMAND', 3), closedMandate(), { uses: 3, budget_used: 0, last_used_at: NOW })).toEqual(failed('payment.agent_recurrence', 'used 3 of 3'));
    });
    test('no max_occurrences: no count limit', () => {
      expect(check(recurrence('ON_DEMAND'), closedMandate(), { uses: 999, budget_used: 0, last_used_at: NOW })).toBeUndefined();
    });
    test('never used: every frequency passes', () => {
      for (const f of ['DAILY', 'WEEKLY', 'BIWEEKLY', 'MONTHLY', 'QUARTERLY', 'ANNUALLY']) expect(check(recurrence(f), closedMandate())).toBeUndefined();
    });
    test.each([
      ['DAILY', '2026-11-27T00:00:00Z', '2026-11-27T23:59:59Z', '2026-11-28T00:00:00Z'],
      // 2026-11-29 is a Sunday, 2026-11-30 a Monday: the ISO week turns there.
      ['WEEKLY', '2026-11-23T00:00:00Z', '2026-11-29T23:59:59Z', '2026-11-30T00:00:00Z'],
      // ISO week across a year: Thu 2026-12-31 and Fri 2027-01-01 share a week; Mon 2027-01-04 starts the next.
      ['WEEKLY', '2026-12-31T08:00:00Z', '2027-01-03T23:59:59Z', '2027-01-04T00:00:00Z'],
      ['MONTHLY', '2026-01-10T00:00:00Z', '2026-01-31T23:59:59Z', '2026-02-01T00:00:00Z'],
      ['QUARTERLY', '2026-04-01T00:00:00Z', '2026-06-30T23:59:59Z', '2026-07-01T00:00:00Z'],
      ['QUARTERLY', '2026-10-05T00:00:00Z', '2026-12-31T23:59:59Z', '2027-01-01T00:00:00Z'],
      ['ANNUALLY', '2026-01-01T00:00:00Z', '2026-12-31T23:59:59Z', '2027-01-01T00:00:00Z'],
    ])('%s: used %s, again at %s fails, at %s passes (UTC)', (frequency, last, samePeriod, nextPeriod) => {
      expect(after(last, samePeriod, frequency)).toEqual(failed('payment.agent_recurrence', 'already used this'));
      expect(after(last, nextPeriod, frequency)).toBeUndefined();
    });
    test('MONTHLY across UTC, not local time: 23:30 on Jan 31 at UTC-5 is already February in UTC', () => {
      expect(after('2026-01-10T00:00:00Z', '2026-01-31T23:30:00-05:00', 'MONTHLY')).toBeUndefined();
    });
    test('BIWEEKLY: 14 days − 1 s after the last use fails, 14 days passes', () => {
      expect(after('2026-11-01T10:00:00Z', '2026-11-15T09:59:59Z', 'BIWEEKLY')).toEqual(failed('payment.agent_recurrence', '14 days'));
      expect(after('2026-11-01T10:00:00Z', '2026-11-15T10:00:00Z', 'BIWEEKLY')).toBeUndefined();
    });
    test('ON_DEMAND: no period', () => {
      expect(after('2026-11-27T11:59:59Z', '2026-11-27T12:00:00Z', 'ON_DEMAND')).toBeUndefined();
    });
    test('a clock that went back does not open the period again', () => {
      expect(after('2026-02-01T00:00:00Z', '2026-01-31T23:59:59Z', 'MONTHLY')).toEqual(failed('payment.agent_recurrence'));
    });
  });

  describe('payment.reference', () => {
    test('another open_checkout_hash fails', () => {
      expect(check(openMandate(), closedMandate(), FRESH, NOW, 'A'.repeat(43))).toEqual(failed('payment.reference', 'open_checkout_hash'));
    });
  });
});

describe('first failure wins, constraint by constraint in order', () => {
  test('amount_range (first) is named before budget when both fail', () => {
    expect(check(openMandate(), closedMandate({ payment_amount: { amount: 9_999_999, currency: 'USD' } }))).toEqual(failed('payment.amount_range'));
  });
  test('a failing constraint before an unknown one is the failure', () => {
    const open = openMandate();
    (open.constraints as unknown[]).push({ type: 'payment.allowed_moons' });
    expect(check(open, closedMandate({ payee: { id: 'nobody', name: 'Nobody' } }))).toEqual(failed('payment.allowed_payees'));
  });
  test('an unknown constraint before a failing one is unresolved', () => {
    const open = openMandate();
    (open.constraints as unknown[]).unshift({ type: 'payment.allowed_moons' });
    expect(check(open, closedMandate({ payee: { id: 'nobody', name: 'Nobody' } }))).toEqual(unresolved(/allowed_moons/));
  });
});

describe('mandateInstant: a date or an RFC 3339 date-time, as an instant', () => {
  test.each([
    ['2026-12-01', Date.UTC(2026, 11, 1)],
    ['2026-12-01T10:20:30Z', Date.UTC(2026, 11, 1, 10, 20, 30)],
    ['2026-12-01t10:20:30z', Date.UTC(2026, 11, 1, 10, 20, 30)],
    ['2026-12-01T10:20:30.123456Z', Date.UTC(2026, 11, 1, 10, 20, 30, 123)],
    ['2026-12-01T10:20:30.5-01:00', Date.UTC(2026, 11, 1, 11, 20, 30, 500)],
    ['2026-12-01T10:20:30+05:30', Date.UTC(2026, 11, 1, 4, 50, 30)],
    ['2024-02-29', Date.UTC(2024, 1, 29)],
  ])('%s', (text, at) => {
    expect(mandateInstant(text)).toBe(at);
  });
  test('a two-digit year stays that year (not 19xx)', () => {
    expect(new Date(mandateInstant('0099-01-01')!).getUTCFullYear()).toBe(99);
  });
  test.each([
    '2026-02-30',
    '2025-02-29',
    '2026-13-01',
    '2026-00-10',
    '2026-12-00',
    '2026-12-01T24:00:00Z',
    '2026-12-01T10:60:00Z',
    '2026-12-01T10:20:60Z',
    '2026-12-01T10:20:30+24:00',
    '2026-12-01T10:20:30+01:60',
    '2026-12-01T10:20:30',
    '2026-12-01 10:20:30Z',
    '1 Dec 2026',
    '',
    20_261_201,
    ['2026-12-01'],
  ])(
    '%j is not',
    (text) => {
      expect(mandateInstant(text)).toBeUndefined();
    },
  );
});

test('jsonEqual: member order does not count, array order and types do', () => {
  expect(jsonEqual({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 })).toBe(true);
  expect(jsonEqual([1, 2], [2, 1])).toBe(false);
  expect(jsonEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
  expect(jsonEqual('1', 1)).toBe(false);
  expect(jsonEqual(null, {})).toBe(false);
  expect(jsonEqual([], {})).toBe(false);
});
