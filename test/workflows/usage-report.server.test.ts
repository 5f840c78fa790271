/**
 * The usage-report Schedule and workflow on a real Temporal server, with the real activities
 * against the test database and a real HTTP meter on 127.0.0.1.
 *
 * Runs only when a server is at hand (TEMPORAL_ADDRESS, TEMPORAL_CLI_PATH or
 * TEMPORAL_TEST_SERVER_PATH; see test/support/temporal-server.ts), and never downloads one.
 * Schedules are not supported by the time-skipping test server: those tests need one of the others.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundle } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createUsageReportActivities } from '../../activities/usage-report.js';
import { ensurePeriodicJob, USAGE_REPORT_JOB } from '../../src/temporal/periodic-jobs.js';
import { previousMonth } from '../../src/usage/month.js';
import type { usageReport } from '../../workflows/usage-report.js';
import type { UsageReportResult } from '../../workflows/usage-report.types.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { sharedWorkflowBundle } from '../support/shared-temporal.js';
import { openServer, serverModeOrSkip, type ServerEnvironment } from '../support/temporal-server.js';

const WORKFLOWS_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../workflows/index.ts');

const mode = serverModeOrSkip('workflows: usage report');

describe.skipIf(!mode)(`usageReport on a Temporal server (${mode?.kind ?? 'none'})`, () => {
  let temporalServer: ServerEnvironment;
  let env: TestWorkflowEnvironment;
  let ctx: TestContext;
  let workflowBundle: WorkflowBundle;
  let meter: { url: string; requests: Array<{ key: string | undefined; body: any }>; script: Array<{ status: number; retryAfter?: string }>; server: http.Server };
  const suffix = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  const taskQueue = `usage-report-test-${suffix}`;

  beforeAll(async () => {
    temporalServer = await openServer(mode!);
    env = temporalServer.env;
    ctx = await createTestContext();
    workflowBundle = await sharedWorkflowBundle({ workflowsPath: WORKFLOWS_PATH });
    const requests: Array<{ key: string | undefined; body: any }> = [];
    const script: Array<{ status: number; retryAfter?: string }> = [];
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        requests.push({ key: req.headers['idempotency-key'] as string | undefined, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        const step = script.shift() ?? { status: 200 };
        res.writeHead(step.status, step.retryAfter ? { 'retry-after': step.retryAfter } : {}).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    meter = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/meter`, requests, script, server };
  }, 120_000);

  afterAll(async () => {
    meter?.server.close();
    await ctx?.close();
    await temporalServer?.teardown();
  });

  /** A worker on this test's task queue with the real activities, for the duration of `fn`. */
  async function withWorker<T>(fn: () => Promise<T>): Promise<T> {
    const activities = createUsageReportActivities({ db: ctx.database.db, billingMeter: { url: meter.url, apiKey: 'k' } });
    const worker = await Worker.create({ connection: env.nativeConnection, namespace: env.namespace ?? 'default', taskQueue, workflowBundle, activities });
    return worker.runUntil(fn);
  }

  test('reports each account once: a 429 with Retry-After is retried after it; a second run sends nothing', async () => {
    const month = '2025-05';
    const acct = await ctx.account('growth');
    await ctx.database.db.insertInto('usage_counters').values({ account_id: acct.id, month, shard: 1, checks: 42 }).execute();
    meter.script.push({ status: 429, retryAfter: '1' });

    const run = (n: number) =>
      env.client.workflow.execute<typeof usageReport>('usageReport', { taskQueue, workflowId: `usage-report-test-${suffix}-${n}`, args: [{ month }] });
    const first: UsageReportResult = await withWorker(() => run(1));
    expect(first).toMatchObject({ month, failed: 0 });
    expect(first.accepted).toBeGreaterThanOrEqual(1);
    const mine = meter.requests.filter((r) => r.body.account_id === acct.id);
    expect(mine).toHaveLength(2);
    for (const r of mine) {
      expect(r.key).toBe(`${acct.id}:${month}`);
      expect(r.body).toEqual({ account_id: acct.id, month, quantity: 42, idempotency_key: `${acct.id}:${month}` });
    }

    const before = meter.requests.length;
    const second = await withWorker(() => run(2));
    expect(second).toMatchObject({ month, accounts: 0, accepted: 0 });
    expect(meter.requests.length).toBe(before);
  });

  test.skipIf(mode?.kind === 'time-skipping')('the Schedule is created once, updated on every later start, and bills the month before its run', async () => {
    const scheduleId = `usage-report-test-${suffix}`;
    expect(await ensurePeriodicJob(env.client, USAGE_REPORT_JOB, taskQueue, scheduleId)).toBe('created');
    expect(await ensurePeriodicJob(env.client, USAGE_REPORT_JOB, taskQueue, scheduleId)).toBe('updated');
    const handle = env.client.schedule.getHandle(scheduleId);
    try {
      const description = await handle.describe();
      expect(description.spec.timezone).toBe('UTC');
      expect(description.spec.calendars).toEqual([
        expect.objectContaining({
          dayOfMonth: [{ start: 1, end: 1, step: 1 }],
          hour: [{ start: 0, end: 0, step: 1 }],
          minute: [{ start: 5, end: 5, step: 1 }],
        }),
      ]);
      expect(description.policies).toMatchObject({ overlap: 'BUFFER_ONE', catchupWindow: 7 * 86_400_000 });
      expect(description.action).toMatchObject({ workflowType: 'usageReport', taskQueue, args: [{}] });
      const next = description.info.nextActionTimes[0]!;
      expect(next.getUTCDate()).toBe(1);
      expect([next.getUTCHours(), next.getUTCMinutes()]).toEqual([0, 5]);

      // Triggered now, the run bills the month before now.
      const before = previousMonth(new Date());
      const result = await withWorker(async () => {
        await handle.trigger();
        for (;;) {
          const started = (await handle.describe()).info.recentActions[0];
          if (started) return env.client.workflow.getHandle(started.action.workflow.workflowId, started.action.workflow.firstExecutionRunId).result();
          await new Promise((r) => setTimeout(r, 200));
        }
      });
      expect([before, previousMonth(new Date())]).toContain(result.month);
    } finally {
      await handle.delete();
    }
  });
});
