import fs from 'node:fs';
import path from 'node:path';
import type { ActivityDeps } from '../../activities/index.js';
import type { Logger } from '../kernel/logger.js';
import { startWorker, TemporalSetupError, type RunningWorker, type WorkerSettings } from './worker.js';
import { findTemporalCli, preferredPort, startDevServer } from './dev-server.js';
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

export const DEV_SERVER_GRPC_PORT = 7233;
export const DEV_SERVER_UI_PORT = 8233;

/**
 * For `dev` without TEMPORAL_ADDRESS: the dev server of a local Temporal CLI (TEMPORAL_CLI_PATH,
 * `temporal` on PATH, or the build of scripts/temporal-cli.sh), with its Web UI, persisted next to
 * the embedded database. Never downloads anything; undefined when there is no binary or it fails.
 */
export async function tryLocalDevServer(
  opts: { namespace: string; cliPath: string | undefined; searchPath: string | undefined; dataDir: string | undefined },
  log: Logger,
): Promise<{ address: string; uiUrl: string | undefined; teardown(): Promise<void> } | undefined> {
  const cli = findTemporalCli({ configured: opts.cliPath, searchPath: opts.searchPath });
  if (!cli) {
    log.warn(
      opts.cliPath
        ? `TEMPORAL_CLI_PATH=${opts.cliPath} is not an executable file; no workflow engine started`
        : 'no Temporal CLI found (TEMPORAL_CLI_PATH, `temporal` on PATH, or scripts/temporal-cli.sh); held requests wait until an engine answers at TEMPORAL_ADDRESS',
    );
    return undefined;
  }
  try {
    if (opts.dataDir) fs.mkdirSync(opts.dataDir, { recursive: true });
    const [port, uiPort] = [await preferredPort(DEV_SERVER_GRPC_PORT), await preferredPort(DEV_SERVER_UI_PORT)];
    const server = await startDevServer({
      cliPath: cli,
      namespace: opts.namespace,
      port,
      uiPort: uiPort === port ? 0 : uiPort,
      ...(opts.dataDir ? { dbFile: path.join(opts.dataDir, 'temporal.sqlite') } : {}),
    });
    log.info({ address: server.address, ui: server.uiUrl, cli }, 'local Temporal dev server started');
    return { address: server.address, uiUrl: server.uiUrl, teardown: () => server.stop() };
  } catch (err) {
    log.warn({ reason: engineFailureReason(err), cli }, 'local Temporal dev server did not start; set TEMPORAL_ADDRESS to use a running engine');
    return undefined;
  }
}
