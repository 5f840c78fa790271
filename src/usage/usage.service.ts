import { requireRole, STAFF, type Caller } from '../kernel/caller.js';
import type { Db } from '../db/database.js';
import { notFound } from '../kernel/errors.js';
import { monthEnd, monthOf, monthStart, type Month } from './month.js';
import { overageOf, termsFor, TEST_MODE_TERMS } from './pricing.js';
import { readAccountTerms, readChecks, readDailyChecks } from './usage.repository.js';
import type { DailyChecks, UsageView } from './usage.view.js';

export type { DailyChecks, UsageView } from './usage.view.js';

const DAY_MS = 86_400_000;

/** One entry per day of the month, in order, from the counts found. */
export function dailySeries(month: Month, counts: ReadonlyMap<string, number>): DailyChecks[] {
  const out: DailyChecks[] = [];
  for (let t = monthStart(month).getTime(); t < monthEnd(month).getTime(); t += DAY_MS) {
    const date = new Date(t).toISOString().slice(0, 10);
    out.push({ date, checks: counts.get(date) ?? 0 });
  }
  return out;
}

/**
 * Billable checks of the caller's account in a month (default: the current UTC month) and what
 * they cost beyond the plan's included ones. Test mode is free and never counted.
 */
export async function getUsage(db: Db, caller: Caller, month: Month | undefined, now = new Date()): Promise<UsageView> {
  requireRole(caller, STAFF);
  const m = month ?? monthOf(now);
  const account = await readAccountTerms(db, caller.accountId);
  if (!account) throw notFound('account');
  const terms = caller.livemode ? termsFor(account) : TEST_MODE_TERMS;
  // One snapshot for both, so the days add up to the month's count even while checks are counted.
  const { checks, byDay } = caller.livemode
    ? await db
        .transaction()
        .setIsolationLevel('repeatable read')
        .execute(async (trx) => ({ checks: await readChecks(trx, caller.accountId, m), byDay: await readDailyChecks(trx, caller.accountId, m) }))
    : { checks: 0, byDay: new Map<string, number>() };
  const daily = dailySeries(m, byDay);
  return {
    object: 'usage',
    month: m,
    plan: account.plan,
    checks,
    included: terms.included,
    ...overageOf(checks, terms),
    livemode: caller.livemode,
    daily,
  };
}
