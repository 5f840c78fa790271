import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import proto from '@temporalio/proto';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Worker, type WorkflowBundle } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../../activities/index.js';
import { createUsageReportActivities } from '../../activities/usage-report.js';
import { createWebhookActivities } from '../../activities/webhook-delivery.js';
import type { Logger } from '../kernel/logger.js';
import { ALL_SEARCH_ATTRIBUTE_KEYS } from './search-attributes.js';
import { Client, Connection } from '@temporalio/client';
import { clientConnectionOptions, nativeConnectionOptions, type EngineConnectionSettings } from './connection.js';
import { ensurePeriodicJob, optionalPeriodicJobs, periodicJobs, removePeriodicJob } from './periodic-jobs.js';
import { taskQueues } from './task-queues.js';
import { WORKFLOW_TRACING_MODULE, workerTracing } from './tracing.js';
import type { Tracing } from '../observability/tracing.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** This module runs as src/temporal/worker.ts from a checkout, or as dist/src/temporal/worker.js once compiled. */
const COMPILED = path.basename(path.resolve(HERE, '../..')) === 'dist' && path.extname(fileURLToPath(import.meta.url)) === '.js';
const PACKAGE_ROOT = path.resolve(HERE, COMPILED ? '../../..' : '../..');
const WORKFLOWS_PATH = COMPILED ? path.join(PACKAGE_ROOT, 'dist/workflows/index.js') : path.join(PACKAGE_ROOT, 'workflows/index.ts');
/** Built ahead of time for production images (`npm run build:workflows`); bundled at start otherwise. */
export const WORKFLOW_BUNDLE_PATH = path.join(PACKAGE_ROOT, 'dist/workflow-bundle.js');
/** The same with the tracing interceptors, run when tracing is on. */
export const WORKFLOW_TRACED_BUNDLE_PATH = path.join(PACKAGE_ROOT, 'dist/workflow-bundle-traced.js');

/** Bundler options of the workflow code: with the tracing interceptors when tracing is on. */
export function workflowBundleOptions(workflowsPath: string, traced: boolean) {
  return { workflowsPath, ...(traced ? { workflowInterceptorModules: [WORKFLOW_TRACING_MODULE] } : {}) };
}
/** On shutdown, running activities (a webhook attempt takes ≤ 10 s) get this long to finish. */
export const WORKER_SHUTDOWN_GRACE_MS = 10_000;

const { IndexedValueType } = proto.temporal.api.enums.v1;
const INDEXED_TYPE = {
  KEYWORD: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  INT: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  BOOL: IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
} as const;

export interface WorkerSettings extends EngineConnectionSettings {
  taskQueue: string;
  /** How often the reconcile Schedule runs (RECONCILE_INTERVAL_SECONDS). */
  reconcileIntervalSeconds?: number;
  /** Tracing is on: workflow and activity spans, children of the caller's span. */
  tracing?: Pick<Tracing, 'spanProcessor' | 'resource'> | undefined;
  /** AUDIT_CHECKPOINT_WEBHOOKS: the daily audit-checkpoint Schedule exists (else it is deleted). */
  auditCheckpointWebhooks?: boolean;
}

/** The namespace lacks search attributes the workflows set: every start would fail. */
export class TemporalSetupError extends Error {
  override name = 'TemporalSetupError';
}

const SETUP_CONNECT_TIMEOUT_MS = 5_000;

async function withClientConnection<T>(settings: EngineConnectionSettings, fn: (connection: Connection) => Promise<T>): Promise<T> {
  const connection = await Connection.connect(clientConnectionOptions(settings, SETUP_CONNECT_TIMEOUT_MS));
  try {
    return await fn(connection);
  } finally {
    await connection.close();
  }
}

/** Registers the search attributes operators filter on, where the namespace lacks them; returns what was added. */
export async function ensureSearchAttributes(settings: EngineConnectionSettings, log?: Logger): Promise<{ added: string[]; present: string[] }> {
  return withClientConnection(settings, async (connection) => {
    const existing = await connection.operatorService.listSearchAttributes({ namespace: settings.namespace });
    const known = new Set([...Object.keys(existing.customAttributes ?? {}), ...Object.keys(existing.systemAttributes ?? {})]);
    const missing = ALL_SEARCH_ATTRIBUTE_KEYS.filter((k) => !known.has(k.name));
    const present = ALL_SEARCH_ATTRIBUTE_KEYS.filter((k) => known.has(k.name)).map((k) => k.name);
    if (missing.length === 0) return { added: [], present };
    try {
      await connection.operatorService.addSearchAttributes({
        namespace: settings.namespace,
        searchAttributes: Object.fromEntries(missing.map((k) => [k.name, INDEXED_TYPE[k.type as keyof typeof INDEXED_TYPE]])),
      });
    } catch (err) {
      throw new TemporalSetupError(
        `namespace ${settings.namespace} lacks the search attributes ${missing.map((k) => k.name).join(', ')} and they could not be registered (${(err as Error).message.split('\n')[0]}): ` +
          'run `spend-auth temporal setup` with rights to register them, or add them in Temporal Cloud',
      );
    }
    log?.info({ added: missing.map((k) => k.name) }, 'search attributes registered');
    return { added: missing.map((k) => k.name), present };
  });
}

/** Creates or updates every Schedule the service runs (the monthly usage report, the reconciler, the capture-expiry sweep), and the daily audit checkpoints' when AUDIT_CHECKPOINT_WEBHOOKS is on (deleted when off). */
export async function ensureSchedules(settings: WorkerSettings, log?: Logger): Promise<Record<string, 'created' | 'updated' | 'deleted'>> {
  return withClientConnection(settings, async (connection) => {
    const client = new Client({ connection, namespace: settings.namespace });
    const outcome: Record<string, 'created' | 'updated' | 'deleted'> = {};
    for (const job of periodicJobs(settings.reconcileIntervalSeconds)) {
      outcome[job.scheduleId] = await ensurePeriodicJob(client, job, taskQueues(settings.taskQueue)[job.queue]);
    }
    // Optional: listed when created, updated or (the setting turned off) deleted.
    for (const { job, enabled } of optionalPeriodicJobs(settings)) {
      const result = enabled ? await ensurePeriodicJob(client, job, taskQueues(settings.taskQueue)[job.queue]) : await removePeriodicJob(client, job);
      if (result !== 'absent') outcome[job.scheduleId] = result;
    }
    log?.info({ schedules: outcome }, 'schedules ready');
    return outcome;
  });
}

/** `spend-auth temporal setup`: everything the service needs registered on its namespace; safe to repeat. */
export async function setupTemporal(settings: WorkerSettings, log?: Logger) {
  const searchAttributes = await ensureSearchAttributes(settings, log);
  const schedules = await ensureSchedules(settings, log);
  return { namespace: settings.namespace, searchAttributes, schedules };
}

/**
 * Where the worker's workflows come from. The prebuilt bundle only runs the compiled build, and
 * only while no compiled workflow file is newer than it (a rebuild without `build:workflows`);
 * from a checkout, and otherwise, the sources are bundled at start: never a stale bundle.
 */
export function workflowSource(opts: { compiled: boolean; bundlePath: string; workflowsPath: string }): { workflowBundle: { codePath: string } } | { workflowsPath: string } {
  if (!opts.compiled || !fs.existsSync(opts.bundlePath)) return { workflowsPath: opts.workflowsPath };
  const bundled = fs.statSync(opts.bundlePath).mtimeMs;
  const dir = path.dirname(opts.workflowsPath);
  const newest = Math.max(...fs.readdirSync(dir).map((f) => fs.statSync(path.join(dir, f)).mtimeMs));
  return newest > bundled ? { workflowsPath: opts.workflowsPath } : { workflowBundle: { codePath: opts.bundlePath } };
}

export interface RunningWorker {
  /** Resolves when the worker has drained and stopped. */
  done: Promise<void>;
  shutdown(): Promise<void>;
}

/** Connects, registers search attributes and runs the worker until shut down. Throws if the engine is unreachable. */
export async function startWorker(
  settings: WorkerSettings,
  deps: ActivityDeps,
  log: Logger,
  opts: { connection?: NativeConnection; workflowBundle?: WorkflowBundle } = {},
): Promise<RunningWorker> {
  const { connection } = opts;
  // Connect first: while the engine is down this fails fast and the caller retries quietly.
  const nativeConnection = connection ?? (await NativeConnection.connect(nativeConnectionOptions(settings)));
  try {
    // Without them every start of a held request fails: refuse to run, saying what to do.
    await ensureSearchAttributes(settings, log);
    try {
      await ensureSchedules(settings, log);
    } catch (err) {
      // The worker still serves held requests; the next start tries again (or `spend-auth temporal setup`).
      log.warn({ err: (err as Error).message }, 'could not create or update the schedules');
    }
  } catch (err) {
    if (!connection) await nativeConnection.close();
    throw err;
  }
  let workers: Worker[];
  try {
    // Bundled once and shared by the three workers.
    const traced = settings.tracing !== undefined;
    const source = opts.workflowBundle
      ? { workflowBundle: opts.workflowBundle }
      : workflowSource({ compiled: COMPILED, bundlePath: traced ? WORKFLOW_TRACED_BUNDLE_PATH : WORKFLOW_BUNDLE_PATH, workflowsPath: WORKFLOWS_PATH });
    const code = 'workflowsPath' in source ? { workflowBundle: await bundleWorkflowCode({ ...workflowBundleOptions(source.workflowsPath, traced), logger: new DefaultLogger('WARN') }) } : source;
    const queues = taskQueues(settings.taskQueue);
    const tracing = settings.tracing ? await workerTracing(settings.tracing) : undefined;
    const common = {
      connection: nativeConnection,
      namespace: settings.namespace,
      ...code,
      shutdownGraceTime: WORKER_SHUTDOWN_GRACE_MS,
      ...(tracing ? { interceptors: { activity: tracing.activity }, sinks: tracing.sinks } : {}),
    };
    workers = await Promise.all([
      // Held requests (and the reconciler). It also runs every workflow and activity, so workflows
      // started on this queue before the queues were split still finish here.
      Worker.create({ ...common, taskQueue: queues.held, activities: createActivities(deps), maxConcurrentActivityTaskExecutions: ACTIVITY_SLOTS.held }),
      Worker.create({ ...common, taskQueue: queues.webhooks, activities: createWebhookActivities(deps), maxConcurrentActivityTaskExecutions: ACTIVITY_SLOTS.webhooks }),
      Worker.create({ ...common, taskQueue: queues.billing, activities: createUsageReportActivities(deps), maxConcurrentActivityTaskExecutions: ACTIVITY_SLOTS.billing }),
    ]);
  } catch (err) {
    if (!connection) await nativeConnection.close();
    throw err;
  }
  const stopAll = () => {
    for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
  };
  // One stops, all stop: the supervisor restarts them together.
  const running = workers.map((w) => w.run());
  const done = Promise.allSettled(running)
    .then(() => undefined)
    .finally(async () => {
      if (!connection) await nativeConnection.close();
    });
  void Promise.race(running.map((r) => r.catch(() => undefined))).then(stopAll);
  log.info({ task_queues: taskQueues(settings.taskQueue), address: settings.address }, 'Temporal worker running');
  return {
    done,
    async shutdown() {
      stopAll();
      await done;
    },
  };
}

/**
 * Activity slots per task queue. Together no more than the database pool (20): an activity
 * holding a slot can always get a connection, and a webhook storm fills only the webhooks
 * queue's slots, never the ones approvals need.
 */
export const ACTIVITY_SLOTS = { held: 8, webhooks: 8, billing: 2 } as const;

export { WORKFLOWS_PATH };
