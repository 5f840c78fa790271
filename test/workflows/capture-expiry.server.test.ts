/**
 * The capture-expiry sweep on a real Temporal server: the worker creates its Schedule, the sweep
 * workflow expires an approval whose capture deadline has passed (the deadline is moved back in the
 * database, since the shortest window a policy takes is 60 s), the Schedule's own run does the same,
 * and captures racing the sweep workflow settle each approval exactly once. The sweep's history is
 * recorded for the replay tests (RECORD_HISTORIES=1, scripts/record-histories.sh).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CAPTURE_EXPIRY_SCHEDULE_ID } from '../../src/temporal/periodic-jobs.js';
import type { expireUncapturedApprovalsSweep } from '../../workflows/capture-expiry.js';
import { policyBody, type TestAccount } from '../support/context.js';
import { recordHistory } from '../support/record-history.js';
import { openEngineStack, type EngineStack } from '../support/engine-stack.js';
import { serverModeOrSkip } from '../support/temporal-server.js';
import { until } from '../support/wait.js';

const mode = serverModeOrSkip('capture-expiry');

describe.skipIf(!mode)('the capture-expiry sweep on a Temporal server', () => {
  let stack: EngineStack;
  let acct: TestAccount;
  let agentId: string;
  let seq = 0;

  beforeAll(async () => {
    stack = await openEngineStack(mode!);
    acct = await stack.ctx.account('growth');
    const p = await acct.test.post('/v1/policies', policyBody({ capture_window_seconds: 60 }));
    agentId = (await acct.test.post('/v1/agents', { name: 'sweeper', policy_id: p.body.id })).body.id;
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
  });

  const temporal = () => stack.server.env.client;
  const db = () => stack.ctx.database.db;

  async function approval(amount = 100): Promise<string> {
    const res = await acct.test.post('/v1/authorize', { agent_id: agentId, amount, currency: 'USD', vendor: 'shop.example' });
    expect(res.body.decision).toBe('approved');
    return res.body.decision_id;
  }
  const deadlineAt = (id: string, at: Date) => db().updateTable('decisions').set({ capture_expires_at: at }).where('id', '=', id).execute();
  const captureStatus = async (id: string) => (await acct.test.get(`/v1/decisions/${id}`)).body.capture.status as string;
  const sweep = () =>
    temporal().workflow.execute<typeof expireUncapturedApprovalsSweep>('expireUncapturedApprovalsSweep', { taskQueue: stack.settings.taskQueue, workflowId: `capture-expiry-test-${++seq}` });
  const settlements = async (id: string) =>
    (await db().selectFrom('audit_records').select('type').where('decision_id', '=', id).where('type', 'in', ['authorization.captured', 'authorization.expired']).execute()).map((r) => r.type);

  test('the worker created the Schedule: every minute, overlapping runs skipped', async () => {
    const description = await temporal().schedule.getHandle(CAPTURE_EXPIRY_SCHEDULE_ID).describe();
    expect(description.action).toMatchObject({ workflowType: 'expireUncapturedApprovalsSweep', taskQueue: stack.settings.taskQueue });
    expect(description.spec.intervals).toEqual([expect.objectContaining({ every: 60_000 })]);
    expect(description.policies.overlap).toBe('SKIP');
  });

  test('the sweep workflow expires an approval past its deadline (released, audit record, event); a second run finds nothing', async () => {
    const id = await approval(300);
    const kept = await approval(50);
    await deadlineAt(id, new Date(Date.now() - 1_000));
    const result = await sweep();
    expect(result.expired).toBeGreaterThanOrEqual(1);
    await recordHistory(temporal(), `capture-expiry-test-${seq}`, 'capture-expiry-sweep');
    expect(await captureStatus(id)).toBe('expired');
    expect(await captureStatus(kept)).toBe('uncaptured');
    expect(await settlements(id)).toEqual(['authorization.expired']);
    const events = (await acct.test.get('/v1/events?type=authorization.expired')).body.data as any[];
    expect(events.map((e) => e.data.decision_id)).toContain(id);
    expect((await sweep()).expired).toBe(0);
  });

  test("the Schedule's own run, triggered now, expires the same way", async () => {
    const id = await approval(70);
    await deadlineAt(id, new Date(Date.now() - 1_000));
    await temporal().schedule.getHandle(CAPTURE_EXPIRY_SCHEDULE_ID).trigger();
    await until('expired by the scheduled run', async () => ((await captureStatus(id)) === 'expired' ? true : undefined), 30_000, 200);
  });

  test('captures racing the sweep workflow: each approval is settled exactly once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await approval(40));
    let captured = 0;
    for (const [i, id] of ids.entries()) {
      // The deadline falls between the two starts, one way round or the other.
      const at = new Date(Date.now() + 150 + (i % 3) * 100);
      await deadlineAt(id, at);
      await new Promise((r) => setTimeout(r, Math.max(0, at.getTime() - Date.now() - 50)));
      const [capture] = await Promise.all([acct.test.post(`/v1/decisions/${id}/capture`, { amount: 25 }), sweep()]);
      const status = await captureStatus(id);
      expect(capture.status === 200 ? 'captured' : 'expired').toBe(status);
      if (capture.status !== 200) expect(capture.status).toBe(409);
      else captured += 1;
      expect(await settlements(id)).toHaveLength(1);
    }
    const spend = await db().selectFrom('agent_spend').select('approved').where('agent_id', '=', agentId).where('period', 'like', 'M:%').executeTakeFirstOrThrow();
    // The two earlier tests left one uncaptured 50; everything else they made expired.
    expect(Number(spend.approved)).toBe(50 + 25 * captured);
  }, 60_000);
});
