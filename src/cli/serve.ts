import cluster from 'node:cluster';
import { runCluster } from '../process/cluster.js';
import type { Config } from '../kernel/config.js';
import { listenHttp } from '../http/listen.js';
import { closeServerNow } from '../kernel/listen.js';
import { createLogger } from '../kernel/logger.js';
import { bindHost, runProcess, type ProcessMode } from '../process/run.js';
import type { ServerKeys } from '../server-keys.js';
import { COMMANDS, UsageError, type OptionValues } from './commands.js';

/** `serve --workers N`, else API_WORKERS. */
function apiWorkers(values: OptionValues, config: Config): number {
  if (values.workers === undefined) return config.apiWorkers;
  const n = Number(values.workers);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new UsageError('--workers must be a whole number from 1 to 64.', COMMANDS.serve.usage);
  return n;
}

/** `serve`, `worker` and `dev`: one process, or for `serve --workers N` a primary supervising N. */
export async function processCommand(mode: ProcessMode, values: OptionValues, config: Config, serverKeys: ServerKeys): Promise<void> {
  const workers = mode === 'serve' ? apiWorkers(values, config) : 1;
  if (workers > 1 && cluster.isPrimary) {
    if (!config.databaseUrl) throw new UsageError('--workers above 1 needs DATABASE_URL (PostgreSQL): the embedded database is opened by one process only.', COMMANDS.serve.usage);
    // Workers bind only once ready, so a port that is taken is found here, before any starts.
    // A client that connected meanwhile was answered 503; it must not hold the port open.
    await closeServerNow(await listenHttp(config.port, bindHost(config, 'serve')));
    await runCluster(workers, createLogger(config.logLevel, 'spend-auth'));
    return;
  }
  await runProcess(config, mode, serverKeys);
}
