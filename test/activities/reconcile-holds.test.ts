/**
 * The reconcile activity against a real database: which holds it looks at, and what it does with
 * each by the state of its workflow. The engine's side is a scripted gateway (a fake, named as
 * such: the states it reports are what is under test here); the workflow that runs this activity
 * on a real server is test/workflows/reconcile.server.test.ts.
 */
import type { Selectable } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createReconcileActivities, RECONCILE_MIN_AGE_MS } from '../../activities/reconcile-holds.js';
import type { DecisionsTable } from '../../src/db/database.js';
import type { WorkflowGateway } from '../../src/temporal/gateway.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;
let agentId: string;

beforeAll(async () => {
  // Its own database: the activity reads every account's holds.
  ctx = await createTestContext({ ownDatabase: true });
  acct = await ctx.account('growth');
  const p = await acct.test.post('/v1/policies', policyBody({ budget_monthly: 1_000_000, require_approval_above: 100 }));
  agentId = (await acct.test.post('/v1/agents', { name: 'reconciled', policy_id: p.body.id })).body.id;
});
afterAll(() => ctx?.close());

/** A held request, made `ageMs` old, expiring `expiresInMs` from now. */
async function hold(ageMs: number, expiresInMs: number): Promise<string> {
  const res = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 500, currency: 'USD', vendor: 'shop.example' });
  expect(res.body.decision).toBe('held');
  const id = res.body.decision_id as string;
  await ctx.database.db
    .updateTable('decisions')
    .set({ created_at: new Date(Date.now() - ageMs), expires_at: new Date(Date.now() + expiresInMs) })
    .where('id', '=', id)
    .execute();
  return id;
}

/** What the engine says of each workflow; records every restart. */
class ScriptedEngine {
  readonly restarted: string[] = [];
  readonly asked: string[] = [];
  constructor(private readonly states: Record<string, 'running' | 'closed' | 'missing' | 'unreachable'>) {}

  get gateway(): WorkflowGateway {
    return {
      heldWorkflowState: async (decisionId: string) => {
        this.asked.push(decisionId);
        const state = this.states[decisionId] ?? 'missing';
        if (state === 'unreachable') throw new Error('engine unreachable');
        return state;
      },
      restartHeld: async (decision: Selectable<DecisionsTable>) => {
        this.restarted.push(decision.id);
        return 'started' as const;
      },
    } as unknown as WorkflowGateway;
  }
}

const statusOf = async (id: string) => (await ctx.database.db.selectFrom('decisions').select(['status', 'reason_code']).where('id', '=', id).executeTakeFirstOrThrow());
const MINUTE = 60_000;

describe('reconcileHolds activity (real database)', () => {
  test('running workflows are left alone, missing or closed ones with time left are started again, those past expiry are expired; young holds are not looked at', async () => {
    const running = await hold(10 * MINUTE, 60 * MINUTE);
    const missing = await hold(10 * MINUTE, 60 * MINUTE);
    const closed = await hold(10 * MINUTE, 60 * MINUTE);
    const overdue = await hold(10 * MINUTE, -MINUTE);
    const young = await hold(RECONCILE_MIN_AGE_MS / 2, 60 * MINUTE);
    const engine = new ScriptedEngine({ [running]: 'running', [missing]: 'missing', [closed]: 'closed', [overdue]: 'closed' });
    const logged: string[] = [];
    const log = { info: (_: unknown, msg: string) => void logged.push(msg), warn: (_: unknown, msg: string) => void logged.push(msg) };
    const activities = createReconcileActivities({ db: ctx.database.db, signer: ctx.signer, gateway: engine.gateway, log: log as never });

    const result = await activities.reconcileHolds();

    expect(result).toEqual({ checked: 4, running: 1, restarted: 2, expired: 1, failed: 0 });
    // Oldest first; the young hold is the relay's to start.
    expect(engine.asked.sort()).toEqual([running, missing, closed, overdue].sort());
    expect(engine.asked).not.toContain(young);
    expect(engine.restarted.sort()).toEqual([missing, closed].sort());
    expect(await statusOf(overdue)).toEqual({ status: 'expired', reason_code: 'approval_expired' });
    for (const id of [running, missing, closed, young]) expect((await statusOf(id)).status).toBe('pending');
    expect(logged.filter((m) => m.includes('expired a hold'))).toHaveLength(1);
    expect(logged.filter((m) => m.includes('started the workflow'))).toHaveLength(2);

    // A second run: the expired hold is no longer pending, so nothing is expired twice.
    const again = await createReconcileActivities({ db: ctx.database.db, signer: ctx.signer, gateway: new ScriptedEngine({ [running]: 'running', [missing]: 'running', [closed]: 'running' }).gateway }).reconcileHolds();
    expect(again).toEqual({ checked: 3, running: 3, restarted: 0, expired: 0, failed: 0 });
    for (const id of [running, missing, closed]) await ctx.database.db.updateTable('decisions').set({ status: 'denied' }).where('id', '=', id).execute();
  });

  test('a hold the engine cannot be asked about is counted failed and left for the next run; the others go on', async () => {
    const broken = await hold(10 * MINUTE, 60 * MINUTE);
    const fine = await hold(10 * MINUTE, 60 * MINUTE);
    const warned: string[] = [];
    const engine = new ScriptedEngine({ [broken]: 'unreachable', [fine]: 'running' });
    const result = await createReconcileActivities({ db: ctx.database.db, signer: ctx.signer, gateway: engine.gateway, log: { info: () => {}, warn: (_: unknown, m: string) => void warned.push(m) } as never }).reconcileHolds();
    expect(result).toMatchObject({ checked: 2, running: 1, failed: 1, restarted: 0, expired: 0 });
    expect(warned).toEqual(['reconciler could not handle a hold; the next run tries again']);
    expect((await statusOf(broken)).status).toBe('pending');
  });

  test('minAgeMs moves the line between the relay and the reconciler', async () => {
    const recent = await hold(30_000, 60 * MINUTE);
    const engine = new ScriptedEngine({});
    const result = await createReconcileActivities({ db: ctx.database.db, signer: ctx.signer, gateway: engine.gateway, minAgeMs: 10_000 }).reconcileHolds();
    expect(engine.asked).toContain(recent);
    expect(result.restarted).toBeGreaterThanOrEqual(1);
  });

  test('without a gateway it refuses to run', async () => {
    await expect(createReconcileActivities({ db: ctx.database.db, signer: ctx.signer }).reconcileHolds()).rejects.toThrow('reconcileHolds needs the workflow gateway');
  });
});
