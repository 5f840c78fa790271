/**
 * `spend-auth worker` as a real process against a real Temporal server, with
 * TEMPORAL_SDK_METRICS_PORT set: the SDK's Core metrics (pollers, slots, task latencies) are served
 * in Prometheus format on that port, for each of the worker's three task queues, beside the
 * service's own /metrics on METRICS_PORT.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createScratchDatabase } from '../support/context.js';
import { freePort, spawnSpendAuth as spendAuth } from '../support/serve-process.js';
import { openServer, serverModeOrSkip, type ServerEnvironment } from '../support/temporal-server.js';
import { until } from '../support/wait.js';

const mode = serverModeOrSkip('sdk metrics');

describe.skipIf(!mode)('the worker process exports the Temporal SDK metrics on TEMPORAL_SDK_METRICS_PORT', () => {
  let server: ServerEnvironment;
  let database: { url: string; drop(): Promise<void> } | undefined;
  let env: Record<string, string>;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spend-auth-sdk-metrics-'));

  beforeAll(async () => {
    server = await openServer(mode!);
    // A database of this file's own: the worker's outbox relay must not carry other files' rows.
    database = process.env.DATABASE_URL ? await createScratchDatabase(process.env.DATABASE_URL) : undefined;
    env = {
      ...(database ? { DATABASE_URL: database.url } : {}),
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_NAMESPACE: server.namespace,
    };
    const migrate = spendAuth('migrate', env);
    expect(await migrate.exited, migrate.stderr()).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await server?.teardown();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('temporal_ series for the three task queues on the SDK port; the service metrics stay on METRICS_PORT; SIGTERM exits 0', { timeout: 90_000 }, async () => {
    const [metricsPort, sdkPort] = [freePort(), freePort()];
    const worker = spendAuth('worker', { ...env, METRICS_PORT: String(metricsPort), TEMPORAL_SDK_METRICS_PORT: String(sdkPort) });
    try {
      const body = await until(
        'SDK metrics with the pollers of every task queue',
        async () => {
          if (worker.child.exitCode !== null) throw new Error(`worker exited with ${worker.child.exitCode}: ${worker.stderr()}`);
          const res = await fetch(`http://127.0.0.1:${sdkPort}/metrics`);
          const text = await res.text();
          const queues = ['spend-authorization', 'spend-authorization-webhooks', 'spend-authorization-billing'];
          // Each queue's worker reports its slots once it has started polling: wait for all three.
          const slotsOf = (q: string) => new RegExp(`^temporal_worker_task_slots_available\\{[^}]*task_queue="${q}"[^}]*worker_type="ActivityWorker"`, 'm').test(text);
          return res.ok && queues.every(slotsOf) && /^temporal_num_pollers\{/m.test(text) ? text : undefined;
        },
        60_000,
        250,
      );
      expect(body).toMatch(/^temporal_worker_task_slots_available\{.*task_queue="spend-authorization-webhooks"/m);
      expect(body).toMatch(/^temporal_request(_total)?\{/m);
      // Activity slots as configured per queue: 8 held, 8 webhooks, 2 billing.
      const slots = (queue: string) => Number(new RegExp(`^temporal_worker_task_slots_available\\{[^}]*task_queue="${queue}"[^}]*worker_type="ActivityWorker"[^}]*\\} (\\d+)`, 'm').exec(body)?.[1]);
      expect([slots('spend-authorization'), slots('spend-authorization-webhooks'), slots('spend-authorization-billing')]).toEqual([8, 8, 2]);

      const own = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(own).toContain('webhook_attempts_total');
      expect(own).not.toContain('temporal_num_pollers');
    } finally {
      worker.child.kill('SIGTERM');
      expect(await worker.exited, worker.stderr()).toBe(0);
    }
  });

  test('a TEMPORAL_SDK_METRICS_PORT that is taken stops the worker with a line naming the setting', { timeout: 60_000 }, async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const worker = spendAuth('worker', { ...env, METRICS_PORT: String(freePort()), TEMPORAL_SDK_METRICS_PORT: String(port) });
      const code = await Promise.race([worker.exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 30_000))]);
      if (code === 'running') worker.child.kill('SIGKILL');
      expect(code).toBe(1);
      expect(worker.stderr()).toContain('TEMPORAL_SDK_METRICS_PORT');
    } finally {
      taken.close();
    }
  });
});
