import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { NativeConnection, Worker, type WorkflowBundle } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../../activities/index.js';
import type { Logger } from '../logger.js';
import { ALL_SEARCH_ATTRIBUTE_KEYS } from './search-attributes.js';
import { ensureUsageReportScheduleAt } from './usage-schedule.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** This module runs as src/temporal/worker.ts from a checkout, or as dist/src/temporal/worker.js once compiled. */
const COMPILED = path.basename(path.resolve(HERE, '../..')) === 'dist' && path.extname(fileURLToPath(import.meta.url)) === '.js';
const PACKAGE_ROOT = path.resolve(HERE, COMPILED ? '../../..' : '../..');
const WORKFLOWS_PATH = COMPILED ? path.join(PACKAGE_ROOT, 'dist/workflows/index.js') : path.join(PACKAGE_ROOT, 'workflows/index.ts');
/** Built ahead of time for production images (`npm run build:workflows`); bundled at start otherwise. */
export const WORKFLOW_BUNDLE_PATH = path.join(PACKAGE_ROOT, 'dist/workflow-bundle.js');
/** On shutdown, running activities (a webhook attempt takes ≤ 10 s) get this long to finish. */
export const WORKER_SHUTDOWN_GRACE_MS = 10_000;

const { IndexedValueType } = proto.temporal.api.enums.v1;
const INDEXED_TYPE = {
  KEYWORD: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  INT: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  BOOL: IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
} as const;

export interface WorkerSettings {
  address: string;
  namespace: string;
  taskQueue: string;
}

/** Registers the search attributes operators filter on, where the namespace lacks them. */
export async function ensureSearchAttributes(settings: WorkerSettings, log: Logger): Promise<void> {
  const connection = await Connection.connect({ address: settings.address, connectTimeout: 5_000 });
  try {
    const existing = await connection.operatorService.listSearchAttributes({ namespace: settings.namespace });
    const known = new Set([...Object.keys(existing.customAttributes ?? {}), ...Object.keys(existing.systemAttributes ?? {})]);
    const missing = ALL_SEARCH_ATTRIBUTE_KEYS.filter((k) => !known.has(k.name));
    if (missing.length === 0) return;
    await connection.operatorService.addSearchAttributes({
      namespace: settings.namespace,
      searchAttributes: Object.fromEntries(missing.map((k) => [k.name, INDEXED_TYPE[k.type as keyof typeof INDEXED_TYPE]])),
    });
    log.info({ added: missing.map((k) => k.name) }, 'search attributes registered');
  } finally {
    await connection.close();
  }
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
  const nativeConnection = connection ?? (await NativeConnection.connect({ address: settings.address }));
  try {
    await ensureSearchAttributes(settings, log);
  } catch (err) {
    // A namespace the worker may not administer still runs workflows; the UI just cannot filter.
    log.warn({ err: (err as Error).message }, 'could not register search attributes');
  }
  try {
    await ensureUsageReportScheduleAt(settings, log);
  } catch (err) {
    // The worker still serves held requests; the next start tries again, and the CLI reports meanwhile.
    log.warn({ err: (err as Error).message }, 'could not create or update the usage report schedule');
  }
  const worker = await Worker.create({
    connection: nativeConnection,
    namespace: settings.namespace,
    taskQueue: settings.taskQueue,
    ...(opts.workflowBundle
      ? { workflowBundle: opts.workflowBundle }
      : fs.existsSync(WORKFLOW_BUNDLE_PATH)
        ? { workflowBundle: { codePath: WORKFLOW_BUNDLE_PATH } }
        : { workflowsPath: WORKFLOWS_PATH }),
    activities: createActivities(deps),
    shutdownGraceTime: WORKER_SHUTDOWN_GRACE_MS,
  });
  const done = worker.run().finally(async () => {
    if (!connection) await nativeConnection.close();
  });
  log.info({ task_queue: settings.taskQueue, address: settings.address }, 'Temporal worker running');
  return {
    done,
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}

export { WORKFLOWS_PATH };
