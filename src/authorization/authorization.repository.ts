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

export type { DecisionsTable };
