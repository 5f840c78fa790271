import { pino } from 'pino';
import { parseArgs } from 'node:util';
import { createAccount, countAccounts } from './accounts/accounts.service.js';
import { ConfigError, loadConfig, loadMcpConfig, type Config } from './config.js';
import { connectDatabase, type Database } from './db/connect.js';
import { DataDirInUseError } from './db/data-dir-lock.js';
import { migrateToLatest, pendingMigrations } from './db/migrate.js';
import { AppError } from './errors.js';
import { createLogger } from './logger.js';
import { SHUTDOWN_GRACE_MS, startHttpServer } from './server.js';
import { listenHttp, ListenError } from './http/listen.js';
import { createMetrics } from './observability/metrics.js';
import { startMetricsServer } from './observability/metrics-server.js';
import { startHousekeeping } from './housekeeping.js';
import { startAuditSealer } from './audit/audit-sealer.js';
import { loadSigningKeys } from './tokens/signing-keys.js';
import { loadServerKeys, type ServerKeys } from './server-keys.js';
import { useAuditHmacKey } from './audit/audit-chain.js';
import { DEFAULT_ISSUER } from './tokens/authorization-token.js';
import { DecisionWaiter } from './authorization/decision-waiter.js';
import { parseUsdRate } from './usage/pricing.js';
import { isMonth, monthEnd } from './usage/month.js';


const USAGE = `Usage: spend-auth <command>

Commands:
  serve                      run the HTTP API
  worker                     run the Temporal worker and the outbox relay
  dev                        migrate, then run the API and the worker in one process
                             (embedded database unless DATABASE_URL is set)
  migrate                    apply pending database migrations
  accounts create --name N --plan sandbox|starter|growth|enterprise [--rate-limit N]
                  [--included-checks N] [--overage-rate USD] [--json]
                             create an account and print its first admin keys; the last
                             three options are for enterprise accounts only
  usage report --month YYYY-MM [--json]
                             report each live account's checks of an ended month to the
                             billing meter (what the monthly schedule runs); exit code 1
                             when some account is left unreported
  mcp                        serve the MCP tools authorize_spend and get_decision on stdio
                             (needs SPEND_AUTH_BASE_URL and SPEND_AUTH_API_KEY)
`;

class UsageError extends Error {}

const PLANS = ['sandbox', 'starter', 'growth', 'enterprise'] as const;

async function withDatabase<T>(config: Config, fn: (d: Database) => Promise<T>): Promise<T> {
  const database = await connectDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    return await fn(database);
  } finally {
    await database.close();
  }
}

type ProcessMode = 'serve' | 'worker' | 'dev';

/** The host name to print in an address a person opens: a wildcard or loopback bind is reached as localhost. */
const browsableHost = (host: string) =>
  ['0.0.0.0', '::', '127.0.0.1', '::1', 'localhost'].includes(host) ? 'localhost' : host.includes(':') ? `[${host}]` : host;

/** HTTP drain (≤ 10 s) and worker drain (≤ 10 s) run side by side; past this the process exits 1. */
export const SHUTDOWN_HARD_LIMIT_MS = 25_000;

/**
 * `serve`: the API. `worker`: the Temporal worker and the outbox relay. `dev`: both, after
 * migrating, on the embedded database by default. Each keeps running while the engine is down.
 */
async function runProcess(config: Config, mode: ProcessMode, serverKeys: ServerKeys): Promise<void> {
  const log = createLogger(config.logLevel);
  // `dev` is a developer's machine: not reachable from the network unless HOST says so.
  const host = config.host ?? (mode === 'dev' ? '127.0.0.1' : '0.0.0.0');
  // Bound first: a port that is taken stops the process before it migrates or creates a dev account.
  const listener = mode === 'worker' ? undefined : await listenHttp(config.port, host);
  const database = await connectDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  if (mode === 'dev') {
    const applied = await migrateToLatest(database.db);
    if (applied.length) log.info({ migrations: applied }, 'migrations applied');
    if (database.kind === 'embedded' && (await countAccounts(database.db)) === 0) {
      const created = await createAccount(database.db, { name: 'Development', plan: 'sandbox' });
      // Printed once, on the first start of an empty embedded database: it is never stored in clear.
      process.stdout.write(
        `\nDev account ${created.account.id} created.\nAdmin test key (shown once, keep it): ${created.keys.test}\n` +
          `Sign in to the reviewer dashboard with this key (its address is printed once the API listens).\n\n`,
      );
    }
  } else {
    const pending = await pendingMigrations(database.db);
    if (pending.length) {
      await database.close();
      throw new UsageError(`The database has pending migrations (${pending.join(', ')}); run \`spend-auth migrate\` first.`);
    }
  }

  // Loaded here, not at the top: the other commands should not pay for the Temporal SDK.
  const { TemporalGateway } = await import('./temporal/gateway.js');
  const { OutboxRelay } = await import('./temporal/outbox-relay.js');
  const { superviseWorker, tryLocalDevServer } = await import('./temporal/engine.js');
  const keys = await loadSigningKeys(config);
  const signer = { issuer: config.publicBaseUrl ?? DEFAULT_ISSUER, keys };
  const waiter = new DecisionWaiter();
  // One registry per process: in `dev` the API's /metrics also shows the worker's webhook attempts.
  const metrics = createMetrics({ db: database.db, processMetrics: true });
  // On shutdown these drain together (each may still need the database and the engine client)…
  const drains: Array<() => Promise<void>> = [];
  // …and these close afterwards, in order.
  const closes: Array<() => Promise<void>> = [];

  let address = config.temporal.address;
  let teardownLocal: (() => Promise<void>) | undefined;
  let temporalUi: string | undefined;
  if (mode === 'dev' && !config.temporal.addressGiven) {
    const local = await tryLocalDevServer(
      { namespace: config.temporal.namespace, cliPath: config.temporal.cliPath, searchPath: config.temporal.searchPath, dataDir: config.dataDir },
      log,
    );
    if (local) {
      address = local.address;
      temporalUi = local.uiUrl;
      teardownLocal = () => local.teardown();
    }
  }
  const settings = { address, namespace: config.temporal.namespace, taskQueue: config.temporal.taskQueue };
  const gateway = new TemporalGateway(settings);
  closes.push(() => gateway.close());
  if (teardownLocal) closes.push(teardownLocal);

  const stopSealer = startAuditSealer(database.db, log);
  // Closed after the drains, so what the last requests wrote is sealed before the database closes.
  closes.push(stopSealer);

  if (mode === 'worker' || mode === 'dev') {
    const relay = new OutboxRelay({ db: database.db, gateway, log });
    relay.start();
    const worker = superviseWorker(
      settings,
      { db: database.db, signer, allowPrivateUrls: config.webhookAllowPrivateUrls, onResolved: (id) => waiter.notify(id), onAttempt: metrics.recordWebhookAttempt, billingMeter: config.billingMeter, log },
      log,
    );
    drains.push(() => relay.stop(), () => worker.stop());
  }
  if (mode === 'worker') {
    const metricsServer = await startMetricsServer(metrics, config.metricsPort, log, host);
    closes.push(() => metricsServer.close());
  }
  if (mode === 'serve' || mode === 'dev') {
    const running = await startHttpServer(
      database,
      config,
      { signer, gateway, waiter, allowPrivateUrls: config.webhookAllowPrivateUrls, metrics, idempotencyKey: serverKeys.idempotency },
      log,
      host,
      listener,
    );
    log.info({ host, port: running.port, database: database.kind }, 'API listening');
    if (mode === 'dev') {
      process.stdout.write(
        `\nReviewer dashboard: http://${browsableHost(host)}:${running.port}/dashboard\n` +
          (temporalUi
            ? `Temporal UI:        ${temporalUi} (held requests: ApprovalStatus="pending")\n\n`
            : `Temporal UI:        none (no local Temporal CLI; see README, "Workflow engine")\n\n`),
      );
    }
    const stopHousekeeping = startHousekeeping(database.db, log);
    drains.push(async () => stopHousekeeping(), () => running.close());
  }

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
    await Promise.all(drains.map((fn) => fn().catch(warn)));
    for (const fn of closes) await fn().catch(warn);
    await database.close();
    log.info('shut down');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

async function accountsCommand(config: Config, args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  if (sub !== 'create') throw new UsageError(`Unknown accounts subcommand: ${sub ?? '(none)'}`);
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      plan: { type: 'string' },
      'rate-limit': { type: 'string' },
      'included-checks': { type: 'string' },
      'overage-rate': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (!values.name) throw new UsageError('--name is required');
  const plan = values.plan as (typeof PLANS)[number] | undefined;
  if (!plan || !PLANS.includes(plan)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
  let rateLimit: number | undefined;
  if (values['rate-limit'] !== undefined) {
    rateLimit = Number(values['rate-limit']);
    if (!Number.isSafeInteger(rateLimit) || rateLimit < 1) throw new UsageError('--rate-limit must be a positive integer');
  }
  let includedChecks: number | undefined;
  if (values['included-checks'] !== undefined) {
    includedChecks = /^\d+$/.test(values['included-checks']) ? Number(values['included-checks']) : NaN;
    if (!Number.isSafeInteger(includedChecks)) throw new UsageError('--included-checks must be a non-negative integer');
  }
  let overageRateMicros: number | undefined;
  if (values['overage-rate'] !== undefined) {
    overageRateMicros = parseUsdRate(values['overage-rate']);
    if (overageRateMicros === undefined) throw new UsageError('--overage-rate must be a USD amount per check with at most 4 decimal places, e.g. 0.0005');
  }
  const created = await withDatabase(config, async ({ db }) => {
    await migrateToLatest(db);
    return createAccount(db, { name: values.name!, plan, rateLimit, includedChecks, overageRateMicros });
  });
  if (values.json) {
    process.stdout.write(`${JSON.stringify(created)}\n`);
  } else {
    process.stdout.write(`Account ${created.account.id} (${created.account.plan})\n`);
    process.stdout.write(`Admin test key: ${created.keys.test}\n`);
    if (created.keys.live) process.stdout.write(`Admin live key: ${created.keys.live}\n`);
  }
}

async function usageCommand(config: Config, args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  if (sub !== 'report') throw new UsageError(`Unknown usage subcommand: ${sub ?? '(none)'}`);
  const { values } = parseArgs({ args: rest, options: { month: { type: 'string' }, json: { type: 'boolean', default: false } }, strict: true });
  const month = values.month;
  if (!month || !isMonth(month)) throw new UsageError('--month must be a month as YYYY-MM');
  if (new Date() < monthEnd(month)) throw new UsageError(`--month ${month} has not ended yet: only a whole month is reported`);
  // Loaded here: the other commands should not pay for the Temporal SDK.
  const { createUsageReportActivities } = await import('../activities/usage-report.js');
  const { runUsageReport } = await import('./usage/usage-report.runner.js');
  const log = createLogger(config.logLevel, 'spend-auth', pino.destination({ fd: 2, sync: true }));
  const summary = await withDatabase(config, async ({ db }) => {
    const pending = await pendingMigrations(db);
    if (pending.length) throw new UsageError(`The database has pending migrations (${pending.join(', ')}); run \`spend-auth migrate\` first.`);
    return runUsageReport({ month, activities: createUsageReportActivities({ db, billingMeter: config.billingMeter, log }) });
  });
  if (values.json) {
    process.stdout.write(`${JSON.stringify(summary)}\n`);
  } else {
    process.stdout.write(
      `Usage report ${month}: ${summary.accounts} account(s) to report; ${summary.accepted} accepted, ${summary.skipped} skipped, ${summary.failed.length} failed.\n`,
    );
    for (const f of summary.failed) process.stdout.write(`  ${f.accountId}: ${f.error}${f.permanent ? ' (refused; recorded as failed)' : ' (still failing; run again later)'}\n`);
  }
  if (summary.failed.length > 0) process.exitCode = 1;
}

/**
 * The MCP tool server is a client of a running service: it needs only its two variables, not the
 * service's configuration. stdout belongs to the protocol, so a bad setting is reported on stderr
 * and exits with code 1 before anything is written there.
 */
async function mcpCommand(): Promise<void> {
  let mcpConfig;
  try {
    mcpConfig = loadMcpConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`spend-auth mcp: ${err.message}\n`);
    process.exit(1);
  }
  const { runMcpServer } = await import('./mcp/server.js');
  await runMcpServer(mcpConfig);
}

/** Entry point of the `spend-auth` bin. */
export async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  try {
    if (!command || command === 'help' || command === '--help') {
      process.stdout.write(USAGE);
      return;
    }
    if (command === 'mcp') {
      await mcpCommand();
      return;
    }
    const config = loadConfig();
    // Every other command reads or writes the database, audit records included (and `migrate` may re-seal them).
    const serverKeys = await loadServerKeys(config);
    useAuditHmacKey(serverKeys.auditHmac);
    switch (command) {
      case 'serve':
      case 'worker':
      case 'dev':
        await runProcess(config, command, serverKeys);
        return;
      case 'migrate': {
        const applied = await withDatabase(config, ({ db }) => migrateToLatest(db));
        process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Database is up to date.\n');
        return;
      }
      case 'accounts':
        await accountsCommand(config, args);
        return;
      case 'usage':
        await usageCommand(config, args);
        return;
      default:
        throw new UsageError(`Unknown command: ${command}`);
    }
  } catch (err) {
    if (err instanceof ListenError || err instanceof DataDirInUseError) {
      process.stderr.write(`spend-auth: ${err.message}\n`);
      process.exit(1);
    }
    if (err instanceof ConfigError || err instanceof UsageError || err instanceof AppError) {
      process.stderr.write(`spend-auth: ${err.message}\n`);
      if (err instanceof UsageError && /Unknown/.test(err.message)) process.stderr.write(USAGE);
      process.exit(err instanceof ConfigError ? 78 : 2);
    }
    if (err instanceof TypeError && (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`spend-auth: ${err.message}\n${USAGE}`);
      process.exit(2);
    }
    throw err;
  }
}
