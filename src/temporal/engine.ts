import type { ActivityDeps } from '../../activities/index.js';
import type { Logger } from '../logger.js';
import { startWorker, type RunningWorker, type WorkerSettings } from './worker.js';
import { ALL_SEARCH_ATTRIBUTE_KEYS } from './search-attributes.js';

export const WORKER_RETRY_MIN_MS = 2_000;
export const WORKER_RETRY_MAX_MS = 30_000;

/**
 * Keeps a worker running: while the engine is unreachable it retries with backoff, logging once,
 * so the process stays up and held requests start as soon as the engine is back.
 */
export function superviseWorker(settings: WorkerSettings, deps: ActivityDeps, log: Logger): { stop(): Promise<void> } {
  let stopped = false;
  let current: RunningWorker | undefined;
  let timer: NodeJS.Timeout | undefined;
  let delay = WORKER_RETRY_MIN_MS;
  let warned = false;

  const attempt = async () => {
    if (stopped) return;
    try {
      current = await startWorker(settings, deps, log);
      delay = WORKER_RETRY_MIN_MS;
      warned = false;
      await current.done;
      current = undefined;
      if (!stopped) log.warn('Temporal worker stopped; restarting');
    } catch (err) {
      if (!warned) {
        warned = true;
        log.warn(
          { address: settings.address, err: (err as Error).message },
          'workflow engine unreachable: held requests wait for an engine (authorize keeps answering; retrying in the background)',
        );
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
      await current?.shutdown();
    },
  };
}

/**
 * For `dev` without TEMPORAL_ADDRESS: the SDK's local dev server (it downloads the Temporal CLI on
 * first use, so it only works where the internet is reachable). Undefined when it cannot start.
 */
export async function tryLocalDevServer(namespace: string, log: Logger): Promise<{ address: string; teardown(): Promise<void> } | undefined> {
  try {
    const { TestWorkflowEnvironment } = await import('@temporalio/testing');
    const env = await TestWorkflowEnvironment.createLocal({ server: { namespace, searchAttributes: ALL_SEARCH_ATTRIBUTE_KEYS, ui: true } });
    log.info({ address: env.address }, 'local Temporal dev server started');
    return { address: env.address, teardown: () => env.teardown() };
  } catch (err) {
    log.warn({ err: (err as Error).message.split('\n')[0] }, 'local Temporal dev server unavailable; set TEMPORAL_ADDRESS to use a running engine');
    return undefined;
  }
}
