import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createApp, type AppDeps } from './app.js';
import { listenHttp } from './listen.js';
import { toOriginForm } from './request-target.js';
import type { Config } from '../kernel/config.js';
import type { Database } from '../db/connect.js';
import { authenticate } from '../keys/keys.service.js';
import { KeyCache } from '../keys/key-cache.js';
import { KeyUsageRecorder } from '../keys/key-usage.js';
import { touchKey } from '../keys/keys.repository.js';
import type { Logger } from '../kernel/logger.js';
import { DecisionWaiter, listenForResolutions } from '../authorization/decision-waiter.js';
import { listenForRailConnectionChanges, RailConnectionCache } from '../rail-connections/rail-connection-cache.js';
import { signingSecretCipher } from '../rail-connections/signing-secret.js';

export interface RunningServer {
  server: Server;
  port: number;
  /** Stops accepting, lets in-flight requests finish (up to the grace period), then resolves. */
  close(graceMs?: number): Promise<void>;
}

export const SHUTDOWN_GRACE_MS = 10_000;
const DRAIN_SWEEP_INTERVAL_MS = 100;

/** Composes the app from a connected database and serves it on `server` (bound by listenHttp), or listens itself. */
export async function startHttpServer(
  database: Database,
  config: Pick<Config, 'port'>,
  services: Pick<AppDeps, 'signer' | 'gateway' | 'idempotencyKey' | 'waiter' | 'railConnections' | 'allowPrivateUrls' | 'now' | 'rateLimit' | 'metrics' | 'engine' | 'tracing' | 'publicBaseUrl' | 'railDeadlineMs' | 'maxQueueMs' | 'rails' | 'authorizeBatch' | 'afterBatchCommit' | 'keyDirectories' | 'mandateKeys'>,
  log: Logger,
  host = '0.0.0.0',
  bound?: Server,
): Promise<RunningServer> {
  const { db } = database;
  const waiter = services.waiter ?? new DecisionWaiter();
  const railConnections = services.railConnections ?? new RailConnectionCache({ db, secrets: signingSecretCipher(services.idempotencyKey) });
  // Before listening for clients, so no resolution committed after a long-poll began is missed,
  // and no connection deleted after the first swipe was served stays cached. One listening
  // connection serves both channels (src/db/connect.ts).
  const stopRailChanges = await listenForRailConnectionChanges(database, railConnections);
  const stopResolutions = await listenForResolutions(database, waiter).catch(async (err: unknown) => {
    await stopRailChanges();
    throw err;
  });
  const stopListening = async () => {
    await Promise.all([stopResolutions(), stopRailChanges()]);
  };
  const keys = new KeyCache((raw) => authenticate(db, raw));
  const usage = new KeyUsageRecorder((id, at) => touchKey(db, id, at), { onError: (err) => log.warn({ err }, 'could not record when an API key was last used') });
  const app = createApp({
    db,
    ...services,
    waiter,
    railConnections,
    authenticate: async (raw) => {
      const caller = await keys.authenticate(raw);
      usage.record(caller.keyId);
      return caller;
    },
    onKeyRevoked: (hash) => keys.revoke(hash),
    // A policy's require_signed_requests, or an agent's policy, changed: cached callers carry the old flag.
    onCredentialsChanged: () => keys.clear(),
    logError: (err, requestId) => log.error({ err, request_id: requestId }, 'unhandled error'),
    log,
  });
  // Not app.listen: Express 5 hands a listen error to its callback, which would report a socket it never got.
  let server: Server;
  try {
    server = bound ?? (await listenHttp(config.port, host));
  } catch (err) {
    await stopListening();
    throw err;
  }
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    toOriginForm(req);
    app(req, res);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  return {
    server,
    port,
    close: (graceMs = SHUTDOWN_GRACE_MS) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        force.unref();
        // A kept-alive connection turns idle once its in-flight answer is sent: close it then, not
        // after the keep-alive timeout, so the drain ends as soon as the last request does.
        const sweep = setInterval(() => server.closeIdleConnections(), DRAIN_SWEEP_INTERVAL_MS);
        sweep.unref();
        server.close(() => {
          clearTimeout(force);
          clearInterval(sweep);
          void stopListening().finally(resolve);
        });
        server.closeIdleConnections();
      }),
  };
}
