/**
 * Webhook delivery and the monthly billing report on a real Temporal server: the real workflows
 * and activities, a real webhook receiver and a real billing meter on 127.0.0.1.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { verifyWebhookSignature } from '../../src/webhooks/signature.js';
import { ScheduleOverlapPolicy } from '@temporalio/client';
import { ensurePeriodicJob, USAGE_REPORT_JOB, USAGE_REPORT_SCHEDULE_ID } from '../../src/temporal/periodic-jobs.js';
import { taskQueues } from '../../src/temporal/task-queues.js';
import { ACTIVITY_SLOTS } from '../../src/temporal/worker.js';
import type { UsageReportResult } from '../../workflows/usage-report.types.js';
import type { usageReport } from '../../workflows/usage-report.js';
import { policyBody, type TestAccount } from '../support/context.js';
import { openEngineStack, type EngineStack } from '../support/engine-stack.js';
import { startReceiver } from '../support/receiver.js';
import { recordHistory } from '../support/record-history.js';
import { serverModeOrSkip } from '../support/temporal-server.js';
import { until } from '../support/wait.js';

const mode = serverModeOrSkip('webhooks and billing');

interface MeterRequest {
  key: string | undefined;
  authorization: string | undefined;
  body: any;
}

/** A billing meter on 127.0.0.1 that answers from a script (then 200), recording every request. */
async function startMeter() {
  const requests: MeterRequest[] = [];
  const script: Array<{ status: number; retryAfter?: string }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ key: req.headers['idempotency-key'] as string | undefined, authorization: req.headers.authorization, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      const step = script.shift() ?? { status: 200 };
      res.writeHead(step.status, step.retryAfter ? { 'retry-after': step.retryAfter } : {}).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/meter`,
    requests,
    script,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.skipIf(!mode)('webhook delivery and billing on a Temporal server', () => {
  let stack: EngineStack;
  let meter: Awaited<ReturnType<typeof startMeter>>;
  let acct: TestAccount;
  let agentId: string;

  beforeAll(async () => {
    meter = await startMeter();
    stack = await openEngineStack(mode!, { deps: { billingMeter: { url: meter.url, apiKey: 'meter-key' } } });
    acct = await stack.ctx.account('growth');
    const policy = await acct.test.post('/v1/policies', policyBody());
    agentId = (await acct.test.post('/v1/agents', { name: 'hook bot', policy_id: policy.body.id })).body.id;
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await meter?.close();
  });

  const temporal = () => stack.server.env.client;

  async function approvedEventTo(url: string) {
    const endpoint = await acct.test.post('/v1/webhook-endpoints', { url, events: ['authorize.approved'] });
    expect(endpoint.status).toBe(201);
    const approved = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 100, currency: 'USD', vendor: 'hooks.example' });
    expect(approved.body.decision).toBe('approved');
    return { endpoint: endpoint.body, decisionId: approved.body.decision_id as string };
  }

  async function deliveryOf(endpointId: string, done: (d: any) => boolean) {
    return until(`delivery to ${endpointId}`, async () => {
      const list = await acct.test.get(`/v1/webhook-endpoints/${endpointId}/deliveries`);
      const d = list.body.data?.[0];
      return d && done(d) ? d : undefined;
    }, 60_000, 200);
  }

  test('a receiver that fails three times (503, Retry-After: 1) then answers 200: delivered, every attempt recorded, the same signed bytes each time', async () => {
    const receiver = await startReceiver((_req, n) => (n <= 3 ? { status: 503, headers: { 'retry-after': '1' } } : { status: 200 }));
    try {
      const { endpoint, decisionId } = await approvedEventTo(receiver.url);
      const delivery = await deliveryOf(endpoint.id, (d) => d.status !== 'pending');

      expect(delivery).toMatchObject({ status: 'delivered', attempt_count: 4, last_status_code: 200, last_error: null });
      expect(delivery.attempts.map((a: any) => a.status_code).sort()).toEqual([200, 503, 503, 503]);
      expect(receiver.received).toHaveLength(4);
      const bodies = new Set(receiver.received.map((r) => r.body));
      expect(bodies.size).toBe(1);
      for (const r of receiver.received) {
        expect(verifyWebhookSignature(r.body, r.headers['x-service-signature'] as string, endpoint.secret)).toBe(true);
        expect(r.headers['x-service-delivery']).toBe(delivery.event_id);
      }
      expect(JSON.parse(receiver.received[0]!.body)).toMatchObject({ id: delivery.event_id, event: 'authorize.approved', data: { decision_id: decisionId } });
      const workflowId = `webhook-${delivery.event_id}-${endpoint.id}`;
      expect(await temporal().workflow.getHandle(workflowId).result()).toBe('delivered');
      expect((await temporal().workflow.getHandle(workflowId).describe()).taskQueue).toBe(taskQueues(stack.settings.taskQueue).webhooks);
      await recordHistory(temporal(), workflowId, 'webhook-delivered-after-retries');
    } finally {
      await acct.test.delete(`/v1/webhook-endpoints/${(await acct.test.get('/v1/webhook-endpoints')).body.data[0].id}`);
      await receiver.close();
    }
  });

  test('a receiver that answers 410: failed for good after one attempt, with its reason', async () => {
    const receiver = await startReceiver(() => ({ status: 410 }));
    try {
      const { endpoint } = await approvedEventTo(receiver.url);
      const delivery = await deliveryOf(endpoint.id, (d) => d.status !== 'pending');
      expect(delivery).toMatchObject({ status: 'failed', attempt_count: 1, last_status_code: 410 });
      expect(delivery.last_error).toMatch(/410/);
      const workflowId = `webhook-${delivery.event_id}-${endpoint.id}`;
      expect(await temporal().workflow.getHandle(workflowId).result()).toBe('failed');
      await recordHistory(temporal(), workflowId, 'webhook-failed');

      // The same delivery run again (a second workflow for it): settled as failed, it says so.
      const rerun = await temporal().workflow.execute('webhookDelivery', { taskQueue: stack.settings.taskQueue, workflowId: `${workflowId}-rerun`, args: [{ deliveryId: delivery.id }] });
      expect(rerun).toBe('failed');
      expect(receiver.received).toHaveLength(1);
      await acct.test.delete(`/v1/webhook-endpoints/${endpoint.id}`);
    } finally {
      await receiver.close();
    }
  });

  test('the worker created the monthly billing Schedule when it started', async () => {
    const description = await temporal().schedule.getHandle(USAGE_REPORT_SCHEDULE_ID).describe();
    // On the billing queue of its own (the held queue still runs all workflows, for older runs).
    expect(description.action).toMatchObject({ workflowType: 'usageReport', taskQueue: taskQueues(stack.settings.taskQueue).billing });
    expect(description.spec.timezone).toBe('UTC');
    expect(description.state.paused).toBe(false);
    expect(description.info.nextActionTimes[0]!.getUTCDate()).toBe(1);
  });

  test('a run for a month reports each live account to the meter once: 5xx answers are retried, a second run reports nothing', async () => {
    const month = '2025-06';
    const live = await stack.ctx.account('growth');
    await stack.ctx.database.db.insertInto('usage_counters').values({ account_id: live.id, month, shard: 0, checks: 1_234 }).execute();
    meter.script.push({ status: 503, retryAfter: '1' }, { status: 503, retryAfter: '1' });
    const before = meter.requests.length;

    const runReport = (n: number) =>
      temporal().workflow.execute<typeof usageReport>('usageReport', { taskQueue: taskQueues(stack.settings.taskQueue).billing, workflowId: `usage-report-${month}-test-${n}`, args: [{ month }] });
    const first = await runReport(1);
    expect(first).toMatchObject({ month, failed: 0, accepted: 1 });
    const sent = meter.requests.slice(before);
    expect(sent).toHaveLength(3);
    for (const r of sent) {
      expect(r.key).toBe(`${live.id}:${month}`);
      expect(r.authorization).toBe('Bearer meter-key');
      expect(r.body).toMatchObject({ account_id: live.id, month, quantity: 1_234 });
    }
    await recordHistory(temporal(), `usage-report-${month}-test-1`, 'usage-report-retried');

    const second = await runReport(2);
    expect(second).toMatchObject({ month, accounts: 0, accepted: 0 });
    expect(meter.requests.length).toBe(before + 3);
  }, 120_000);

  test('the Schedule paused across a month boundary: the next run reports its own month and the missed one, each once', async () => {
    const live = await stack.ctx.account('growth');
    // August was never reported (the Schedule was paused over 1 September); September is due now.
    await stack.ctx.database.db.insertInto('usage_counters').values([
      { account_id: live.id, month: '2025-08', shard: 0, checks: 800 },
      { account_id: live.id, month: '2025-09', shard: 0, checks: 900 },
    ]).execute();
    const scheduleId = `usage-report-paused-${Date.now().toString(36)}`;
    await ensurePeriodicJob(temporal(), USAGE_REPORT_JOB, taskQueues(stack.settings.taskQueue).billing, scheduleId);
    const handle = temporal().schedule.getHandle(scheduleId);
    try {
      // Paused over 1 September (so August's run never happened), then unpaused: a Schedule does
      // not run what fell due while it was paused.
      await handle.pause('billing maintenance');
      expect((await handle.describe()).state.paused).toBe(true);
      await handle.unpause('maintenance over');
      const before = meter.requests.length;
      const runAt = async (at: Date) => {
        // Every run of one scheduled time has the same workflow id: tell them apart by run id.
        const seen = new Set((await handle.describe()).info.recentActions.map((a) => a.action.workflow.firstExecutionRunId));
        await handle.backfill({ start: new Date(at.getTime() - 60_000), end: new Date(at.getTime() + 60_000), overlap: ScheduleOverlapPolicy.ALLOW_ALL });
        const action = await until('backfilled run started', async () => (await handle.describe()).info.recentActions.find((a) => !seen.has(a.action.workflow.firstExecutionRunId)), 30_000, 200);
        return temporal().workflow.getHandle(action.action.workflow.workflowId, action.action.workflow.firstExecutionRunId).result() as Promise<UsageReportResult>;
      };
      // The next run, due on 1 October 00:05 UTC (played here by a backfill), bills September and catches up August.
      const result = await runAt(new Date('2025-10-01T00:05:00Z'));
      expect(result).toMatchObject({ month: '2025-09', accepted: 1, failed: 0 });
      expect(result.earlierMonths).toEqual([expect.objectContaining({ month: '2025-08', accepted: 1, failed: 0 })]);
      const sent = meter.requests.slice(before).map((r) => r.key).sort();
      expect(sent).toEqual([`${live.id}:2025-08`, `${live.id}:2025-09`]);

      // Run again: both months are settled, nothing is sent twice.
      const again = await runAt(new Date('2025-10-01T00:05:00Z'));
      expect(again).toMatchObject({ month: '2025-09', accounts: 0 });
      expect(again.earlierMonths).toEqual([]);
      expect(meter.requests.length).toBe(before + 2);
    } finally {
      await handle.delete();
    }
  }, 120_000);

  test('unsettled reports are counted in /metrics (usage_reports_unsettled)', async () => {
    const metrics = await stack.ctx.raw('/metrics');
    expect(metrics.text).toMatch(/^usage_reports_unsettled \d+$/m);
  });

  test('a webhook storm fills only the webhooks queue: approvals go through while every webhook slot hangs', async () => {
    const hanging = await startReceiver(() => ({ status: 200, hang: true }));
    try {
      const endpoint = await acct.test.post('/v1/webhook-endpoints', { url: hanging.url, events: ['authorize.approved'] });
      for (let i = 0; i < ACTIVITY_SLOTS.webhooks + 6; i++) {
        await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 10, currency: 'USD', vendor: 'storm.example' });
      }
      // Every webhook slot is taken by a receiver that does not answer.
      await until('webhook slots full', async () => (hanging.received.length >= ACTIVITY_SLOTS.webhooks ? true : undefined), 60_000, 200);

      const p = await acct.test.post('/v1/policies', policyBody({ require_approval_above: 100 }));
      const heldAgentId = (await acct.test.post('/v1/agents', { name: 'storm reviewer', policy_id: p.body.id })).body.id;
      const held = await acct.test.post('/v1/authorize', { agent_id: heldAgentId, amount: 500, currency: 'USD', vendor: 'shop.example' });
      const approved = await acct.test.post(`/v1/approvals/${held.body.decision_id}/approve`);
      expect(approved.status).toBe(200);
      expect(approved.body).toMatchObject({ status: 'approved' });
      // The storm is still stuck: the approval did not wait for it.
      expect(hanging.received.length).toBeLessThanOrEqual(ACTIVITY_SLOTS.webhooks);
      await acct.test.delete(`/v1/webhook-endpoints/${endpoint.body.id}`);
    } finally {
      await hanging.close();
    }
  }, 120_000);
});
