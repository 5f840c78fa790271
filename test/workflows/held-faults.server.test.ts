/**
 * Held requests survive the engine's faults, on a real Temporal server: the engine down when the
 * request is held, the worker killed with SIGKILL while holds wait, and the server restarted
 * mid-wait (SQLite persistence). Nothing is lost and approval works afterwards.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createLogger } from '../../src/kernel/logger.js';
import { EngineMonitor } from '../../src/temporal/engine-status.js';
import type { WorkflowGateway } from '../../src/temporal/gateway.js';
import { heldWorkflowId } from '../../src/temporal/ids.js';
import { OutboxRelay } from '../../src/temporal/outbox-relay.js';
import { policyBody, type TestAccount } from '../support/context.js';
import { freePort, startDevServer, tempDbFile } from '../support/dev-server.js';
import { openEngineStack, type EngineStack } from '../support/engine-stack.js';
import { serverModeOrSkip } from '../support/temporal-server.js';
import { until, within } from '../support/wait.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const mode = serverModeOrSkip('held faults');
// These tests stop and start the server themselves: they need the CLI, not an existing server.
const cli = mode?.kind === 'dev-server' ? mode.path : undefined;
if (mode && !cli) console.log('[held faults] skipped: needs TEMPORAL_CLI_PATH (the tests restart the dev server)');

/** A reviewer retries a 503 (engine not answering yet) as the API tells them to. */
async function approveRetrying(acct: TestAccount, id: string, timeoutMs = 60_000) {
  return until(`approval of ${id}`, async () => {
    const res = await acct.test.post(`/v1/approvals/${id}/approve`, { note: 'after the fault' });
    if (res.status === 503) return undefined;
    return res;
  }, timeoutMs, 500);
}

async function heldRequest(acct: TestAccount): Promise<string> {
  const p = await acct.test.post('/v1/policies', policyBody({ require_approval_above: 100 }));
  const agentId = (await acct.test.post('/v1/agents', { name: 'fault bot', policy_id: p.body.id })).body.id;
  const res = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 900, currency: 'USD', vendor: 'faults.example' });
  expect(res.body).toMatchObject({ decision: 'held', status: 'pending' });
  return res.body.decision_id;
}

describe.skipIf(!cli)('held requests through engine faults', () => {
  test('engine down at authorize: still held; once the engine is up the relay starts the workflow and approval works', async () => {
    const port = await freePort();
    const address = `127.0.0.1:${port}`;
    const stack = await openEngineStack(mode!, {
      address,
      noWorker: true,
      // No server yet: this placeholder is replaced once the engine is started below.
      server: { address, namespace: 'default', env: undefined as unknown as TestWorkflowEnvironment, teardown: async () => {} },
    });
    let server: Awaited<ReturnType<typeof startDevServer>> | undefined;
    try {
      const acct = await stack.ctx.account('growth');
      const id = await heldRequest(acct);
      // The relay tried and backed off; the row waits in the outbox.
      const row = await until('relay attempt recorded', async () => {
        const r = await stack.ctx.database.db.selectFrom('outbox').selectAll().where('ref_id', '=', id).executeTakeFirst();
        return r && r.attempts > 0 ? r : undefined;
      });
      expect(row).toMatchObject({ topic: 'held_decision', processed_at: null });
      const down = await acct.test.post(`/v1/approvals/${id}/approve`);
      expect(down.status).toBe(503);
      expect(down.body.error.code).toBe('service_unavailable');
      expect((await acct.test.get(`/v1/decisions/${id}`)).body.status).toBe('pending');

      server = await startDevServer({ cliPath: cli!, port });
      await stack.startWorker();
      const env = await TestWorkflowEnvironment.createFromExistingServer({ address, namespace: 'default' });
      try {
        const handle = env.client.workflow.getHandle(heldWorkflowId(id));
        await until('workflow started from the outbox', async () => ((await handle.describe()).status.name === 'RUNNING' ? true : undefined), 90_000, 500);
        const approved = await approveRetrying(acct, id);
        expect(approved.status).toBe(200);
        expect(approved.body).toMatchObject({ status: 'approved' });
        expect(approved.body.authorization_token).toMatch(/^gca_/);
        expect(await handle.result()).toMatchObject({ status: 'approved' });
      } finally {
        await env.teardown();
      }
    } finally {
      await stack.close();
      await server?.stop();
    }
  }, 180_000);

  describe('with a running engine', () => {
    let stack: EngineStack;
    let acct: TestAccount;
    const db = tempDbFile('held-faults');

    beforeAll(async () => {
      stack = await openEngineStack(mode!, { dbFile: db.file, noWorker: true });
      acct = await stack.ctx.account('growth');
    }, 120_000);
    afterAll(async () => {
      await stack?.close();
      db.remove();
    });

    const handleOf = (id: string) => stack.server.env.client.workflow.getHandle(heldWorkflowId(id));
    const waiting = (id: string) =>
      until(`workflow of ${id} waiting`, async () => {
        const d = await handleOf(id).describe();
        return d.status.name === 'RUNNING' && d.historyLength >= 3 ? true : undefined;
      }, 60_000);

    test('worker killed with SIGKILL while holds wait; a new worker takes over and approval works, nothing lost', async () => {
      let child: ChildProcess | undefined;
      try {
        child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/support/worker-process.ts')], {
          cwd: ROOT,
          env: { ...process.env, TEMPORAL_ADDRESS: stack.server.address, TEMPORAL_NAMESPACE: stack.server.namespace, TEMPORAL_TASK_QUEUE: stack.settings.taskQueue, WORKER_DATABASE_URL: stack.ctx.databaseUrl ?? '' },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        await new Promise<void>((resolve, reject) => {
          child!.stdout!.on('data', (c: Buffer) => c.toString().includes('ready') && resolve());
          child!.once('exit', (code) => reject(new Error(`worker process exited early (${code})`)));
        });
        const ids = [await heldRequest(acct), await heldRequest(acct)];
        for (const id of ids) await waiting(id);

        child.kill('SIGKILL');
        await new Promise((resolve) => child!.once('exit', resolve));
        await stack.startWorker();

        const approved = await approveRetrying(acct, ids[0]!);
        expect(approved.status).toBe(200);
        expect(approved.body).toMatchObject({ status: 'approved' });
        expect(await handleOf(ids[0]!).result()).toMatchObject({ status: 'approved' });
        // The other hold is still there, still waiting, and still resolvable.
        expect((await acct.test.get(`/v1/decisions/${ids[1]}`)).body.status).toBe('pending');
        const denied = await acct.test.post(`/v1/approvals/${ids[1]}/deny`);
        expect(denied.status).toBe(200);
        expect(await handleOf(ids[1]!).result()).toMatchObject({ status: 'denied' });
      } finally {
        if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await stack.stopWorker();
      }
    }, 180_000);

    test('the engine stops in the middle of a relay batch: one line logged, nothing lost, each workflow started once', async () => {
      await stack.relay.stop();
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) ids.push(await heldRequest(acct));
      const lines: Array<{ level: number; msg: string }> = [];
      const log = createLogger('info', 'relay-test', { write: (line: string) => void lines.push(JSON.parse(line)) });
      const engine = new EngineMonitor({ address: stack.server.address, probe: async () => {}, log });
      // The real gateway: the first three starts go through; the others, carried at the same time,
      // reach the engine only once it has gone away in the middle of the batch.
      let answered = 0;
      let threeAnswered!: () => void;
      const three = new Promise<void>((resolve) => (threeAnswered = resolve));
      let engineGone!: () => void;
      const gone = new Promise<void>((resolve) => (engineGone = resolve));
      let calls = 0;
      const slow: WorkflowGateway = Object.create(stack.ctx.gateway, {
        startHeld: {
          value: async (d: Parameters<WorkflowGateway['startHeld']>[0]) => {
            if ((calls += 1) > 3) await gone;
            const started = await stack.ctx.gateway.startHeld(d);
            if ((answered += 1) === 3) threeAnswered();
            return started;
          },
        },
      });
      const relay = new OutboxRelay({ db: stack.ctx.database.db, gateway: slow, log, engine });
      const processed = async () => (await stack.ctx.database.db.selectFrom('outbox').select('ref_id').where('ref_id', 'in', ids).where('topic', '=', 'held_decision').where('processed_at', 'is not', null).execute()).length;

      const batch = relay.tick();
      await three;
      await stack.server.devServer!.stop();
      engineGone();
      await batch;
      // The three the engine answered are done; the others are backed off, none lost.
      expect(await processed()).toBe(3);

      await stack.server.devServer!.restart();
      await stack.startWorker();
      try {
        await until('every row carried', async () => {
          await relay.tick(new Date(Date.now() + 120_000));
          return (await processed()) === ids.length ? true : undefined;
        }, 90_000, 500);
        for (const id of ids) {
          const runs = [];
          for await (const w of stack.server.env.client.workflow.list({ query: `WorkflowId = "${heldWorkflowId(id)}"` })) runs.push(w);
          expect(runs, id).toHaveLength(1);
        }
        expect(lines.filter((l) => l.msg.startsWith('workflow engine unreachable'))).toHaveLength(1);
        expect(lines.filter((l) => l.msg === 'workflow engine reachable again')).toHaveLength(1);
      } finally {
        engine.stop();
        await stack.stopWorker();
        stack.relay.start();
      }
    }, 180_000);

    test('the Temporal server restarted mid-wait (persisted to SQLite): the hold is still waiting and approval works', async () => {
      // Each step is bounded on its own, so a run that fails names the step that did not finish.
      await within('starting the worker', 60_000, stack.startWorker());
      const id = await within('the held request', 20_000, heldRequest(acct));
      await waiting(id);

      const server = stack.server.devServer!;
      try {
        await within('restarting the server', 180_000, server.restart());
      } catch (err) {
        console.log(`[held faults] the dev server's output since its last launch:\n${server.recentOutput().slice(-4_000)}`);
        // On the error's own line: a run's summary quotes only that line.
        throw new Error(`${(err as Error).message}; the restart's timeline: ${server.timeline().join(' | ')}`);
      }

      const approved = await approveRetrying(acct, id);
      expect(approved.status).toBe(200);
      expect(approved.body).toMatchObject({ status: 'approved' });
      expect(await within('the workflow result', 30_000, handleOf(id).result())).toMatchObject({ status: 'approved' });
    }, 450_000);
  });
});
