import cluster, { type Worker } from 'node:cluster';
import type { Logger } from '../kernel/logger.js';

/** Sent by a worker once its API listens: from then on its exit is a crash to recover from, not a failed start. */
export const READY_MESSAGE = 'spend-auth:ready';

/** A worker that crashes is started again after this long (and never faster than once a second per slot). */
const RESTART_DELAY_MS = 1_000;

/** The worker's side: tells the primary the API listens (a no-op outside a cluster). */
export function reportReady(): void {
  if (cluster.isWorker) process.send?.(READY_MESSAGE);
}

/**
 * `serve --workers N`: N API processes share one port (node:cluster hands out connections in
 * turn), so the API uses every core. Each worker is a whole `serve` process with its own pool; all
 * state they share lives in PostgreSQL (budgets, rate-limit counters, idempotency keys, the audit
 * chain), so a decision is the same whichever worker takes it.
 *
 * The primary only supervises: a worker that fails before it is ready (bad configuration, pending
 * migrations, a port taken since the primary checked it) stops the whole service with that worker's
 * exit code; one that crashes later is started again. SIGTERM and SIGINT are passed on, and the
 * primary exits once every worker has drained. A worker binds the port only once it is ready, so
 * connections go to the workers that can answer them.
 */
export function runCluster(workers: number, log: Logger): Promise<void> {
  return new Promise((_resolve) => {
    let stopping = false;
    let exitCode = 0;
    const ready = new WeakSet<Worker>();

    const start = () => {
      const worker = cluster.fork();
      worker.on('message', (m) => {
        if (m === READY_MESSAGE) ready.add(worker);
      });
      worker.on('exit', (code, signal) => {
        if (stopping) {
          if (code) exitCode = code;
          if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(exitCode);
          return;
        }
        if (!ready.has(worker)) {
          // It never served: starting it again would fail the same way.
          log.error({ pid: worker.process.pid, code, signal }, 'an API worker failed to start; stopping');
          stop('worker failed', code || 1);
          return;
        }
        log.error({ pid: worker.process.pid, code, signal }, 'an API worker exited; starting another');
        setTimeout(() => {
          if (!stopping) start();
        }, RESTART_DELAY_MS).unref();
      });
    };

    const stop = (reason: string, code = 0) => {
      if (stopping) return;
      stopping = true;
      exitCode = code;
      log.info({ reason, workers: Object.keys(cluster.workers ?? {}).length }, 'stopping the API workers');
      const alive = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
      if (alive.length === 0) process.exit(exitCode);
      for (const w of alive) w.process.kill('SIGTERM');
    };

    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
    for (let i = 0; i < workers; i++) start();
    log.info({ workers }, 'API workers starting');
  });
}
