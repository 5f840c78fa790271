import cluster from 'node:cluster';
import type { Database } from '../db/connect.js';
import { SHUTDOWN_GRACE_MS } from '../http/server.js';
import type { Logger } from '../kernel/logger.js';

/** HTTP drain (≤ 10 s) and worker drain (≤ 10 s) run side by side; past this the process exits 1. */
export const SHUTDOWN_HARD_LIMIT_MS = 25_000;

export interface ShutdownPlan {
  /** Drained together on a signal (each may still need the database and the engine client)… */
  drains: Array<() => Promise<void>>;
  /** …then closed one after the other, in order. */
  closes: Array<() => Promise<void>>;
  /** Closed last of all: it flushes the spans the rest produced. */
  tracing: { shutdown(): Promise<void> } | undefined;
  database: Database;
}

/**
 * SIGTERM (and SIGINT, outside a cluster worker) drains and closes what the process started,
 * then exits 0; past SHUTDOWN_HARD_LIMIT_MS, or on a second signal, it exits 1 at once.
 */
export function stopOnSignals(log: Logger, plan: ShutdownPlan): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      log.warn({ signal }, 'second signal while shutting down: exiting now');
      process.exit(1);
    }
    stopping = true;
    log.info({ signal, grace_ms: SHUTDOWN_GRACE_MS }, 'shutting down: no new connections; finishing in-flight requests and tasks');
    const hardStop = setTimeout(() => {
      log.error({ limit_ms: SHUTDOWN_HARD_LIMIT_MS }, 'shutdown did not finish in time; exiting');
      process.exit(1);
    }, SHUTDOWN_HARD_LIMIT_MS);
    hardStop.unref();
    const warn = (err: unknown) => log.warn({ err }, 'error while shutting down');
    // Called synchronously, so the worker supervisor knows at once not to restart a worker the SDK drains.
    await Promise.all(plan.drains.map((fn) => fn().catch(warn)));
    for (const fn of plan.closes) await fn().catch(warn);
    await plan.tracing?.shutdown().catch(warn);
    await plan.database.close();
    log.info('shut down');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  // A cluster worker stops when the primary tells it (SIGTERM); Ctrl-C reaches the whole process
  // group, and the primary passes it on once.
  process.on('SIGINT', () => (cluster.isWorker ? undefined : void stop('SIGINT')));
}
