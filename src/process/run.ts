import cluster from 'node:cluster';
import { startAuditSealer } from '../audit/audit-sealer.js';
import { DecisionWaiter } from '../authorization/decision-waiter.js';
import { reportReady } from './cluster.js';
import { API_DATABASE_POOL_SIZE } from '../db/connect.js';
import { type Config } from '../kernel/config.js';
import { connectDatabase } from '../db/connect.js';
import { startHousekeeping } from './housekeeping.js';
import { listenHttp } from '../http/listen.js';
import { startHttpServer } from '../http/server.js';
import { createLogger, prettyDestination, resolveLogFormat } from '../kernel/logger.js';
import { createMetrics } from '../observability/metrics.js';
import { startMetricsServer } from '../observability/metrics-server.js';
import { bindServerKeys, type ServerKeys } from '../server-keys.js';
import { DEFAULT_ISSUER } from '../tokens/authorization-token.js';
import { loadSigningKeys } from '../tokens/signing-keys.js';
import { loadMandateKeys } from '../mandates/mandate-signing-keys.js';
import { stripeIssuingRail } from '../rails/stripe-issuing/endpoint.js';
import { prepareDevDatabase, printDevBanner } from './dev.js';
import { engineSettings } from './engine-settings.js';
import { requireMigrated } from './migrations.js';
import { stopOnSignals, type ShutdownPlan } from './shutdown.js';
import type { Logger } from '../kernel/logger.js';

export type ProcessMode = 'serve' | 'worker' | 'dev';

/** `dev` is a developer's machine: not reachable from the network unless HOST says so. */
export const bindHost = (config: Config, mode: ProcessMode) => config.host ?? (mode === 'dev' ? '127.0.0.1' : '0.0.0.0');

/**
 * `serve`: the API. `worker`: the Temporal worker and the outbox relay. `dev`: both, after
 * migrating, on the embedded database by default. Each keeps running while the engine is down,
 * and drains on SIGTERM (src/process/shutdown.ts).
 */
export async function runProcess(config: Config, mode: ProcessMode, serverKeys: ServerKeys): Promise<void> {
  const format = resolveLogFormat(config.logFormat, { tty: Boolean(process.stdout.isTTY), nodeEnv: config.nodeEnv });
  const log = createLogger(config.logLevel, 'spend-auth', format === 'pretty' ? prettyDestination(process.stdout) : undefined);
  const host = bindHost(config, mode);
  // Bound first: a port that is taken stops the process before it migrates or creates a dev account.
  // Not in a cluster worker: the port is shared, and a worker bound while it starts would be handed
  // connections it can only answer 503 while the others serve (the primary checked the port).
  const listener = mode === 'worker' || cluster.isWorker ? undefined : await listenHttp(config.port, host);
  const poolSize = config.databasePoolSize ?? (mode === 'serve' ? API_DATABASE_POOL_SIZE : undefined);
  const database = await connectDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize });
  // What `dev` says about its account, printed with the addresses once the API listens.
  let devAccount: string[] = [];
  try {
    // Before anything is written: keys other than the ones the database was first used with stop
    // the process here (exit code 78, one line naming the setting).
    await bindServerKeys(database.db, serverKeys);
    if (mode === 'dev') devAccount = await prepareDevDatabase(database, config, serverKeys, log);
    else await requireMigrated(database.db);
  } catch (err) {
    await database.close();
    throw err;
  }

  // Loaded here, not at the top: the other commands should not pay for the Temporal SDK.
  const { TemporalGateway } = await import('../temporal/gateway.js');
  const { OutboxRelay } = await import('../temporal/outbox-relay.js');
  const { superviseWorker, tryLocalDevServer } = await import('../temporal/engine.js');
  const { EngineMonitor, engineProbe } = await import('../temporal/engine-status.js');
  const keys = await loadSigningKeys(config);
  const signer = { issuer: config.publicBaseUrl ?? DEFAULT_ISSUER, keys };
  // AP2 mandates and receipts (DECISIONS §20): loaded with the token keys, so production without MANDATE_SIGNING_KEY stops here.
  const mandateKeys = await loadMandateKeys(config);
  const waiter = new DecisionWaiter();
  // One registry per process: in `dev` the API's /metrics also shows the worker's webhook attempts.
  const metrics = createMetrics({ db: database.db, processMetrics: true });
  // On shutdown these drain together (each may still need the database and the engine client)…
  const drains: ShutdownPlan['drains'] = [];
  // …and these close afterwards, in order.
  const closes: ShutdownPlan['closes'] = [];

  let address = config.temporal.address;
  let teardownLocal: (() => Promise<void>) | undefined;
  let temporalUi: string | undefined;
  if (mode === 'dev' && !config.temporal.addressGiven) {
    const local = await tryLocalDevServer(
      { namespace: config.temporal.namespace, cliPath: config.temporal.cliPath, searchPath: config.temporal.searchPath, dataDir: config.dataDir, cacheDir: config.temporal.cliCacheDir },
      log,
    );
    if (local) {
      address = local.address;
      temporalUi = local.uiLine;
      teardownLocal = () => local.teardown();
    }
  }
  // Tracing is off unless a collector is configured: then one provider for the process, closed last (it flushes).
  const tracing = config.otlpEndpoint ? (await import('../observability/tracing.js')).startTracing({ endpoint: config.otlpEndpoint }) : undefined;
  if (tracing) log.info({ endpoint: config.otlpEndpoint }, 'tracing: spans exported over OTLP/HTTP');
  if ((mode === 'worker' || mode === 'dev') && config.temporalSdkMetricsPort !== undefined) {
    // Before the worker's first NativeConnection, which would otherwise create a Runtime without metrics.
    const { installSdkRuntime } = await import('../temporal/sdk-runtime.js');
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
      {
        db: database.db,
        signer,
        gateway,
        allowPrivateUrls: config.webhookAllowPrivateUrls,
        onResolved: (id) => waiter.notify(id),
        onAttempt: metrics.recordWebhookAttempt,
        billingMeter: config.billingMeter,
        auditCheckpointWebhooks: config.auditCheckpointWebhooks,
        // Which holds an approval sent straight to the engine may approve: checked by the activities.
        signalApprovals: config.temporal.allowSignalApprovals,
        log,
      },
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
      {
        signer,
        mandateKeys,
        gateway,
        engine,
        waiter,
        allowPrivateUrls: config.webhookAllowPrivateUrls,
        rateLimit: { unauthenticatedLimit: config.unauthenticatedRateLimit },
        metrics,
        idempotencyKey: serverKeys.idempotency,
        tracing: tracing !== undefined,
        // The rails that ask first (docs/rails/stripe-issuing.md): composed here, so neither adapter imports the other.
        publicBaseUrl: config.publicBaseUrl,
        railDeadlineMs: config.railDecisionDeadlineMs,
        maxQueueMs: config.maxQueueMs,
        rails: { stripeIssuing: stripeIssuingRail },
        authorizeBatch: config.authorizeBatch,
        afterBatchCommit: killAfterBatches(config.failpointKillAfterBatchCommit, log),
      },
      log,
      host,
      listener,
    );
    log.info({ host, port: running.port, database: database.kind }, 'API listening');
    reportReady();
    if (mode === 'dev') printDevBanner({ devAccount, host, port: running.port, temporalUi, address, addressGiven: config.temporal.addressGiven });
    const stopHousekeeping = startHousekeeping(database.db, log, { onHoldExpired: (id) => waiter.notify(id), keyDirectories: { allowPrivateUrls: config.webhookAllowPrivateUrls } });
    drains.push(async () => stopHousekeeping(), () => running.close());
  }
  stopOnSignals(log, { drains, closes, tracing, database });
}

/**
 * FAILPOINT_KILL_AFTER_BATCH_COMMIT (crash tests only): the process kills itself the moment its
 * Nth batch of decisions has committed, before any of that batch's answers is sent.
 */
function killAfterBatches(n: number | undefined, log: Logger): (() => void) | undefined {
  if (n === undefined) return undefined;
  log.warn({ after_batches: n }, 'FAILPOINT_KILL_AFTER_BATCH_COMMIT is set: this process will kill itself (crash tests only)');
  let committed = 0;
  return () => {
    committed += 1;
    if (committed >= n) process.kill(process.pid, 'SIGKILL');
  };
}
