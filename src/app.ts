import express, { type Express } from 'express';
import type { HealthView, ReadinessView } from './http/health.view.js';
import { sql } from 'kysely';
import type { AgentHooks } from './agents/agents.service.js';
import type { Db } from './db/database.js';
import { authMiddleware, type Authenticator } from './http/auth.js';
import { jsonBody } from './http/body.js';
import { errorHandler, notFoundRoute } from './http/errors.js';
import { requestId } from './http/request-id.js';
import { agentsRouter } from './http/routes/agents.js';
import { apiKeysRouter } from './http/routes/api-keys.js';
import { auditLogsRouter } from './http/routes/audit-logs.js';
import { policiesRouter } from './http/routes/policies.js';
import { authorizeRouter } from './http/routes/authorize.js';
import { decisionsRouter } from './http/routes/decisions.js';
import { jwksRouter, tokensRouter } from './http/routes/tokens.js';
import { idempotency } from './http/idempotency.js';
import { responseCipher } from './idempotency/response-cipher.js';
import { DecisionWaiter } from './authorization/decision-waiter.js';
import type { TokenSigner } from './tokens/authorization-token.js';
import { agentStopHooks } from './approvals/agent-hooks.js';
import { approvalsRouter } from './http/routes/approvals.js';
import { outboxLag } from './outbox/outbox.repository.js';
import { eventsRouter, webhookEndpointsRouter } from './http/routes/webhooks.js';
import { QUICKSTART_PATHS, quickstartRouter } from './http/routes/quickstart.js';
import type { WorkflowGateway } from './temporal/gateway.js';
import { EngineMonitor } from './temporal/engine-status.js';
import { rateLimiter, type RateLimitDeps } from './http/rate-limit.js';
import { usageRouter } from './http/routes/usage.js';
import type { Logger } from './logger.js';
import { observeRequests } from './http/observe.js';
import { traceRequests } from './http/trace-requests.js';
import { docsRouter } from './http/routes/docs.js';
import { dashboardRouter } from './http/routes/dashboard.js';
import { attachMetrics, createMetrics, metricsHandler, type Metrics } from './observability/metrics.js';

export interface AppDeps {
  db: Db;
  authenticate: Authenticator;
  signer: TokenSigner;
  waiter?: DecisionWaiter;
  /** The workflow engine, as a client: reviewer outcomes travel through it. */
  gateway: WorkflowGateway;
  /** The engine's last known state for /readyz; absent: one probing through the gateway on demand. */
  engine?: Pick<EngineMonitor, 'current'>;
  /** WEBHOOK_ALLOW_PRIVATE_URLS: lifts the webhook address check (tests, local development). */
  allowPrivateUrls?: boolean;
  /** The clock decisions are made by; injectable so tests can move time instead of sleeping. */
  now?: () => Date;
  /** Told when a key is revoked, so any cache of keys can drop it at once. */
  onKeyRevoked?: (keyHash: string) => void;
  agentHooks?: AgentHooks;
  logError?: (err: unknown, requestId: string) => void;
  /** Rate limiting's clock (milliseconds since the epoch) and limit overrides: for tests only. */
  rateLimit?: Pick<RateLimitDeps, 'now' | 'limits' | 'unauthenticatedLimit'>;
  /** One line per request (request id, account, route, status, latency); none when absent. */
  log?: Logger;
  /** Shared with the worker in `dev`; otherwise the app gets a registry of its own. */
  metrics?: Metrics;
  /** OTEL_EXPORTER_OTLP_ENDPOINT set: a server span per request (the process registered a tracer provider). */
  tracing?: boolean;
  /** IDEMPOTENCY_ENCRYPTION_KEY: stored idempotent responses are encrypted with it. */
  idempotencyKey: Buffer;
}

/** Builds the HTTP app from its dependencies; listening is the caller's business. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(requestId);
  if (deps.tracing) app.use(traceRequests());
  const metrics = deps.metrics ?? createMetrics({ db: deps.db });
  attachMetrics(app.locals, metrics);
  app.use(observeRequests({ metrics, log: deps.log }));
  app.get('/metrics', metricsHandler(metrics));
  const limits = rateLimiter({ db: deps.db, ...deps.rateLimit, logError: deps.logError });
  app.use(docsRouter(limits.perAddress));
  app.use(dashboardRouter());

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' } satisfies HealthView);
  });
  const engineState =
    deps.engine ??
    new EngineMonitor({
      address: 'workflow engine',
      probe: async () => {
        if ((await deps.gateway.health()) !== 'up') throw new Error('no answer in time');
      },
    });
  app.get('/readyz', async (_req, res) => {
    let database: 'up' | 'down' = 'up';
    let outbox: Awaited<ReturnType<typeof outboxLag>> | undefined;
    try {
      await sql`select 1`.execute(deps.db);
      outbox = await outboxLag(deps.db, new Date());
    } catch {
      database = 'down';
    }
    // The engine's state is reported, never required (authorize works without it), and never waited for.
    const engine = await engineState.current();
    res.status(database === 'up' ? 200 : 503).json({ status: database === 'up' ? 'ready' : 'unavailable', database, workflow_engine: engine, outbox } satisfies ReadinessView);
  });

  const waiter = deps.waiter ?? new DecisionWaiter();
  const authz = { db: deps.db, signer: deps.signer, waiter, onDecision: metrics.recordDecision, ...(deps.now ? { now: deps.now } : {}) };
  const v1 = express.Router();
  v1.get('/.well-known/jwks.json', limits.perAddress);
  v1.use(jwksRouter(deps.signer));
  v1.use(authMiddleware(deps.authenticate), limits.onAuthFailure, limits.perAccount);
  v1.use(jsonBody);
  const idempotent = idempotency({ db: deps.db, cipher: responseCipher(deps.idempotencyKey) });
  v1.use(idempotent);
  v1.use('/authorize', authorizeRouter(authz));
  v1.use('/decisions', decisionsRouter(authz));
  v1.use('/authorization-tokens', tokensRouter(authz));
  const webhooks = { db: deps.db, allowPrivateUrls: deps.allowPrivateUrls ?? false };
  v1.use('/webhook-endpoints', webhookEndpointsRouter(webhooks));
  v1.use('/events', eventsRouter(webhooks));
  v1.use('/approvals', approvalsRouter({ db: deps.db, gateway: deps.gateway, onResolved: (id) => waiter.notify(id), ...(deps.now ? { now: deps.now } : {}) }));
  v1.use('/api-keys', apiKeysRouter(deps.db, deps.onKeyRevoked));
  v1.use('/agents', agentsRouter(deps.db, deps.agentHooks ?? agentStopHooks));
  v1.use('/policies', policiesRouter(deps.db));
  v1.use('/audit-logs', auditLogsRouter(deps.db, deps.signer.keys));
  v1.use('/usage', usageRouter(deps.db));
  app.use('/v1', v1);

  // Quick-start surface (SPEC §4.6): unprefixed, behind the same key, rate limit, body and idempotency checks.
  // Only its own paths pass through them, so every other unknown path still answers 404.
  const quickstart = express.Router();
  quickstart.use(QUICKSTART_PATHS, authMiddleware(deps.authenticate), limits.onAuthFailure, limits.perAccount, jsonBody, idempotent);
  quickstart.use(quickstartRouter(authz));
  app.use(quickstart);

  app.use(notFoundRoute);
  app.use(
    errorHandler(
      deps.logError ??
        ((err, id) => {
          console.error(`[${id}] unhandled error`, err);
        }),
    ),
  );
  return app;
}
