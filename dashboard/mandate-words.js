// What a mandate allows, in words (DECISIONS §20), for the agent page: built from the disclosed
// open mandate's constraints, e.g. "up to 50.00 USD per payment at Cat Store; 120.00 USD in total;
// monthly, at most 3 times; until 2026-12-31". Pure: no DOM, so it is unit-tested on its own.
import { minorDigits, money } from './dom.js';

const FREQUENCIES = {
  ON_DEMAND: 'on demand',
  DAILY: 'once a day',
  WEEKLY: 'once a week',
  BIWEEKLY: 'once every two weeks',
  MONTHLY: 'monthly',
  QUARTERLY: 'quarterly',
  ANNUALLY: 'once a year',
};

/** "A", "A or B", "A, B or C". */
function either(names) {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

const pad = (n) => String(n).padStart(2, '0');

/**
 * An RFC 3339 instant in UTC: the date alone when it is the first second of a day (a start) or
 * the last (an end), else the date and the time. Text that is not an instant is shown as it is.
 */
export function instantWords(text, edge) {
  const d = new Date(text);
  if (typeof text !== 'string' || Number.isNaN(d.getTime())) return String(text);
  const date = d.toISOString().slice(0, 10);
  const [hh, mm, ss] = [d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()];
  if (edge === 'start' && hh === 0 && mm === 0 && ss === 0) return date;
  if (edge === 'end' && hh === 23 && mm === 59 && ss === 59) return date;
  return `${date} ${pad(hh)}:${pad(mm)}${ss ? `:${pad(ss)}` : ''} UTC`;
}

const constraintsOf = (open) => (open && Array.isArray(open.constraints) ? open.constraints : []);
const find = (open, type) => constraintsOf(open).find((c) => c && c.type === type);

/** The mandate's currency: its amount range's (the policy's at issuance), else its budget's. */
export function mandateCurrency(open) {
  return find(open, 'payment.amount_range')?.currency ?? find(open, 'payment.budget')?.currency ?? 'USD';
}

/** `payment.budget.max` is in major units (as AP2 writes it); the service counts minor units, rounded (§20). */
export function budgetMinor(open) {
  const budget = find(open, 'payment.budget');
  if (!budget || typeof budget.max !== 'number') return undefined;
  return Math.round(budget.max * 10 ** minorDigits(budget.currency ?? mandateCurrency(open)));
}

/** A mandate without a recurrence is single-use: "one payment of up to …" rather than "up to … per payment". */
function amountWords(c, singleUse) {
  const max = money(c.max, c.currency);
  const range = typeof c.min === 'number' && c.min > 0 ? `${money(c.min, c.currency)} to ${max}` : `up to ${max}`;
  return singleUse ? `one payment of ${range}` : typeof c.min === 'number' && c.min > 0 ? `from ${range} per payment` : `${range} per payment`;
}

const names = (allowed, name) => either((Array.isArray(allowed) ? allowed : []).map(name));

function recurrenceWords(c) {
  const often = FREQUENCIES[c.frequency] ?? String(c.frequency).toLowerCase();
  if (typeof c.max_occurrences !== 'number') return often;
  return `${often}, at most ${c.max_occurrences === 1 ? 'once' : `${c.max_occurrences} times`}`;
}

function windowWords(c) {
  const from = c.not_before ? `from ${instantWords(c.not_before, 'start')}` : '';
  const until = c.not_after ? `until ${instantWords(c.not_after, 'end')}` : '';
  return [from, until].filter(Boolean).join(' ');
}

/** The constraints in words, in the mandate's own order, joined by "; ". */
export function mandateWords(open) {
  const constraints = constraintsOf(open);
  const singleUse = !find(open, 'payment.agent_recurrence');
  const parts = [];
  let amount;
  for (const c of constraints) {
    switch (c?.type) {
      case 'payment.amount_range':
        amount = amountWords(c, singleUse);
        parts.push(amount);
        break;
      case 'payment.allowed_payees': {
        // "up to 50.00 USD per payment at Cat Store": the payees join the amount when it comes first.
        const at = `at ${names(c.allowed, (p) => p?.name ?? p?.id)}`;
        if (amount && parts.at(-1) === amount) parts[parts.length - 1] = `${amount} ${at}`;
        else parts.push(at);
        break;
      }
      case 'payment.allowed_payment_instruments':
        parts.push(`paid with ${names(c.allowed, (i) => i?.description || [i?.type, i?.id].filter(Boolean).join(' '))}`);
        break;
      case 'payment.allowed_pisps':
        parts.push(`through ${names(c.allowed, (p) => p?.brand_name ?? p?.legal_name ?? p?.domain_name)}`);
        break;
      case 'payment.budget':
        parts.push(`${money(budgetMinor(open), c.currency ?? mandateCurrency(open))} in total`);
        break;
      case 'payment.agent_recurrence':
        parts.push(recurrenceWords(c));
        break;
      case 'payment.execution_date': {
        const words = windowWords(c);
        if (words) parts.push(words);
        break;
      }
      case 'payment.reference':
        // The checkout it is tied to: a hash, nothing a reader can check by eye.
        break;
      default:
        parts.push(`${c?.type ?? 'a constraint'} (not described here)`);
    }
  }
  if (singleUse && !amount) parts.unshift('one payment');
  return parts.join('; ');
}

/** "1 of 3" when the mandate caps its uses (a single-use one: "0 of 1"), else the count. */
export function usesWords(mandate) {
  const recurrence = find(mandate.open_mandate, 'payment.agent_recurrence');
  const max = recurrence ? recurrence.max_occurrences : 1;
  return typeof max === 'number' ? `${mandate.uses} of ${max}` : String(mandate.uses);
}

/** "40.00 USD of 120.00 USD" with a budget, else what was spent under it. */
export function budgetUsedWords(mandate) {
  const currency = mandateCurrency(mandate.open_mandate);
  const budget = budgetMinor(mandate.open_mandate);
  const used = money(mandate.budget_used, currency);
  return budget === undefined ? used : `${used} of ${money(budget, currency)}`;
}
