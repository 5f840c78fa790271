import type { Server } from 'node:http';
import { createApp, type AppDeps } from './app.js';
import type { Config } from './config.js';
import type { Database } from './db/connect.js';
import { authenticate } from './keys/keys.service.js';
import { KeyCache } from './keys/key-cache.js';
import type { Logger } from './logger.js';
import { DecisionWaiter, listenForResolutions } from './authorization/decision-waiter.js';
import type { TokenSigner } from './tokens/authorization-token.js';
import type { WorkflowGateway } from './temporal/gateway.js';
import type { Metrics } from './observability/metrics.js';

export interface RunningServer {
  server: Server;
  port: number;
  /** Stops accepting, lets in-flight requests finish (up to the grace period), then resolves. */
  close(graceMs?: number): Promise<void>;
}

export const SHUTDOWN_GRACE_MS = 10_000;
const DRAIN_SWEEP_INTERVAL_MS = 100;

/** Composes the app from a connected database and listens. */
export async function startHttpServer(
  database: Database,
  config: Pick<Config, 'port'>,
  services: { signer: TokenSigner; gateway: WorkflowGateway; idempotencyKey: Buffer; waiter?: DecisionWaiter; allowPrivateUrls?: boolean; now?: () => Date; rateLimit?: AppDeps['rateLimit']; metrics?: Metrics },
  log: Logger,
  host?: string,
): Promise<RunningServer> {
  const { db } = database;
  const waiter = services.waiter ?? new DecisionWaiter();
  // Before listening for clients, so no resolution committed after a long-poll began is missed.
  const stopListening = await listenForResolutions(database, waiter);
  const keys = new KeyCache((raw) => authenticate(db, raw));
  const app = createApp({
    db,
    ...services,
    waiter,
    authenticate: (raw) => keys.authenticate(raw),
    onKeyRevoked: (hash) => keys.revoke(hash),
    logError: (err, requestId) => log.error({ err, request_id: requestId }, 'unhandled error'),
    log,
  });
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(config.port, host ?? '0.0.0.0', () => resolve(s));
    s.once('error', reject);
  }).catch(async (err: unknown) => {
    await stopListening();
    throw err;
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
