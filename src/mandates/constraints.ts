/**
 * DECISIONS §20 step 6's "open claim changed" and step 7: what the open mandate asks of the closed
 * one, checked against the mandate's own ledger (its uses, budget used and last use). Pure: the
 * caller reads the counters under the mandate's row lock. First failure wins.
 */
import type { MandateRefusal } from '../authorization/mandate-request.js';
import { formatMoney, minorDigits } from '../kernel/money.js';
import { BIWEEKLY_SECONDS, RECURRENCE_FREQUENCIES, type RecurrenceFrequency } from './mandate-deps.js';

export interface MandateCounters {
  uses: number;
  budget_used: number;
  last_used_at: Date | null;
}

type Json = Record<string, unknown>;

/** The open claims that describe the mandate itself; every other one is a preset the closed mandate must repeat. */
const NOT_PRESETS: ReadonlySet<string> = new Set(['vct', 'constraints', 'cnf', 'iat', 'exp']);

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const own = (o: Json, name: string): unknown => (Object.hasOwn(o, name) ? o[name] : undefined);

/** Deep equality of JSON values; member order does not count. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => jsonEqual(a[k], b[k]));
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const daysIn = (year: number, month: number) => [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;

/**
 * An AP2 date as an instant (design Q9): an ISO 8601 date (`2026-12-01`, read as 00:00:00Z) or an
 * RFC 3339 date-time. Anything else, or a day the calendar does not have, is undefined.
 */
export function mandateInstant(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const m = DATE.exec(text) ?? DATE_TIME.exec(text);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  if (m.length > 4 && m[4] !== undefined) {
    if (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 59) return undefined;
    if (m[9] !== undefined && (Number(m[9]) > 23 || Number(m[10]) > 59)) return undefined;
  }
  // Checked above to be one of the two forms, which V8 reads exactly (a longer fraction truncated to milliseconds).
  return Date.parse(text);
}

/** How far a closed mandate's `execution_date` may be from the verification's time. */
export const EXECUTION_DATE_SKEW_MS = 300_000;

interface Context {
  closed: Json;
  counters: MandateCounters;
  now: Date;
  openCheckoutHash: string | undefined;
  /** The types of every constraint of the mandate (agent_recurrence needs two others). */
  types: ReadonlySet<unknown>;
}

interface Rule {
  /** Why the constraint cannot be evaluated (not per its `$defs`, or an input it needs is missing): unresolved. */
  unresolved(c: Json, ctx: Context): string | undefined;
  /** Why the closed mandate fails it. */
  failure(c: Json, ctx: Context): string | undefined;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isInteger = (v: unknown): v is number => Number.isSafeInteger(v);
const optional = (c: Json, name: string, test: (v: unknown) => boolean) => !Object.hasOwn(c, name) || test(c[name]);

/** `allowed` as its `$defs` says: an array of objects with these required and optional string members. */
function allowedMalformed(c: Json, required: readonly string[], optionalNames: readonly string[]): string | undefined {
  const allowed = own(c, 'allowed');
  if (!Array.isArray(allowed)) return 'allowed must be an array';
  const bad = allowed.findIndex((e) => !isObject(e) || !required.every((n) => isString(own(e, n))) || !optionalNames.every((n) => optional(e, n, isString)));
  return bad === -1 ? undefined : `allowed[${bad}] must be an object with ${required.join(', ')} strings`;
}

function paymentAmount(closed: Json): { amount: number; currency: string } | undefined {
  const pa = own(closed, 'payment_amount');
  if (!isObject(pa)) return undefined;
  const amount = own(pa, 'amount');
  const currency = own(pa, 'currency');
  return isInteger(amount) && isString(currency) ? { amount, currency } : undefined;
}

const money = (minor: number, currency: string) => (isInteger(minor) ? formatMoney(minor, currency) : `${minor} ${currency}`);

/** Start of the UTC period that holds `t`, for the frequencies that have calendar periods. */
function periodStart(t: Date, frequency: RecurrenceFrequency): number | undefined {
  const y = t.getUTCFullYear();
  const m = t.getUTCMonth();
  switch (frequency) {
    case 'DAILY':
      return Date.UTC(y, m, t.getUTCDate());
    case 'WEEKLY': // ISO week: Monday 00:00Z
      return Date.UTC(y, m, t.getUTCDate() - ((t.getUTCDay() + 6) % 7));
    case 'MONTHLY':
      return Date.UTC(y, m, 1);
    case 'QUARTERLY':
      return Date.UTC(y, m - (m % 3), 1);
    case 'ANNUALLY':
      return Date.UTC(y, 0, 1);
    default:
      return undefined;
  }
}

const PERIOD_WORDS: Partial<Record<RecurrenceFrequency, string>> = {
  DAILY: 'UTC day',
  WEEKLY: 'ISO week',
  MONTHLY: 'UTC month',
  QUARTERLY: 'UTC quarter',
  ANNUALLY: 'UTC year',
};

const RULES: Record<string, Rule> = {
  'payment.amount_range': {
    unresolved: (c) =>
      isString(own(c, 'currency')) && isInteger(own(c, 'max')) && optional(c, 'min', isInteger)
        ? undefined
        : 'needs a currency string, an integer max and, if given, an integer min',
    failure(c, { closed }) {
      const pa = paymentAmount(closed);
      if (!pa) return 'the closed mandate has no payment_amount';
      const currency = c.currency as string;
      if (pa.currency !== currency) return `currency ${pa.currency} is not the mandate's ${currency}`;
      const max = c.max as number;
      const min = own(c, 'min') as number | undefined;
      if (min !== undefined && pa.amount < min) return `${money(pa.amount, currency)} is below the minimum of ${money(min, currency)}`;
      if (pa.amount > max) return `${money(pa.amount, currency)} is above the maximum of ${money(max, currency)}`;
      return undefined;
    },
  },
  'payment.allowed_payees': {
    unresolved: (c) => allowedMalformed(c, ['id', 'name'], ['website']),
    failure(c, { closed }) {
      const payee = own(closed, 'payee');
      const id = isObject(payee) ? own(payee, 'id') : undefined;
      if (!isString(id)) return 'the closed mandate has no payee id';
      const entry = (c.allowed as Json[]).find((e) => e.id === id);
      if (!entry) return `payee ${JSON.stringify(id)} is not one of the mandate's payees`;
      // The payment's vendor (what the policy checks and the token names) is derived from the closed
      // payee's website or name, which the agent writes: they must be the allowed entry's own.
      const p = payee as Json;
      if (p.name !== entry.name || own(p, 'website') !== own(entry, 'website')) return `payee ${JSON.stringify(id)} must have the name and website the mandate allows for it`;
      return undefined;
    },
  },
  'payment.allowed_payment_instruments': {
    unresolved: (c) => allowedMalformed(c, ['id', 'type'], ['description']),
    failure(c, { closed }) {
      const instrument = own(closed, 'payment_instrument');
      const id = isObject(instrument) ? own(instrument, 'id') : undefined;
      if (!isString(id)) return 'the closed mandate has no payment_instrument id';
      return (c.allowed as Json[]).some((e) => e.id === id) ? undefined : `payment instrument ${JSON.stringify(id)} is not one of the mandate's instruments`;
    },
  },
  'payment.allowed_pisps': {
    unresolved: (c) => allowedMalformed(c, ['legal_name', 'brand_name', 'domain_name'], []),
    failure(c, { closed }) {
      const pisp = own(closed, 'pisp');
      if (!isObject(pisp)) return 'the closed mandate names no pisp';
      const fields = ['legal_name', 'brand_name', 'domain_name'] as const;
      return (c.allowed as Json[]).some((e) => fields.every((f) => own(pisp, f) === e[f]))
        ? undefined
        : `pisp ${JSON.stringify(own(pisp, 'domain_name') ?? null)} is not one of the mandate's pisps`;
    },
  },
  'payment.execution_date': {
    unresolved(c) {
      for (const bound of ['not_before', 'not_after']) {
        if (Object.hasOwn(c, bound) && mandateInstant(c[bound]) === undefined) return `${bound} must be a date or an RFC 3339 date-time`;
      }
      return undefined;
    },
    failure(c, { closed, now }) {
      // The payment and its token are issued now, so now is what must lie in the window: an agent's
      // own execution_date never opens it (DECISIONS §20 step 7). A date it gives must be now, to
      // within EXECUTION_DATE_SKEW_MS; an absent one means immediate execution (AP2).
      const given = own(closed, 'execution_date');
      if (given !== undefined) {
        const at = mandateInstant(given);
        if (at === undefined) return 'the closed execution_date is not a date';
        if (Math.abs(at - now.getTime()) > EXECUTION_DATE_SKEW_MS) return `execution_date ${String(given)} is not now (${now.toISOString()}, to within ${EXECUTION_DATE_SKEW_MS / 1000} s)`;
      }
      const at = now.getTime();
      if (Object.hasOwn(c, 'not_before') && at < mandateInstant(c.not_before)!) return `now is before ${String(c.not_before)} (now: ${now.toISOString()})`;
      if (Object.hasOwn(c, 'not_after') && at > mandateInstant(c.not_after)!) return `now is after ${String(c.not_after)} (now: ${now.toISOString()})`;
      return undefined;
    },
  },
  'payment.budget': {
    unresolved: (c) => (Number.isFinite(own(c, 'max')) && isString(own(c, 'currency')) ? undefined : 'needs a number max and a currency string'),
    failure(c, { closed, counters }) {
      const pa = paymentAmount(closed);
      if (!pa) return 'the closed mandate has no payment_amount';
      const currency = c.currency as string;
      if (pa.currency !== currency) return `currency ${pa.currency} is not the budget's ${currency}`;
      // Major units to minor, rounded (AP2's SDK truncates: 0.29 × 100 = 28.999… is 28 there, 29 here).
      const limit = Math.round((c.max as number) * 10 ** minorDigits(currency));
      const total = counters.budget_used + pa.amount;
      return total <= limit
        ? undefined
        : `${money(pa.amount, currency)} would bring the mandate's spend to ${money(total, currency)}, over its budget of ${money(limit, currency)}`;
    },
  },
  'payment.agent_recurrence': {
    unresolved: (c) =>
      (RECURRENCE_FREQUENCIES as readonly unknown[]).includes(own(c, 'frequency')) && optional(c, 'max_occurrences', isInteger)
        ? undefined
        : `needs a frequency (${RECURRENCE_FREQUENCIES.join(', ')}) and, if given, an integer max_occurrences`,
    failure(c, { counters, now, types }) {
      if (!types.has('payment.amount_range') || !types.has('payment.budget')) return 'a recurring mandate must also have payment.amount_range and payment.budget';
      const max = own(c, 'max_occurrences') as number | undefined;
      if (max !== undefined && counters.uses >= max) return `the mandate has been used ${counters.uses} of ${max} times`;
      const last = counters.last_used_at;
      if (!last) return undefined;
      const frequency = c.frequency as RecurrenceFrequency;
      if (frequency === 'BIWEEKLY') {
        const next = last.getTime() + BIWEEKLY_SECONDS * 1000;
        return now.getTime() >= next ? undefined : `the last use was less than 14 days ago; the next is allowed from ${new Date(next).toISOString()}`;
      }
      const start = periodStart(now, frequency);
      if (start === undefined) return undefined; // ON_DEMAND
      // Only a later period passes, so a clock that went back never opens a period twice.
      return start > periodStart(last, frequency)! ? undefined : `the mandate was already used this ${PERIOD_WORDS[frequency]} (${last.toISOString()})`;
    },
  },
  'payment.reference': {
    unresolved(c, { openCheckoutHash }) {
      if (!isString(own(c, 'conditional_transaction_id'))) return 'needs a conditional_transaction_id string';
      return openCheckoutHash === undefined ? 'open_checkout_hash is required to check it' : undefined;
    },
    failure: (c, { openCheckoutHash }) => (c.conditional_transaction_id === openCheckoutHash ? undefined : 'open_checkout_hash is not the checkout this mandate was issued for'),
  },
};

const mismatch = (reason: string): MandateRefusal => ({ reason_code: 'mandate_mismatch', reason, receiptError: 'invalid_mandate' });
const unresolved = (reason: string): MandateRefusal => ({ reason_code: 'mandate_unresolved', reason, receiptError: 'unresolved_constraint' });
const failed = (reason: string): MandateRefusal => ({ reason_code: 'mandate_constraint_failed', reason, receiptError: 'invalid_mandate' });

/**
 * Step 6's preset claims, then step 7's constraints in their order; for each constraint, first
 * whether it can be evaluated (unknown, malformed, missing input → unresolved), then whether it
 * passes. `open` and `closed` are the resolved mandates (their disclosures replaced).
 */
export function checkConstraints(
  open: Record<string, unknown>,
  closed: Record<string, unknown>,
  counters: MandateCounters,
  now: Date,
  openCheckoutHash: string | undefined,
): MandateRefusal | undefined {
  for (const [name, value] of Object.entries(open)) {
    if (NOT_PRESETS.has(name)) continue;
    if (!jsonEqual(value, own(closed, name))) return mismatch(`the closed mandate's ${name} is not the open mandate's`);
  }
  const constraints = own(open, 'constraints');
  if (!Array.isArray(constraints)) return unresolved('constraints: must be an array');
  const types = new Set(constraints.map((c) => (isObject(c) ? own(c, 'type') : undefined)));
  // open_payment_mandate.json: constraints must contain a payment.reference.
  if (!types.has('payment.reference')) return unresolved('constraints: must contain a payment.reference');
  const ctx: Context = { closed, counters, now, openCheckoutHash, types };
  for (const [i, c] of constraints.entries()) {
    const type = isObject(c) ? own(c, 'type') : undefined;
    if (!isObject(c) || !isString(type)) return unresolved(`constraints[${i}]: must be an object with a string type`);
    const rule = Object.hasOwn(RULES, type) ? RULES[type] : undefined;
    if (!rule) return unresolved(`${type}: unknown constraint type`);
    const why = rule.unresolved(c, ctx);
    if (why) return unresolved(`${type}: ${why}`);
    const failure = rule.failure(c, ctx);
    if (failure) return failed(`${type}: ${failure}`);
  }
  return undefined;
}
