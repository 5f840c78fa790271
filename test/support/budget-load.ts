import { sql } from 'kysely';
import { expect } from 'vitest';
import type { Database } from '../../src/db/connect.js';

/** One policy with a monthly budget and `count` agents under it, made through a running API. */
export async function budgetAgents(base: string, headers: Record<string, string>, count: number, budget: number): Promise<string[]> {
  const policy = await (await fetch(`${base}/v1/policies`, { method: 'POST', headers, body: JSON.stringify({ name: 'p', budget_monthly: budget, budget_single_max: 1_000 }) })).json();
  const agents: string[] = [];
  for (let i = 0; i < count; i++) {
    agents.push((await (await fetch(`${base}/v1/agents`, { method: 'POST', headers, body: JSON.stringify({ name: `a${i}`, policy_id: policy.id }) })).json()).id);
  }
  return agents;
}

/** Every agent of the account: its spend counter equals its approved decisions, and neither is over budget. */
export async function expectSpendWithinBudget(database: Database, accountId: string, agents: number, budget: number): Promise<void> {
  const spend = await sql<{ agent_id: string; approved: number; ledger: number }>`
    SELECT a.id AS agent_id,
      coalesce((SELECT approved FROM agent_spend s WHERE s.agent_id = a.id AND s.period LIKE 'M:%'), 0) AS approved,
      coalesce((SELECT sum(amount) FROM decisions d WHERE d.agent_id = a.id AND d.decision = 'approved'), 0) AS ledger
    FROM agents a WHERE a.account_id = ${accountId}`.execute(database.db);
  expect(spend.rows).toHaveLength(agents);
  for (const row of spend.rows) {
    expect(Number(row.approved)).toBeLessThanOrEqual(budget);
    expect(Number(row.approved)).toBe(Number(row.ledger));
  }
}
