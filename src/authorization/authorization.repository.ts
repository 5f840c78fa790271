import { sql } from 'kysely';
import type { AgentSpendTable, DbOrTrx, DecisionsTable, Selectable } from '../db/database.js';
import type { SpendState } from './evaluate.js';
import type { DecisionRow } from './decision.view.js';

/** UTC calendar periods a decision counts in. */
export function periodsOf(at: Date): { month: string; day: string } {
  const iso = at.toISOString();
  return { month: `M:${iso.slice(0, 7)}`, day: `D:${iso.slice(0, 10)}` };
}

export async function readSpend(db: DbOrTrx, agentId: string, periods: { month: string; day: string }): Promise<SpendState> {
  const rows: Selectable<AgentSpendTable>[] = await db
    .selectFrom('agent_spend')
    .selectAll()
    .where('agent_id', '=', agentId)
    .where('period', 'in', [periods.month, periods.day])
    .execute();
  const pick = (p: string) => {
    const r = rows.find((x) => x.period === p);
    return { approved: Number(r?.approved ?? 0), reserved: Number(r?.reserved ?? 0) };
  };
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
  await sql`
    INSERT INTO agent_spend (agent_id, period, approved, reserved)
    VALUES (${agentId}, ${periods.month}, ${delta.approved}, ${delta.reserved}),
           (${agentId}, ${periods.day}, ${delta.approved}, ${delta.reserved})
    ON CONFLICT (agent_id, period) DO UPDATE
      SET approved = agent_spend.approved + excluded.approved,
          reserved = agent_spend.reserved + excluded.reserved`.execute(db);
}

export async function insertDecision(db: DbOrTrx, row: DecisionRow): Promise<void> {
  await db
    .insertInto('decisions')
    .values({ ...row, metadata: JSON.stringify(row.metadata) })
    .execute();
}

export async function findDecisionInScope(db: DbOrTrx, accountId: string, livemode: boolean, id: string): Promise<DecisionRow | undefined> {
  return db
    .selectFrom('decisions')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('livemode', '=', livemode)
    .executeTakeFirst();
}

/** Approved decisions and pending holds of the agent inside each rolling window ending at `now`. */
export async function velocityState(db: DbOrTrx, agentId: string, windowsSeconds: readonly number[], now: Date): Promise<{ count: number; amount: number }[]> {
  if (windowsSeconds.length === 0) return [];
  const since = windowsSeconds.map((w) => new Date(now.getTime() - w * 1000));
  const oldest = new Date(Math.min(...since.map((d) => d.getTime())));
  const columns = since.map(
    (d, i) => sql`count(*) FILTER (WHERE created_at > ${d}) AS ${sql.ref(`c${i}`)}, coalesce(sum(amount) FILTER (WHERE created_at > ${d}), 0) AS ${sql.ref(`a${i}`)}`,
  );
  const res = await sql<Record<string, number>>`
    SELECT ${sql.join(columns)} FROM decisions
    WHERE agent_id = ${agentId} AND created_at > ${oldest} AND created_at <= ${now} AND status IN ('approved', 'pending')`.execute(db);
  const row = res.rows[0] ?? {};
  return since.map((_, i) => ({ count: Number(row[`c${i}`] ?? 0), amount: Number(row[`a${i}`] ?? 0) }));
}

/** Approved or pending requests of the agent with this amount and currency inside the window (vendor compared by the caller). */
export async function recentLookalikes(db: DbOrTrx, agentId: string, r: { amount: number; currency: string }, windowSeconds: number, now: Date) {
  return db
    .selectFrom('decisions')
    .select(['id', 'vendor'])
    .where('agent_id', '=', agentId)
    .where('amount', '=', r.amount)
    .where('currency', '=', r.currency)
    .where('status', 'in', ['approved', 'pending'])
    .where('created_at', '>', new Date(now.getTime() - windowSeconds * 1000))
    .where('created_at', '<=', now)
    .execute();
}

export async function deniedCount(db: DbOrTrx, agentId: string, windowSeconds: number, now: Date): Promise<number> {
  const row = await db
    .selectFrom('decisions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('agent_id', '=', agentId)
    .where('decision', '=', 'denied')
    .where('created_at', '>', new Date(now.getTime() - windowSeconds * 1000))
    .where('created_at', '<=', now)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export type { DecisionsTable };
