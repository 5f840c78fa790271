import type { ActivityDeps } from '../../activities/index.js';
import type { Logger } from '../kernel/logger.js';
import { startWorker, TemporalSetupError, type RunningWorker, type WorkerSettings } from './worker.js';
import { acquireTemporalCli, TemporalCliUnavailableError } from './cli-acquisition.js';
import { devServerFiles, superviseDevServer } from './dev-supervisor.js';
import { engineFailureReason, isConnectivityFailure, type EngineMonitor } from './engine-status.js';

export const WORKER_RETRY_MIN_MS = 2_000;
export const WORKER_RETRY_MAX_MS = 30_000;

/**
 * Keeps a worker running: while the engine is unreachable it retries with backoff, telling the
 * engine monitor (which logs the change once), so the process stays up and held requests start as soon as the engine is back.
 */
export function superviseWorker(settings: WorkerSettings, deps: ActivityDeps, log: Logger, engine?: Pick<EngineMonitor, 'report'>): { stop(): Promise<void> } {
  let stopped = false;
  let current: RunningWorker | undefined;
  let starting: Promise<unknown> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let delay = WORKER_RETRY_MIN_MS;
  /** The last failure that was not an outage (a setup error, another cause), so it is logged once. */
  let lastFailure: string | undefined;

  const attempt = async () => {
    if (stopped) return;
    try {
      const start = startWorker(settings, deps, log);
      starting = start.catch(() => undefined);
      current = await start;
      starting = undefined;
      // stop() was called while the worker was starting: do not leave it running.
      if (stopped) return void (await current.shutdown());
      delay = WORKER_RETRY_MIN_MS;
      lastFailure = undefined;
      engine?.report('up');
      await current.done;
      current = undefined;
      if (!stopped) log.warn('Temporal worker stopped; restarting');
    } catch (err) {
      starting = undefined;
      // An engine out of reach is the monitor's to log, once; any other cause is the worker's own.
      if (isConnectivityFailure(err)) {
        engine?.report('down', err);
      } else if (err instanceof TemporalSetupError) {
        // Missing search attributes: every start would fail. Say what to run, once.
        if (lastFailure !== err.message) log.error({ namespace: settings.namespace }, err.message);
        lastFailure = err.message;
      } else if (engineFailureReason(err) !== lastFailure) {
        lastFailure = engineFailureReason(err);
        log.warn({ address: settings.address, reason: lastFailure }, 'Temporal worker could not start; retrying in the background');
      }
      delay = Math.min(WORKER_RETRY_MAX_MS, delay * 2);
    }
    if (!stopped) timer = setTimeout(() => void attempt(), delay);
  };
  void attempt();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await starting;
      await current?.shutdown();
    },
  };
}

/** What `dev` prints about its local engine in its start-up block, and how it stops it. */
export interface LocalEngine {
  address: string;
  /** The banner's line: the UI's address once it answers, else why there is none. */
  uiLine: string;
  teardown(): Promise<void>;
}

/**
 * For `dev` without TEMPORAL_ADDRESS: gets the Temporal CLI (src/temporal/cli-acquisition.ts) and
 * runs its dev server with the Web UI, owned and supervised (src/temporal/dev-supervisor.ts), its
 * state in DATA_DIR. Undefined, after one paragraph saying what to install, when there is no CLI.
 */
export async function tryLocalDevServer(
  opts: { namespace: string; cliPath: string | undefined; searchPath: string | undefined; dataDir: string; cacheDir: string },
  log: Logger,
): Promise<LocalEngine | undefined> {
  let cli: string;
  try {
    cli = (
      await acquireTemporalCli({
        configured: opts.cliPath,
        searchPath: opts.searchPath,
        cacheDir: opts.cacheDir,
        report: (line, fields) => log.info(fields, line),
      })
    ).path;
  } catch (err) {
    if (!(err instanceof TemporalCliUnavailableError)) throw err;
    log.warn(`${err.message} Until then held requests wait; everything else works.`);
    return undefined;
  }
  try {
    const server = await superviseDevServer({ cliPath: cli, dataDir: opts.dataDir, namespace: opts.namespace, log });
    const uiLine = server.uiAnswered
      ? `${server.uiUrl} (held requests: ApprovalStatus="pending")`
      : `not answering yet (its log: ${server.logFile}); its address is logged once it answers`;
    return { address: server.address, uiLine, teardown: () => server.stop() };
  } catch (err) {
    log.warn({ reason: engineFailureReason(err), cli, log: devServerFiles(opts.dataDir).log }, 'local Temporal dev server did not start; set TEMPORAL_ADDRESS to use a running engine');
    return undefined;
  }
}
