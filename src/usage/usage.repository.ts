import { sql } from 'kysely';
import { insertRows } from '../db/statements.js';
import type { DbOrTrx } from '../db/database.js';
import { inScope } from '../db/scope.js';
import { monthEnd, monthStart, type Month } from './month.js';
import type { AccountTerms } from './pricing.js';

/**
 * Shard rows per account and month: concurrent checks of one account rarely share a row lock.
 * Each lock is held through its decision's commit (a WAL flush), so the shards bound how many
 * decisions of one account commit at once: 64 keeps that above the connections of a few processes' pools.
 */
export const USAGE_COUNTER_SHARDS = 64;

/**
 * Counts one billable check. Written by the same statement as the decision, so the count commits
 * with it or not at all, and the row lock is held only until that commit.
 */
export function countCheckStatement(accountId: string, month: Month, shard = Math.floor(Math.random() * USAGE_COUNTER_SHARDS)) {
  return insertRows(
    'usage_counters',
    [{ account_id: accountId, month, shard, checks: 1 }],
    'on conflict ("account_id", "month", "shard") do update set "checks" = "usage_counters"."checks" + 1',
  );
}

/** The account's plan and its own terms, if any (what its checks cost). */
export async function readAccountTerms(db: DbOrTrx, accountId: string): Promise<AccountTerms | undefined> {
  return db.selectFrom('accounts').select(['plan', 'included_checks', 'overage_rate_micros']).where('id', '=', accountId).executeTakeFirst();
}

/** Billable checks of an account in a month. */
export async function readChecks(db: DbOrTrx, accountId: string, month: Month): Promise<number> {
  const row = await db
    .selectFrom('usage_counters')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('checks'), sql<number>`0`).as('checks'))
    .where('account_id', '=', accountId)
    .where('month', '=', month)
    .executeTakeFirst();
  return Number(row?.checks ?? 0);
}

/**
 * Billable checks of an account per UTC day of a month ('YYYY-MM-DD' → count). Every live decision
 * is one check, counted in its own transaction, so these add up to readChecks for the month.
 */
export async function readDailyChecks(db: DbOrTrx, accountId: string, month: Month): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('decisions')
    .select((eb) => ['spend_day', eb.fn.countAll<string | number>().as('checks')])
    .$call(inScope({ accountId, livemode: true }))
    // The range keeps the query on the (account_id, livemode, created_at) index; spend_day is the same clock.
    .where('created_at', '>=', monthStart(month))
    .where('created_at', '<', monthEnd(month))
    .groupBy('spend_day')
    .execute();
  return new Map(rows.map((r) => [r.spend_day.replace(/^D:/, ''), Number(r.checks)]));
}
