import { sql } from 'kysely';
import type { DbOrTrx, Selectable, UsageReportsTable, UsageReportStatus } from '../db/database.js';
import type { Month } from './month.js';

export type UsageReportRow = Selectable<UsageReportsTable>;

export async function readReport(db: DbOrTrx, accountId: string, month: Month): Promise<UsageReportRow | undefined> {
  return db.selectFrom('usage_reports').selectAll().where('account_id', '=', accountId).where('month', '=', month).executeTakeFirst();
}

/** Creates the pending report with its quantity; when another run created it first, that one's row wins. */
export async function startReport(
  db: DbOrTrx,
  r: { accountId: string; month: Month; quantity: number; idempotencyKey: string; now: Date },
): Promise<UsageReportRow> {
  await db
    .insertInto('usage_reports')
    .values({
      account_id: r.accountId,
      month: r.month,
      quantity: r.quantity,
      status: 'pending',
      attempts: 0,
      last_status_code: null,
      last_error: null,
      idempotency_key: r.idempotencyKey,
      created_at: r.now,
      updated_at: r.now,
      reported_at: null,
    })
    .onConflict((oc) => oc.columns(['account_id', 'month']).doNothing())
    .execute();
  return (await readReport(db, r.accountId, r.month))!;
}

/** Records an attempt's outcome; a report already accepted or skipped is never changed again. */
export async function recordAttempt(
  db: DbOrTrx,
  accountId: string,
  month: Month,
  a: { status: UsageReportStatus; attempted: boolean; statusCode?: number | null; lastError: string | null; now: Date },
): Promise<void> {
  await db
    .updateTable('usage_reports')
    .set({
      status: a.status,
      attempts: a.attempted ? sql`attempts + 1` : sql`attempts`,
      last_status_code: a.statusCode ?? null,
      last_error: a.lastError,
      updated_at: a.now,
      reported_at: a.status === 'accepted' ? a.now : null,
    })
    .where('account_id', '=', accountId)
    .where('month', '=', month)
    .where('status', 'not in', ['accepted', 'skipped'])
    .execute();
}

/** Accounts with live usage in `month` whose report is not settled (accepted or skipped), in id order. */
export async function listAccountsToReport(db: DbOrTrx, month: Month, limit: number, afterAccountId?: string): Promise<string[]> {
  let q = db
    .selectFrom('usage_counters as u')
    .leftJoin('usage_reports as r', (join) => join.onRef('r.account_id', '=', 'u.account_id').onRef('r.month', '=', 'u.month'))
    .select('u.account_id')
    .where('u.month', '=', month)
    .where((eb) => eb.or([eb('r.status', 'is', null), eb('r.status', 'not in', ['accepted', 'skipped'])]))
    .groupBy('u.account_id')
    .having((eb) => eb.fn.sum('u.checks'), '>', 0)
    .orderBy('u.account_id')
    .limit(limit);
  if (afterAccountId !== undefined) q = q.where('u.account_id', '>', afterAccountId);
  return (await q.execute()).map((r) => r.account_id);
}

/**
 * Ended months before `beforeMonth` (at most `lookback`, newest first) with live usage whose report
 * is not settled: a run that failed, or a month no run reported (the Schedule paused or down
 * across the 1st). The monthly run retries them; the meter's idempotency key makes that safe.
 */
export async function unsettledMonthsBefore(db: DbOrTrx, beforeMonth: Month, lookback: number): Promise<Month[]> {
  const rows = await db
    .selectFrom('usage_counters as u')
    .leftJoin('usage_reports as r', (join) => join.onRef('r.account_id', '=', 'u.account_id').onRef('r.month', '=', 'u.month'))
    .select('u.month')
    .where('u.month', '<', beforeMonth)
    .where((eb) => eb.or([eb('r.status', 'is', null), eb('r.status', 'not in', ['accepted', 'skipped'])]))
    .where('u.checks', '>', 0)
    .groupBy('u.month')
    .orderBy('u.month', 'desc')
    .limit(lookback)
    .execute();
  return rows.map((r) => r.month as Month);
}

/** Reports of ended months that are not settled (pending or refused): the unaccepted-reports gauge. */
export async function countUnsettledReports(db: DbOrTrx): Promise<number> {
  const row = await db
    .selectFrom('usage_reports')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', 'not in', ['accepted', 'skipped'])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
