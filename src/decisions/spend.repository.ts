import { sql, type Expression } from 'kysely';
import type { AgentSpendTable, DbOrTrx, Selectable } from '../db/database.js';
import { compiledOnce, insertRows } from '../db/statements.js';
import type { SpendState } from '../policies/evaluate.js';

/**
 * Each agent's spend counters (`agent_spend`): approved amounts and amounts reserved by pending
 * holds, per UTC month and day. Every change runs under the agent's row lock.
 */

/** UTC calendar periods a decision counts in. */
export function periodsOf(at: Date): { month: string; day: string } {
  const iso = at.toISOString();
  return { month: `M:${iso.slice(0, 7)}`, day: `D:${iso.slice(0, 10)}` };
}

/** Built once: it runs on every decision of the locked path. */
const spendQuery = compiledOnce((db: DbOrTrx, agentId: string, month: string, day: string) =>
  db.selectFrom('agent_spend').selectAll().where('agent_id', '=', agentId).where('period', 'in', [month, day]),
);

export async function readSpend(db: DbOrTrx, agentId: string, periods: { month: string; day: string }): Promise<SpendState> {
  const { rows } = await db.executeQuery<Selectable<AgentSpendTable>>(spendQuery(db, agentId, periods.month, periods.day));
  return spendState(periods, (p) => rows.find((x) => x.period === p));
}

/** An agent's month and day counters as one value, `{period: [approved, reserved]}` (null: none yet). */
export type SpendByPeriod = Record<string, [number, number]> | null;

/**
 * The agent's counters in `month` and `day` as one column of a statement that reads something else
 * (SpendByPeriod; `spendFromPeriods` reads it). Under the agent's lock it is the latest committed only
 * in a statement that began after the lock was granted.
 */
export const spendByPeriod = (agentId: Expression<string> | string, month: string, day: string) =>
  sql<SpendByPeriod>`(select jsonb_object_agg(s.period, jsonb_build_array(s.approved, s.reserved)) from "agent_spend" as "s" where "s"."agent_id" = ${agentId} and "s"."period" in (${month}, ${day}))`;

/** SpendState from `spendByPeriod`'s value. */
export const spendFromPeriods = (periods: { month: string; day: string }, byPeriod: SpendByPeriod): SpendState =>
  spendState(periods, (p) => ({ approved: byPeriod?.[p]?.[0], reserved: byPeriod?.[p]?.[1] }));

/** Month and day counters from whatever holds them; a period without a row has spent nothing. */
export function spendState(periods: { month: string; day: string }, of: (period: string) => { approved?: number | null; reserved?: number | null } | undefined): SpendState {
  const pick = (p: string) => ({ approved: Number(of(p)?.approved ?? 0), reserved: Number(of(p)?.reserved ?? 0) });
  return { month: pick(periods.month), day: pick(periods.day) };
}

/**
 * Adds to an agent's month and day counters in one statement (creating them at zero first).
 * Callers hold the agent's row lock, which serializes every spend change of that agent.
 */
export async function changeSpend(
  db: DbOrTrx,
  agentId: string,
  periods: { month: string; day: string },
  delta: { approved: number; reserved: number },
): Promise<void> {
  if (delta.approved < 0 || delta.reserved < 0) {
    // Taking away (a released reservation) only ever touches rows its reservation created;
    // an upsert would check the negative candidate row against the constraints first.
    await sql`
      UPDATE agent_spend
      SET approved = approved + ${delta.approved}, reserved = reserved + ${delta.reserved}
      WHERE agent_id = ${agentId} AND period IN (${periods.month}, ${periods.day})`.execute(db);
    return;
  }
  await db.executeQuery(spendIncrease(agentId, periods, delta));
}

/** Adds non-negative amounts to the month and day counters, creating them at zero first. */
export function spendIncrease(agentId: string, periods: { month: string; day: string }, delta: { approved: number; reserved: number }) {
  return insertRows(
    'agent_spend',
    [periods.month, periods.day].map((period) => ({ agent_id: agentId, period, approved: delta.approved, reserved: delta.reserved })),
    'on conflict ("agent_id", "period") do update set "approved" = "agent_spend"."approved" + "excluded"."approved", "reserved" = "agent_spend"."reserved" + "excluded"."reserved"',
  );
}
