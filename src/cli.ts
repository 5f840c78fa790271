import cluster from 'node:cluster';
import { pino } from 'pino';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { createAccount, firstAccount } from './accounts/accounts.service.js';
import { API_DATABASE_POOL_SIZE, ConfigError, loadConfig, loadMcpConfig, type Config } from './config.js';
import { connectDatabase, describeDatabaseError, type Database } from './db/connect.js';
import { DataDirInUseError } from './db/data-dir-lock.js';
import { migrateToLatest, pendingMigrations } from './db/migrate.js';
import { AppError } from './errors.js';
import { createLogger, prettyDestination, resolveLogFormat } from './logger.js';
import { SHUTDOWN_GRACE_MS, startHttpServer } from './server.js';
import { closeServerNow, listenHttp, ListenError } from './http/listen.js';
import { createMetrics } from './observability/metrics.js';
import { startMetricsServer } from './observability/metrics-server.js';
import { startHousekeeping } from './housekeeping.js';
import { startAuditSealer } from './audit/audit-sealer.js';
import { loadSigningKeys } from './tokens/signing-keys.js';
import { bindServerKeys, loadServerKeys, type ServerKeys } from './server-keys.js';
import { useAuditHmacKey } from './audit/audit-chain.js';
import { DEFAULT_ISSUER } from './tokens/authorization-token.js';
import { DecisionWaiter } from './authorization/decision-waiter.js';
import { engineFailureReason } from './temporal/engine-status.js';
import { parseUsdRate } from './usage/pricing.js';
import { isMonth, monthEnd } from './usage/month.js';
import { reportReady, runCluster } from './cluster.js';


const HELP_LINE = '  -h, --help                 print this help and exit\n';

const USAGE = `Usage: spend-auth <command> [options]

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
  temporal setup [--json]    register the search attributes and create or update the
                             Schedules (usage report, reconciler) on TEMPORAL_NAMESPACE;
                             safe to repeat (run it at deploy)
  mcp                        serve the MCP tools authorize_spend and get_decision on stdio
                             (needs SPEND_AUTH_BASE_URL and SPEND_AUTH_API_KEY)

Options:
${HELP_LINE}
Run \`spend-auth <command> --help\` for a command's own options. Settings come from the
environment (README, "Configuration").
`;

type OptionSpecs = NonNullable<ParseArgsConfig['options']>;

/** Every command's help and options; any other option, and any stray argument, is an error. */
const COMMANDS = {
  serve: {
    usage: `Usage: spend-auth serve [--workers N]

Runs the HTTP API, the reviewer dashboard, /metrics, /healthz and /readyz on HOST:PORT
(default 0.0.0.0:3000). Refuses to start while migrations are pending (\`spend-auth migrate\`).

Options:
  --workers N                API processes sharing the port, one per core is the rule
                             (default API_WORKERS, 1)
${HELP_LINE}`,
    options: { workers: { type: 'string' } },
  },
  worker: {
    usage: `Usage: spend-auth worker

Runs the Temporal worker (task queue TEMPORAL_TASK_QUEUE) and the outbox relay, with /metrics
and /healthz on HOST:METRICS_PORT (default 0.0.0.0:9464), and the Temporal SDK's own metrics on
HOST:TEMPORAL_SDK_METRICS_PORT when set. Keeps retrying while the engine is down.

Options:
${HELP_LINE}`,
    options: {},
  },
  dev: {
    usage: `Usage: spend-auth dev

What \`npm start\` runs: applies migrations, creates a dev account on an empty embedded
database (printing its admin key once), then runs the API on HOST:PORT (default
127.0.0.1:3000) and the worker in one process. Without TEMPORAL_ADDRESS it runs the dev
server of a local Temporal CLI when there is one.

Options:
${HELP_LINE}`,
    options: {},
  },
  migrate: {
    usage: `Usage: spend-auth migrate

Applies pending database migrations (DATABASE_URL, else the embedded database under DATA_DIR).

Options:
${HELP_LINE}`,
    options: {},
  },
  'accounts create': {
    usage: `Usage: spend-auth accounts create --name N --plan sandbox|starter|growth|enterprise [options]

Creates an account and prints its first admin keys (a test key; a live key too, except on
the sandbox plan).

Options:
  --name N                   the account's name (required)
  --plan P                   sandbox, starter, growth or enterprise (required)
  --rate-limit N             enterprise: live requests per minute (default 2000)
  --included-checks N        enterprise: checks included per month (default 100000)
  --overage-rate USD         enterprise: price of each further check, e.g. 0.0005
  --json                     print {"account": {...}, "keys": {...}} as one JSON line
${HELP_LINE}`,
    options: {
      name: { type: 'string' },
      plan: { type: 'string' },
      'rate-limit': { type: 'string' },
      'included-checks': { type: 'string' },
      'overage-rate': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  },
  'usage report': {
    usage: `Usage: spend-auth usage report --month YYYY-MM [--json]

Reports each live account's checks of an ended month to the billing meter, as the monthly
schedule does; safe to re-run. Exit code 1 when some account is left unreported.

Options:
  --month YYYY-MM            the month to report (required; it must have ended)
  --json                     print the summary as one JSON line
${HELP_LINE}`,
    options: { month: { type: 'string' }, json: { type: 'boolean', default: false } },
  },
  'temporal setup': {
    usage: `Usage: spend-auth temporal setup [--json]

Registers the search attributes the workflows set (AgentId, PolicyId, Vendor, AmountMinor,
Livemode, ApprovalStatus) on TEMPORAL_NAMESPACE and creates or updates the Schedules (monthly
usage report, reconciler). Safe to repeat: run it at every deploy, with rights to register
search attributes (Temporal Cloud: add them in the namespace's settings instead).

Options:
  --json                     print what it did as one JSON line
${HELP_LINE}`,
    options: { json: { type: 'boolean', default: false } },
  },
  mcp: {
    usage: `Usage: spend-auth mcp

Serves the MCP tools authorize_spend and get_decision on stdio, calling a running service.
Reads only SPEND_AUTH_BASE_URL (the /v1 base address) and SPEND_AUTH_API_KEY.

Options:
${HELP_LINE}`,
    options: {},
  },
} satisfies Record<string, { usage: string; options: OptionSpecs }>;

type CommandName = keyof typeof COMMANDS;
type OptionValues = Record<string, string | boolean | undefined>;

/** A mistake in how the command was called: the message, then the usage that applies (exit code 2). */
class UsageError extends Error {
  constructor(
    message: string,
    readonly usage?: string,
  ) {
    super(message);
  }
}

/** The command's options, or undefined once `--help` has printed its usage. */
function parseCommand(name: CommandName, args: string[]): OptionValues | undefined {
  const spec = COMMANDS[name];
  let values: OptionValues;
  try {
    const options: OptionSpecs = { ...spec.options, help: { type: 'boolean', short: 'h' } };
    values = parseArgs({ args, options, strict: true, allowPositionals: false }).values as OptionValues;
  } catch (err) {
    if (!(err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) throw err;
    // Node's message may go on with advice about positional arguments; its first sentence is the point.
    const first = (/^(.*?)\.(\s|$)/.exec((err as Error).message)?.[1] ?? (err as Error).message).replace(/\.$/, '');
    throw new UsageError(`${first}.`, spec.usage);
  }
  if (values.help) {
    process.stdout.write(spec.usage);
    return undefined;
  }
  return values;
}

const PLANS = ['sandbox', 'starter', 'growth', 'enterprise'] as const;

/** The database, once the server keys are known to be the ones it was first used with (refused otherwise, before anything is written). */
async function withDatabase<T>(config: Config, serverKeys: ServerKeys, fn: (d: Database) => Promise<T>): Promise<T> {
  const database = await connectDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize });
  try {
    await bindServerKeys(database.db, serverKeys);
    return await fn(database);
  } finally {
    await database.close();
  }
}

type ProcessMode = 'serve' | 'worker' | 'dev';

/** `dev` is a developer's machine: not reachable from the network unless HOST says so. */
const bindHost = (config: Config, mode: ProcessMode) => config.host ?? (mode === 'dev' ? '127.0.0.1' : '0.0.0.0');

/** The host name to print in an address a person opens: a wildcard or loopback bind is reached as localhost. */
const browsableHost = (host: string) =>
  ['0.0.0.0', '::', '127.0.0.1', '::1', 'localhost'].includes(host) ? 'localhost' : host.includes(':') ? `[${host}]` : host;

/** Applies pending migrations, then stores the key fingerprints if this is the first run (migration 019). */
async function migrateBound(database: Database, serverKeys: ServerKeys): Promise<string[]> {
  const applied = await migrateToLatest(database.db);
  await bindServerKeys(database.db, serverKeys);
  return applied;
}

/** HTTP drain (≤ 10 s) and worker drain (≤ 10 s) run side by side; past this the process exits 1. */
export const SHUTDOWN_HARD_LIMIT_MS = 25_000;

/**
 * `serve`: the API. `worker`: the Temporal worker and the outbox relay. `dev`: both, after
 * migrating, on the embedded database by default. Each keeps running while the engine is down.
 */
async function runProcess(config: Config, mode: ProcessMode, serverKeys: ServerKeys): Promise<void> {
  const format = resolveLogFormat(config.logFormat, { tty: Boolean(process.stdout.isTTY), nodeEnv: config.nodeEnv });
  const log = createLogger(config.logLevel, 'spend-auth', format === 'pretty' ? prettyDestination(process.stdout) : undefined);
  const host = bindHost(config, mode);
  // Bound first: a port that is taken stops the process before it migrates or creates a dev account.
  // Not in a cluster worker: the port is shared, and a worker bound while it starts would be handed
  // connections it can only answer 503 while the others serve (the primary checked the port).
  const listener = mode === 'worker' || cluster.isWorker ? undefined : await listenHttp(config.port, host);
  const poolSize = config.databasePoolSize ?? (mode === 'serve' ? API_DATABASE_POOL_SIZE : undefined);
  const database = await connectDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize });
  await bindServerKeys(database.db, serverKeys);
  // What `dev` says about its account, printed with the addresses once the API listens.
  const devAccount: string[] = [];
  if (mode === 'dev') {
    const applied = await migrateBound(database, serverKeys);
    if (applied.length) log.info({ migrations: applied }, 'migrations applied');
    if (database.kind === 'embedded') {
      const existing = await firstAccount(database.db);
      if (!existing) {
        const created = await createAccount(database.db, { name: 'Development', plan: 'sandbox' });
        // Shown once, on the first start of an empty embedded database: it is never stored in clear.
        devAccount.push(`Dev account ${created.account.id} created.`, `Admin test key (shown once, keep it): ${created.keys.test}`, 'Sign in to the reviewer dashboard with this key.');
      } else {
        devAccount.push(
          `Dev account ${existing.id} (${existing.name}) in use, created ${existing.created_at.toISOString().slice(0, 10)}; its admin test key was printed on its first start.`,
          `Lost it? Stop the service and run \`npx spend-auth accounts create --name Me --plan sandbox\` for another account, or delete ${config.dataDir} to start over.`,
        );
      }
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
  const { EngineMonitor, engineProbe } = await import('./temporal/engine-status.js');
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
  // Tracing is off unless a collector is configured: then one provider for the process, closed last (it flushes).
  const tracing = config.otlpEndpoint ? (await import('./observability/tracing.js')).startTracing({ endpoint: config.otlpEndpoint }) : undefined;
  if (tracing) log.info({ endpoint: config.otlpEndpoint }, 'tracing: spans exported over OTLP/HTTP');
  if ((mode === 'worker' || mode === 'dev') && config.temporalSdkMetricsPort !== undefined) {
    // Before the worker's first NativeConnection, which would otherwise create a Runtime without metrics.
    const { installSdkRuntime } = await import('./temporal/sdk-runtime.js');
    installSdkRuntime({ host, port: config.temporalSdkMetricsPort });
    log.info({ host, port: config.temporalSdkMetricsPort }, 'Temporal SDK metrics listening');
  }
  const settings = { ...engineSettings(config), address, tracing };
  const gateway = new TemporalGateway(settings);
  // The one voice on the engine's state: the relay and the worker report to it, readyz reads it.
  const engine = new EngineMonitor({ address, probe: engineProbe(address, () => gateway.health()), log });
  engine.start();
  closes.push(async () => engine.stop(), () => gateway.close());
  if (teardownLocal) closes.push(teardownLocal);

  const stopSealer = startAuditSealer(database.db, log);
  // Closed after the drains, so what the last requests wrote is sealed before the database closes.
  closes.push(stopSealer);

  if (mode === 'worker' || mode === 'dev') {
    const relay = new OutboxRelay({ db: database.db, gateway, log, engine });
    relay.start();
    const worker = superviseWorker(
      settings,
      { db: database.db, signer, gateway, allowPrivateUrls: config.webhookAllowPrivateUrls, onResolved: (id) => waiter.notify(id), onAttempt: metrics.recordWebhookAttempt, billingMeter: config.billingMeter, auditCheckpointWebhooks: config.auditCheckpointWebhooks, log },
      log,
      engine,
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
      { signer, gateway, engine, waiter, allowPrivateUrls: config.webhookAllowPrivateUrls, rateLimit: { unauthenticatedLimit: config.unauthenticatedRateLimit }, metrics, idempotencyKey: serverKeys.idempotency, tracing: tracing !== undefined },
      log,
      host,
      listener,
    );
    log.info({ host, port: running.port, database: database.kind }, 'API listening');
    reportReady();
    if (mode === 'dev') {
      // One block after the log lines of start-up, so the key and the addresses are found at a glance.
      const rule = '─'.repeat(72);
      const lines = [
        ...devAccount,
        ...(devAccount.length ? [''] : []),
        `Reviewer dashboard: http://${browsableHost(host)}:${running.port}/dashboard`,
        temporalUi
          ? `Temporal UI:        ${temporalUi} (held requests: ApprovalStatus="pending")`
          : config.temporal.addressGiven
            ? `Workflow engine:    ${address} (TEMPORAL_ADDRESS)`
            : 'Temporal UI:        none (no local Temporal CLI; see README, "Workflow engine")',
      ];
      process.stdout.write(`\n${rule}\n${lines.join('\n')}\n${rule}\n\n`);
    }
    const stopHousekeeping = startHousekeeping(database.db, log, { onHoldExpired: (id) => waiter.notify(id) });
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
    await tracing?.shutdown().catch(warn);
    await database.close();
    log.info('shut down');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  // A cluster worker stops when the primary tells it (SIGTERM); Ctrl-C reaches the whole process
  // group, and the primary passes it on once.
  process.on('SIGINT', () => (cluster.isWorker ? undefined : void stop('SIGINT')));
}

/** Where and how the engine is reached, from the configuration. */
function engineSettings(config: Config) {
  const t = config.temporal;
  return {
    address: t.address,
    namespace: t.namespace,
    taskQueue: t.taskQueue,
    allowSignalApprovals: t.allowSignalApprovals,
    tls: t.tls,
    apiKey: t.apiKey,
    reconcileIntervalSeconds: t.reconcileIntervalSeconds,
    auditCheckpointWebhooks: config.auditCheckpointWebhooks,
  };
}

/** `temporal setup`: registers the search attributes and creates or updates the Schedules; safe to repeat. */
async function temporalSetupCommand(config: Config, json: boolean): Promise<void> {
  const { setupTemporal } = await import('./temporal/worker.js');
  let report;
  try {
    report = await setupTemporal(engineSettings(config));
  } catch (err) {
    // TemporalSetupError says what to do; any other cause in a few words.
    const why = err instanceof Error && err.name === 'TemporalSetupError' ? err.message : engineFailureReason(err);
    throw new Error(`temporal setup against ${config.temporal.address} (namespace ${config.temporal.namespace}) failed: ${why}`);
  }
  if (json) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return;
  }
  const sa = report.searchAttributes;
  process.stdout.write(
    `Namespace ${report.namespace}: search attributes ${sa.added.length ? `registered ${sa.added.join(', ')}` : 'already registered'}` +
      `${sa.added.length && sa.present.length ? ` (present: ${sa.present.join(', ')})` : ''}.\n` +
      Object.entries(report.schedules).map(([id, outcome]) => `Schedule ${id}: ${outcome}.\n`).join(''),
  );
}

interface AccountInput {
  name: string;
  plan: (typeof PLANS)[number];
  rateLimit: number | undefined;
  includedChecks: number | undefined;
  overageRateMicros: number | undefined;
  json: boolean;
}

/** Checked before any configuration or database is touched. */
function accountInput(values: OptionValues): AccountInput {
  const usage = COMMANDS['accounts create'].usage;
  const str = (name: string) => values[name] as string | undefined;
  const name = str('name');
  if (!name) throw new UsageError('--name is required', usage);
  const plan = str('plan') as (typeof PLANS)[number] | undefined;
  if (!plan || !PLANS.includes(plan)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`, usage);
  let rateLimit: number | undefined;
  if (str('rate-limit') !== undefined) {
    rateLimit = Number(str('rate-limit'));
    if (!Number.isSafeInteger(rateLimit) || rateLimit < 1) throw new UsageError('--rate-limit must be a positive integer', usage);
  }
  let includedChecks: number | undefined;
  const included = str('included-checks');
  if (included !== undefined) {
    includedChecks = /^\d+$/.test(included) ? Number(included) : NaN;
    if (!Number.isSafeInteger(includedChecks)) throw new UsageError('--included-checks must be a non-negative integer', usage);
  }
  let overageRateMicros: number | undefined;
  const rate = str('overage-rate');
  if (rate !== undefined) {
    overageRateMicros = parseUsdRate(rate);
    if (overageRateMicros === undefined) throw new UsageError('--overage-rate must be a USD amount per check with at most 4 decimal places, e.g. 0.0005', usage);
  }
  return { name, plan, rateLimit, includedChecks, overageRateMicros, json: values.json === true };
}

async function accountsCommand(config: Config, serverKeys: ServerKeys, input: AccountInput): Promise<void> {
  const { json, ...account } = input;
  const created = await withDatabase(config, serverKeys, async (database) => {
    await migrateBound(database, serverKeys);
    return createAccount(database.db, account);
  });
  if (json) {
    process.stdout.write(`${JSON.stringify(created)}\n`);
  } else {
    process.stdout.write(`Account ${created.account.id} (${created.account.plan})\n`);
    process.stdout.write(`Admin test key: ${created.keys.test}\n`);
    if (created.keys.live) process.stdout.write(`Admin live key: ${created.keys.live}\n`);
  }
}

/** Checked before any configuration or database is touched. */
function reportMonth(values: OptionValues): string {
  const usage = COMMANDS['usage report'].usage;
  const month = values.month as string | undefined;
  if (!month || !isMonth(month)) throw new UsageError('--month must be a month as YYYY-MM', usage);
  if (new Date() < monthEnd(month)) throw new UsageError(`--month ${month} has not ended yet: only a whole month is reported`, usage);
  return month;
}

async function usageCommand(config: Config, serverKeys: ServerKeys, month: string, json: boolean): Promise<void> {
  // Loaded here: the other commands should not pay for the Temporal SDK.
  const { createUsageReportActivities } = await import('../activities/usage-report.js');
  const { runUsageReport } = await import('./usage/usage-report.runner.js');
  const log = createLogger(config.logLevel, 'spend-auth', pino.destination({ fd: 2, sync: true }));
  const summary = await withDatabase(config, serverKeys, async ({ db }) => {
    const pending = await pendingMigrations(db);
    if (pending.length) throw new UsageError(`The database has pending migrations (${pending.join(', ')}); run \`spend-auth migrate\` first.`);
    return runUsageReport({ month, activities: createUsageReportActivities({ db, billingMeter: config.billingMeter, log }) });
  });
  if (json) {
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

/** A subcommand group (`accounts`, `usage`) with one subcommand: its help, or the subcommand's arguments. */
function subcommand(group: string, sub: string | undefined, name: CommandName): boolean {
  const { usage } = COMMANDS[name];
  if (sub === '--help' || sub === '-h') {
    process.stdout.write(usage);
    return false;
  }
  if (`${group} ${sub}` !== name) throw new UsageError(`Unknown ${group} subcommand: ${sub ?? '(none)'}`, usage);
  return true;
}

/** `serve --workers N`, else API_WORKERS. */
function apiWorkers(values: OptionValues, config: Config): number {
  if (values.workers === undefined) return config.apiWorkers;
  const n = Number(values.workers);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new UsageError('--workers must be a whole number from 1 to 64.', COMMANDS.serve.usage);
  return n;
}

/** Set once the configuration is read, so a failure can be described in its terms. */
let loadedConfig: Config | undefined;

async function serverSetup(): Promise<{ config: Config; serverKeys: ServerKeys }> {
  const config = loadConfig();
  loadedConfig = config;
  // Every command but mcp reads or writes the database, audit records included (and `migrate` may re-seal them).
  const serverKeys = await loadServerKeys(config);
  useAuditHmacKey(serverKeys.auditHmac);
  return { config, serverKeys };
}

/** Entry point of the `spend-auth` bin. Options are checked (and `--help` answered) before anything else happens. */
export async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  try {
    if (!command || command === 'help' || command === '--help' || command === '-h') {
      process.stdout.write(USAGE);
      return;
    }
    switch (command) {
      case 'mcp':
        if (parseCommand('mcp', args)) await mcpCommand();
        return;
      case 'serve':
      case 'worker':
      case 'dev': {
        const values = parseCommand(command, args);
        if (!values) return;
        const { config, serverKeys } = await serverSetup();
        const workers = command === 'serve' ? apiWorkers(values, config) : 1;
        if (workers > 1 && cluster.isPrimary) {
          if (!config.databaseUrl) throw new UsageError('--workers above 1 needs DATABASE_URL (PostgreSQL): the embedded database is opened by one process only.', COMMANDS.serve.usage);
          // Workers bind only once ready, so a port that is taken is found here, before any starts.
          // A client that connected meanwhile was answered 503; it must not hold the port open.
          await closeServerNow(await listenHttp(config.port, bindHost(config, 'serve')));
          await runCluster(workers, createLogger(config.logLevel, 'spend-auth'));
          return;
        }
        await runProcess(config, command, serverKeys);
        return;
      }
      case 'migrate': {
        if (!parseCommand('migrate', args)) return;
        const { config, serverKeys } = await serverSetup();
        const applied = await withDatabase(config, serverKeys, (database) => migrateBound(database, serverKeys));
        process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Database is up to date.\n');
        return;
      }
      case 'accounts': {
        if (!subcommand('accounts', args[0], 'accounts create')) return;
        const values = parseCommand('accounts create', args.slice(1));
        if (!values) return;
        const input = accountInput(values);
        const { config, serverKeys } = await serverSetup();
        await accountsCommand(config, serverKeys, input);
        return;
      }
      case 'usage': {
        if (!subcommand('usage', args[0], 'usage report')) return;
        const values = parseCommand('usage report', args.slice(1));
        if (!values) return;
        const month = reportMonth(values);
        const { config, serverKeys } = await serverSetup();
        await usageCommand(config, serverKeys, month, values.json === true);
        return;
      }
      case 'temporal': {
        if (!subcommand('temporal', args[0], 'temporal setup')) return;
        const values = parseCommand('temporal setup', args.slice(1));
        if (!values) return;
        await temporalSetupCommand((await serverSetup()).config, values.json === true);
        return;
      }
      default:
        throw new UsageError(`Unknown command: ${command}`, USAGE);
    }
  } catch (err) {
    if (err instanceof ListenError || err instanceof DataDirInUseError) {
      process.stderr.write(`spend-auth: ${err.message}\n`);
      process.exit(1);
    }
    if (err instanceof ConfigError || err instanceof UsageError || err instanceof AppError) {
      process.stderr.write(`spend-auth: ${err.message}\n`);
      if (err instanceof UsageError && err.usage) process.stderr.write(err.usage);
      process.exit(err instanceof ConfigError ? 78 : 2);
    }
    process.stderr.write(`spend-auth: ${failureLine(err)}\n`);
    // The stack is for whoever debugs the service, not for every user of the command.
    if (loadedConfig && ['debug', 'trace'].includes(loadedConfig.logLevel) && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
    process.exit(1);
  }
}

/** Any other failure as one line: the database's in its own terms, anything else by its message. */
function failureLine(err: unknown): string {
  const described = describeDatabaseError(err, loadedConfig?.databaseUrl);
  if (described) return described;
  const message = (err instanceof Error ? err.message : String(err)).split('\n')[0]!.trim() || 'unknown error';
  return `${message} (LOG_LEVEL=debug shows the stack)`;
}
