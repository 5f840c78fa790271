import express, { type Express } from 'express';
import type { AgentHooks } from '../agents/agents.service.js';
import type { Db } from '../db/database.js';
import type { KeyDirectoryFetchSettings } from '../agent-keys/agent-key-deps.js';
import { authMiddleware, type Authenticator } from './auth.js';
import { jsonChecks, readBody } from './body.js';
import { signatureGate } from './signature-gate.js';
import { AgentKeyCache } from '../agent-keys/agent-key-cache.js';
import { touchAgentKey } from '../agent-keys/nonces.repository.js';
import { KeyUsageRecorder } from '../keys/key-usage.js';
import { errorHandler, notFoundRoute } from './errors.js';
import { requestId } from './request-id.js';
import { refuseOtherAuthority } from './request-target.js';
import { idempotency } from './idempotency.js';
import { responseCipher } from '../idempotency/response-cipher.js';
import { DecisionWaiter } from '../authorization/decision-waiter.js';
import { groupDecisions } from '../authorization/authorization.service.js';
import type { AuthorizationDeps } from '../authorization/authorization.deps.js';
import { DEFAULT_AUTHORIZE_BATCH, type AuthorizeBatchSettings } from '../kernel/config.js';
import type { TokenSigner } from '../tokens/authorization-token.js';
import { agentStopHooks, combineAgentHooks } from '../approvals/agent-hooks.js';
import type { MandateKeys } from '../mandates/mandate-deps.js';
import { mandateAgentHooks, revokeMandatesOfKey } from '../mandates/mandate-hooks.js';
import { actorOf, signedByOf } from '../kernel/caller.js';
import { rateLimiter, type RateLimitDeps } from './rate-limit.js';
import type { Logger } from '../kernel/logger.js';
import { observeRequests } from './observe.js';
import { traceRequests } from './trace-requests.js';
import { dashboardFiles, findDashboardDir } from './dashboard.js';
import { openApiDocument } from './openapi.js';
import { mountRoutes, type Route, type RouteDeps } from './route.js';
import { ROUTES } from './routes/index.js';
import { attachMetrics, createMetrics, type Metrics } from '../observability/metrics.js';
import type { RailEndpointFactory } from '../rail-connections/rail-endpoint.js';
import { RailConnectionCache } from '../rail-connections/rail-connection-cache.js';
import { signingSecretCipher } from '../rail-connections/signing-secret.js';
import { endpointSecretCipher } from '../webhooks/endpoint-secret.js';

export interface AppDeps {
  db: Db;
  authenticate: Authenticator;
  signer: TokenSigner;
  waiter?: DecisionWaiter;
  /** The rail endpoint's connections, fed by the process's notifications (startHttpServer); absent: a cache of the app's own. */
  railConnections?: RailConnectionCache;
  /** The workflow engine, as a client: reviewer outcomes travel through it. */
  gateway: RouteDeps['approvals']['gateway'];
  /** The engine's last known state for /readyz (the process's EngineMonitor, src/temporal/engine-status.ts). */
  engine: RouteDeps['engine'];
  /** WEBHOOK_ALLOW_PRIVATE_URLS: lifts the webhook address check (tests, local development). */
  allowPrivateUrls?: boolean;
  /** The clock decisions are made by; injectable so tests can move time instead of sleeping. */
  now?: () => Date;
  /** Told when a key is revoked, so any cache of keys can drop it at once. */
  onKeyRevoked?: (keyHash: string) => void;
  /** Told when a policy or an agent's policy changes, so a cache of callers can drop what they carry. */
  onCredentialsChanged?: () => void;
  /** Key directories' fetch (DECISIONS §19): a resolver, CA and timeout tests inject; the SSRF setting is `allowPrivateUrls`. */
  keyDirectories?: Pick<KeyDirectoryFetchSettings, 'resolve' | 'ca' | 'timeoutMs'>;
  agentHooks?: AgentHooks;
  /**
   * MANDATE_SIGNING_KEY (src/mandates/mandate-signing-keys.ts): signs AP2 mandates and receipts, and is
   * published in the JWKS. Absent: the mandate routes answer 503 (apps built for other tests).
   */
  mandateKeys?: MandateKeys | undefined;
  logError?: (err: unknown, requestId: string) => void;
  /** Rate limiting's clock (milliseconds since the epoch) and limit overrides: for tests only. */
  rateLimit?: Pick<RateLimitDeps, 'now' | 'limits' | 'unauthenticatedLimit'>;
  /** One line per request (request id, account, route, status, latency); none when absent. */
  log?: Logger;
  /** Shared with the worker in `dev`; otherwise the app gets a registry of its own. */
  metrics?: Metrics;
  /** OTEL_EXPORTER_OTLP_ENDPOINT set: a server span per request (the process registered a tracer provider). */
  tracing?: boolean;
  /** IDEMPOTENCY_ENCRYPTION_KEY: stored idempotent responses are encrypted with it (and, through derived keys, rail signing secrets and webhook endpoint secrets). */
  idempotencyKey: Buffer;
  /** PUBLIC_BASE_URL: the base of rail connections' endpoint URLs; absent: the address a request came to. */
  publicBaseUrl?: string | undefined;
  /** RAIL_DECISION_DEADLINE_MS: a rail's authorization request is answered by then (from its arrival). */
  railDeadlineMs?: number | undefined;
  /** MAX_QUEUE_MS: a spend request that waited longer for its work to start is shed (503); absent: 1,000. */
  maxQueueMs?: number | undefined;
  /**
   * The rails that ask first this app serves, built from what it gives them (src/rails/<rail>/,
   * composed by src/process/); a rail not given answers as an unknown connection.
   */
  rails?: { stripeIssuing?: RailEndpointFactory | undefined };
  /** AUTHORIZE_BATCH_*: how decisions are grouped into transactions; absent: the defaults (kernel/config.ts). */
  authorizeBatch?: AuthorizeBatchSettings | undefined;
  /** Crash tests' failpoint: told after each batch of decisions commits, before its answers leave. */
  afterBatchCommit?: (() => void) | undefined;
}

const isV1 = (path: string) => path.startsWith('/v1/');

/** The routers' own matching, as the app's: case-sensitive and strict. */
const ROUTING = { caseSensitive: true, strict: true } as const;

/**
 * Builds the HTTP app from its dependencies; listening is the caller's business. It serves the
 * declared routes (src/http/routes/) and nothing else but the dashboard's files, each behind what
 * its place asks for: public pages and documents as they are (in no rate-limit bucket), every
 * route with roles behind the key, the per-account limit, the body reader and idempotency.
 */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // One spelling per route (DECISIONS §19): `/AUTHORIZE` and `/authorize/` are 404, never the route.
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.set('etag', false);
  app.set('query parser', 'simple');
  // When the request was read off the socket: admission control and rails' deadlines count from it.
  app.use((_req, res, next) => {
    res.locals.arrivedAt = Date.now();
    next();
  });
  app.use(requestId);
  app.use(refuseOtherAuthority);
  if (deps.tracing) app.use(traceRequests());
  const metrics = deps.metrics ?? createMetrics({ db: deps.db });
  attachMetrics(app.locals, metrics);
  app.use(observeRequests({ metrics, log: deps.log }));
  const limits = rateLimiter({ db: deps.db, ...deps.rateLimit, logError: deps.logError });

  const waiter = deps.waiter ?? new DecisionWaiter();
  const now = deps.now ? { now: deps.now } : {};
  const dashboardDir = findDashboardDir();
  const authorization: AuthorizationDeps = {
    db: deps.db,
    signer: deps.signer,
    waiter,
    onDecision: metrics.recordDecision,
    onBatch: metrics.recordDecisionBatch,
    onBatchPhases: metrics.recordDecisionBatchPhases,
    maxQueueMs: deps.maxQueueMs,
    onAdmission: (waitedMs, shed) => metrics.recordAdmission('authorize', waitedMs, shed),
    ...now,
  };
  groupDecisions(authorization, deps.authorizeBatch ?? DEFAULT_AUTHORIZE_BATCH, deps.afterBatchCommit);
  const railSecrets = signingSecretCipher(deps.idempotencyKey);
  const railConnections = deps.railConnections ?? new RailConnectionCache({ db: deps.db, secrets: railSecrets });
  const stripeIssuing = deps.rails?.stripeIssuing?.({
    authz: authorization,
    connections: railConnections,
    deadlineMs: deps.railDeadlineMs,
    onAnswer: (outcome) => metrics.recordRailAnswer('stripe_issuing', outcome),
    log: (level, message, details) => deps.log?.[level](details, message),
  });
  const agentKeyCache = new AgentKeyCache(deps.db);
  const agentKeyUsage = new KeyUsageRecorder((id, at) => touchAgentKey(deps.db, id, at), {
    onError: (err) => deps.log?.warn({ err }, 'could not record when an agent key was last used'),
  });
  const clock = deps.now ?? (() => new Date());
  const cipher = responseCipher(deps.idempotencyKey);
  const routeDeps: RouteDeps = {
    db: deps.db,
    authorization,
    approvals: { db: deps.db, gateway: deps.gateway, onResolved: (id) => waiter.notify(id), ...now },
    webhooks: { db: deps.db, allowPrivateUrls: deps.allowPrivateUrls ?? false, secrets: endpointSecretCipher(deps.idempotencyKey) },
    // Deactivating an agent denies its holds and revokes its mandates, in its transaction.
    agentHooks: deps.agentHooks ?? combineAgentHooks(agentStopHooks, mandateAgentHooks(clock)),
    onKeyRevoked: deps.onKeyRevoked,
    onCredentialsChanged: deps.onCredentialsChanged,
    agentKeys: {
      db: deps.db,
      now: deps.now,
      directories: { allowPrivateUrls: deps.allowPrivateUrls ?? false, ...deps.keyDirectories },
      onKeysChanged: (agentId) => agentKeyCache.drop(agentId),
      // A revoked agent key takes the mandates bound to it (their `cnf`) along, in its transaction.
      onKeyRevoked: async (trx, key, caller) => {
        await revokeMandatesOfKey(trx, key.id, actorOf(caller), clock(), signedByOf(caller));
      },
    },
    mandates: deps.mandateKeys ? { authorization, mandateKeys: deps.mandateKeys, cipher, now: deps.now } : undefined,
    metrics,
    engine: deps.engine,
    openApi: openApiDocument,
    dashboardDir,
    railConnections: { db: deps.db, secrets: railSecrets, cache: railConnections, publicBaseUrl: deps.publicBaseUrl },
    rails: { stripeIssuing, limit: limits.perRailConnection },
  };
  // The body's bytes are read before the signature gate (its Content-Digest is over them, and the
  // quick-start vault is found in it), and checked after it: DECISIONS §19 verifies before validation.
  const gate = signatureGate({ db: deps.db, publicBaseUrl: deps.publicBaseUrl, verify: { db: deps.db, cache: agentKeyCache, usage: agentKeyUsage, now: deps.now } });
  const keyed = [authMiddleware(deps.authenticate), limits.onAuthFailure];
  // On each route, after the router matched it: the body, the signature gate, the JSON checks and
  // idempotency each know the route they serve, never a reading of the path of their own.
  const keep = idempotency({ db: deps.db, cipher });
  // The rate limits in two steps around the gate (DECISIONS §10): a signature it refuses costs its
  // agent key's own bucket only, never the account's.
  const perRoute = (r: Route) => [limits.beforeGate(r), readBody, gate(r), limits.afterGate, ...jsonChecks, keep(r)];

  mountRoutes(app, ROUTES.filter((r) => r.roles === 'public' && !isV1(r.path)), routeDeps);
  app.use(dashboardFiles(dashboardDir));

  // Under /v1 every path, known or not, needs a key, except the public routes mounted first.
  const v1 = express.Router(ROUTING);
  // Public /v1 documents (JWKS, OpenAPI) sit outside every rate-limit bucket (src/http/public-document.ts).
  mountRoutes(v1, ROUTES.filter((r) => r.roles === 'public' && isV1(r.path)), routeDeps, { prefix: '/v1' });
  v1.use(...keyed);
  mountRoutes(v1, ROUTES.filter((r) => r.roles !== 'public' && isV1(r.path)), routeDeps, { prefix: '/v1', before: perRoute });
  // No route took it (another path, another method): an agent key that must sign still meets the gate before the 404.
  v1.use(limits.beforeGate(undefined), readBody, gate(undefined), limits.afterGate);
  app.use('/v1', v1);

  // The quick-start surface (docs/api.md): unprefixed, behind the same key, rate limit, body and
  // idempotency checks. Only its own paths pass through them, so every other unknown path still answers 404.
  const quickstartRoutes = ROUTES.filter((r) => r.roles !== 'public' && !isV1(r.path));
  const quickstart = express.Router(ROUTING);
  quickstart.use([...new Set(quickstartRoutes.map((r) => r.path))], ...keyed);
  mountRoutes(quickstart, quickstartRoutes, routeDeps, { before: perRoute });
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
