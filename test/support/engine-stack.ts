/**
 * The whole service against a real Temporal server, in one test process: the API on 127.0.0.1
 * with the real gateway, the outbox relay, and a worker with the real activities on the test's
 * database. Server tests act through the API as a user would.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DefaultLogger, Runtime, type WorkflowBundle } from '@temporalio/worker';
import type { ActivityDeps } from '../../activities/index.js';
import type { SignalApprovals } from '../../src/kernel/config.js';
import { createLogger, type Logger } from '../../src/kernel/logger.js';
import { TemporalGateway } from '../../src/temporal/gateway.js';
import { OutboxRelay } from '../../src/temporal/outbox-relay.js';
import { startWorker, workflowBundleOptions, type RunningWorker, type WorkerSettings } from '../../src/temporal/worker.js';
import { createTestContext, type TestContext, type TestContextOptions } from './context.js';
import { sharedWorkflowBundle } from './shared-temporal.js';
import { openServer, type ServerEnvironment, type ServerMode } from './temporal-server.js';

export const WORKFLOWS_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../workflows/index.ts');
export const RELAY_TEST_POLL_MS = 100;

let runtimeInstalled = false;
/** The SDK logs every worker state change at INFO: keep test output to errors (a retried activity logs a warning per attempt). */
function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger((process.env.TEST_TEMPORAL_LOG_LEVEL as 'WARN' | undefined) ?? 'ERROR') });
  } catch {
    // Already installed by an earlier user in this process: keep that one.
  }
}

const bundles: { plain?: Promise<WorkflowBundle>; traced?: Promise<WorkflowBundle> } = {};
/** Bundled once per run (test/support/shared-temporal.ts; once per file without it), from the sources; `traced`: with the tracing interceptors, as the worker bundles them when tracing is on. */
export function workflowBundle(traced = false): Promise<WorkflowBundle> {
  return (bundles[traced ? 'traced' : 'plain'] ??= sharedWorkflowBundle(workflowBundleOptions(WORKFLOWS_PATH, traced)));
}

export interface EngineStack {
  server: ServerEnvironment;
  ctx: TestContext;
  settings: WorkerSettings;
  relay: OutboxRelay;
  log: Logger;
  /** The running worker, when there is one. */
  worker: RunningWorker | undefined;
  /** Starts a worker with the real activities (stopping none); `deps` override the stack's for this worker. */
  startWorker(deps?: Partial<ActivityDeps>): Promise<RunningWorker>;
  stopWorker(): Promise<void>;
  close(): Promise<void>;
}

export interface EngineStackOptions {
  /** A dev server of the file's own (also when `uiPort` or `dbFile` is given), not the run's shared one. */
  ownServer?: boolean;
  uiPort?: number;
  dbFile?: string;
  context?: TestContextOptions;
  /** Extra activity dependencies (billing meter, …). */
  deps?: Partial<ActivityDeps>;
  /** Start no worker at first (the test starts it). */
  noWorker?: boolean;
  /** Use this server instead of opening one (e.g. started later by the test). */
  server?: ServerEnvironment;
  /** Gateway address override (e.g. a port where the engine is not running yet). */
  address?: string;
  /** TEMPORAL_ALLOW_SIGNAL_APPROVALS for the holds this stack starts and its worker's activities (`false`: `off`). */
  allowSignalApprovals?: false | SignalApprovals;
  /** TLS settings of the gateway and the worker (TEMPORAL_TLS_*). */
  tls?: WorkerSettings['tls'];
  /** Tracing on (the test registered the provider): server spans in the API, client, workflow and activity interceptors. */
  tracing?: WorkerSettings['tracing'];
}

export async function openEngineStack(mode: ServerMode, opts: EngineStackOptions = {}): Promise<EngineStack> {
  quietRuntime();
  // Bundled (or fetched from the run's build) while the server and the database are set up.
  workflowBundle(opts.tracing !== undefined).catch(() => undefined);
  const server = opts.server ?? (await openServer(mode, { ...(opts.ownServer ? { own: true } : {}), ...(opts.uiPort !== undefined ? { uiPort: opts.uiPort } : {}), ...(opts.dbFile ? { dbFile: opts.dbFile } : {}) }));
  const signalApprovals: SignalApprovals | undefined = opts.allowSignalApprovals === false ? 'off' : opts.allowSignalApprovals;
  const settings: WorkerSettings & { allowSignalApprovals?: SignalApprovals } = {
    address: opts.address ?? server.address,
    namespace: server.namespace,
    // A queue of this stack's own (the worker, the gateway and so the relay all take it from here):
    // a worker of another stack on the same server never takes its tasks.
    taskQueue: `spend-authorization-${randomUUID().slice(0, 8)}`,
    ...(signalApprovals === undefined ? {} : { allowSignalApprovals: signalApprovals }),
    ...(opts.tls ? { tls: opts.tls } : {}),
    ...(opts.tracing ? { tracing: opts.tracing } : {}),
  };
  // A database of this file's own: the relay carries every account's rows.
  const ctx = await createTestContext({ testModeRateLimit: 100_000, allowPrivateUrls: true, ownDatabase: true, ...(opts.tracing ? { tracing: true } : {}), ...opts.context, gateway: () => new TemporalGateway(settings) });
  const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
  const relay = new OutboxRelay({ db: ctx.database.db, gateway: ctx.gateway, log, pollIntervalMs: RELAY_TEST_POLL_MS });
  relay.start();
  const stack: EngineStack = {
    server,
    ctx,
    settings,
    relay,
    log,
    worker: undefined,
    async startWorker(deps) {
      const w = await startWorker(
        settings,
        { db: ctx.database.db, signer: ctx.signer, gateway: ctx.gateway, allowPrivateUrls: true, log, ...(signalApprovals ? { signalApprovals } : {}), ...opts.deps, ...deps },
        log,
        { workflowBundle: await workflowBundle(opts.tracing !== undefined) },
      );
      stack.worker = w;
      return w;
    },
    async stopWorker() {
      const w = stack.worker;
      stack.worker = undefined;
      await w?.shutdown();
    },
    async close() {
      await relay.stop();
      await stack.stopWorker();
      await ctx.close();
      if (!opts.server) await server.teardown();
    },
  };
  if (!opts.noWorker) await stack.startWorker();
  return stack;
}
