// A `serve` process that a fault test kills and starts again over one shared PostgreSQL database,
// and the checks such tests make of what the kill left behind.
import { sql } from 'kysely';
import { afterAll, beforeAll, expect } from 'vitest';
import { connectDatabase, type Database } from '../../src/db/connect.js';
import type { ServeProcess } from './serve-process.js';
import { useTestAuditKey } from './server-keys.js';

/** The test's own connection to the database, and the `serve` process it starts, kills and restarts (set by the test). */
export interface KillableServe {
  database: Database;
  serve?: ServeProcess;
}

/** For a describe block: opens the database before its tests; after them kills whatever `serve` is left and closes it. */
export function useKillableServe(databaseUrl: string | undefined): KillableServe {
  const stack = {} as KillableServe;
  beforeAll(async () => {
    useTestAuditKey();
    stack.database = await connectDatabase({ databaseUrl: databaseUrl!, poolSize: 4 });
  });
  afterAll(async () => {
    await stack.serve?.stop('SIGKILL');
    await stack.database?.close();
  });
  return stack;
}

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
