import { describe, expect, test } from 'vitest';
// @ts-expect-error the dashboard is plain JavaScript without declarations
import { budgetUsedWords, instantWords, mandateWords, usesWords } from '../../dashboard/mandate-words.js';

/** An open mandate as §20 discloses it: constraints in its order, amounts in minor units, the budget in major units. */
const open = (...constraints: Array<Record<string, unknown>>) => ({
  vct: 'mandate.payment.open.1',
  constraints: [...constraints, { type: 'payment.reference', conditional_transaction_id: 'x'.repeat(43) }],
  cnf: { jwk: { kty: 'EC', crv: 'P-256', x: 'x', y: 'y' } },
  iat: 1_800_000_000,
  exp: 1_800_003_600,
});
const range = (max: number, extra: Record<string, unknown> = {}) => ({ type: 'payment.amount_range', currency: 'USD', max, ...extra });
const payees = (...names: string[]) => ({ type: 'payment.allowed_payees', allowed: names.map((name, i) => ({ id: `p${i}`, name, website: `https://${i}.example` })) });

describe('mandateWords: the constraints in words, in their order, money as the dashboard writes it', () => {
  test('the recurring example: amount and payee, budget, recurrence, window', () => {
    const words = mandateWords(
      open(
        range(5_000),
        payees('Cat Store'),
        { type: 'payment.budget', max: 120, currency: 'USD' },
        { type: 'payment.agent_recurrence', frequency: 'MONTHLY', max_occurrences: 3 },
        { type: 'payment.execution_date', not_after: '2026-12-31T23:59:59Z' },
      ),
    );
    expect(words).toBe('up to 50.00 USD per payment at Cat Store; 120.00 USD in total; monthly, at most 3 times; until 2026-12-31');
  });

  test('without a recurrence a mandate is single-use, and says so', () => {
    expect(mandateWords(open(range(1_999), payees('Cat Store', 'Dog Shop', 'Fish Co')))).toBe('one payment of up to 19.99 USD at Cat Store, Dog Shop or Fish Co');
    expect(mandateWords(open(range(5_000, { min: 500 }), payees('Cat Store')))).toBe('one payment of 5.00 USD to 50.00 USD at Cat Store');
    expect(mandateWords(open(payees('Cat Store')))).toBe('one payment; at Cat Store');
  });

  test('a minimum, instruments, each frequency, a cap of one, both ends of a window', () => {
    const words = (recurrence: Record<string, unknown>, window: Record<string, unknown>) =>
      mandateWords(
        open(
          range(5_000, { min: 100 }),
          payees('Cat Store', 'Dog Shop'),
          { type: 'payment.allowed_payment_instruments', allowed: [{ id: 'card_1', type: 'card', description: 'Visa ending 4242' }, { id: 'acct_9', type: 'bank' }] },
          { type: 'payment.budget', max: 0.29, currency: 'USD' },
          { type: 'payment.agent_recurrence', ...recurrence },
          { type: 'payment.execution_date', ...window },
        ),
      );
    expect(words({ frequency: 'BIWEEKLY', max_occurrences: 1 }, { not_before: '2026-12-01T00:00:00Z', not_after: '2027-01-15T12:30:00Z' })).toBe(
      'from 1.00 USD to 50.00 USD per payment at Cat Store or Dog Shop; paid with Visa ending 4242 or bank acct_9; 0.29 USD in total; once every two weeks, at most once; from 2026-12-01 until 2027-01-15 12:30 UTC',
    );
    const frequency = (f: string) => words({ frequency: f }, { not_before: '2026-12-01T08:00:05Z' }).split('; ').slice(-2);
    expect(frequency('ON_DEMAND')).toEqual(['on demand', 'from 2026-12-01 08:00:05 UTC']);
    expect(['DAILY', 'WEEKLY', 'MONTHLY', 'QUARTERLY', 'ANNUALLY'].map((f) => frequency(f)[0])).toEqual(['once a day', 'once a week', 'monthly', 'quarterly', 'once a year']);
  });

  test("the budget's major units in the currency's own decimals (rounded as the service counts them)", () => {
    const budget = (max: number, currency: string) =>
      mandateWords(open({ type: 'payment.amount_range', currency, max: 100 }, payees('Shop'), { type: 'payment.budget', max, currency }, { type: 'payment.agent_recurrence', frequency: 'ON_DEMAND' })).split('; ')[1];
    expect(budget(5000, 'JPY')).toBe('5000 JPY in total');
    expect(budget(1.5, 'KWD')).toBe('1.500 KWD in total');
    expect(budget(19.99, 'USD')).toBe('19.99 USD in total');
  });

  test('a constraint it does not know is named, never dropped; a pisp by its brand', () => {
    expect(mandateWords(open(range(100), { type: 'payment.allowed_pisps', allowed: [{ legal_name: 'P Ltd', brand_name: 'PayCo', domain_name: 'pay.example' }] }, { type: 'payment.future_thing' }))).toBe(
      'one payment of up to 1.00 USD; through PayCo; payment.future_thing (not described here)',
    );
  });

  test('nothing to read: no constraints, or no open mandate at all', () => {
    expect(mandateWords({ constraints: [] })).toBe('one payment');
    expect(mandateWords(null)).toBe('one payment');
  });
});

describe('uses and budget used', () => {
  const mandate = (open_mandate: unknown, uses: number, budget_used: number) => ({ open_mandate, uses, budget_used });
  const recurring = open(range(5_000), payees('Cat Store'), { type: 'payment.budget', max: 120, currency: 'USD' }, { type: 'payment.agent_recurrence', frequency: 'MONTHLY', max_occurrences: 3 });

  test('out of the cap when there is one (a single-use mandate: of 1), else the count', () => {
    expect(usesWords(mandate(recurring, 1, 4_000))).toBe('1 of 3');
    expect(usesWords(mandate(open(range(5_000), payees('Cat Store')), 0, 0))).toBe('0 of 1');
    expect(usesWords(mandate(open(range(5_000), payees('A'), { type: 'payment.budget', max: 10, currency: 'USD' }, { type: 'payment.agent_recurrence', frequency: 'DAILY' }), 7, 0))).toBe('7');
  });

  test('out of the budget when there is one, in the mandate currency', () => {
    expect(budgetUsedWords(mandate(recurring, 1, 4_000))).toBe('40.00 USD of 120.00 USD');
    expect(budgetUsedWords(mandate(open({ type: 'payment.amount_range', currency: 'JPY', max: 900 }, payees('A')), 1, 800))).toBe('800 JPY');
  });
});

test('instants: a date alone at the start or the end of a UTC day, else with its time', () => {
  expect(instantWords('2026-12-31T23:59:59Z', 'end')).toBe('2026-12-31');
  expect(instantWords('2026-12-31T23:59:59Z', 'start')).toBe('2026-12-31 23:59:59 UTC');
  expect(instantWords('2026-12-01T00:00:00+01:00', 'start')).toBe('2026-11-30 23:00 UTC');
  expect(instantWords('not a date', 'end')).toBe('not a date');
});
