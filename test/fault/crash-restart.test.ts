import { describe, expect, test } from 'vitest';
import { createAccount } from '../../src/accounts/accounts.service.js';
import { budgetAgents, expectSpendWithinBudget, useKillableServe } from '../support/killable-serve.js';
import { freePort, startServe } from '../support/serve-process.js';

const url = process.env.DATABASE_URL;
if (!url) console.log('[fault] crash-restart skipped: needs DATABASE_URL (a server another process can share)');

const AGENTS = 20;
const BUDGET = 3_000; // 30 approvals of 100 per agent
const AMOUNT = 100;

describe.skipIf(!url)('kill -9 of the API under load', () => {
  const stack = useKillableServe(url);

  test('every 200 the client saw has its decision and audit record; no agent is over budget; the chain verifies', async () => {
    const { database } = stack;
    const { keys, account } = await createAccount(database.db, { name: 'crash', plan: 'enterprise', rateLimit: 1_000_000 });
    const key = keys.live!;
    const port = freePort();
    stack.serve = await startServe(url!, port);
    const h = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const agents = await budgetAgents(stack.serve.base, h, AGENTS, BUDGET);

    const seen: { decision_id: string; decision: string }[] = [];
    let failures = 0;
    let stop = false;
    const worker = async () => {
      while (!stop) {
        try {
          const res = await fetch(`${stack.serve!.base}/v1/authorize`, {
            method: 'POST',
            headers: h,
            body: JSON.stringify({ agent_id: agents[Math.floor(Math.random() * AGENTS)], amount: AMOUNT, currency: 'USD', vendor: 'v.example' }),
          });
          if (res.status === 200) seen.push(await res.json());
        } catch {
          failures += 1; // the process died under this request
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    };
    const load = Array.from({ length: 24 }, worker);
    await new Promise((r) => setTimeout(r, 1_500));
    await stack.serve.stop('SIGKILL');
    await new Promise((r) => setTimeout(r, 300));
    stop = true;
    await Promise.all(load);
    expect(seen.length).toBeGreaterThan(50);
    expect(failures).toBeGreaterThan(0);

    stack.serve = await startServe(url!, port);
    const ids = seen.map((d) => d.decision_id);
    const decisions = await database.db.selectFrom('decisions').select(['id', 'decision']).where('id', 'in', ids).execute();
    expect(decisions).toHaveLength(ids.length);
    const byId = new Map(decisions.map((d) => [d.id, d.decision]));
    for (const d of seen) expect(byId.get(d.decision_id)).toBe(d.decision);
    const audited = await database.db.selectFrom('audit_records').select('decision_id').where('type', '=', 'authorization.decision').where('decision_id', 'in', ids).execute();
    expect(new Set(audited.map((a) => a.decision_id)).size).toBe(ids.length);
    expect(audited).toHaveLength(ids.length);

    await expectSpendWithinBudget(database, account.id, AGENTS, BUDGET);

    const verify = await (await fetch(`${stack.serve.base}/v1/audit-logs/verify`, { headers: h })).json();
    expect(verify.valid).toBe(true);
    expect(verify.records).toBeGreaterThanOrEqual(ids.length);
  }, 120_000);
});
