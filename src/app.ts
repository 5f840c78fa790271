import express, { type Express } from 'express';
import { sql } from 'kysely';
import type { AgentHooks } from './agents/agents.service.js';
import type { Db } from './db/database.js';
import { authMiddleware, type Authenticator } from './http/auth.js';
import { jsonBody, requireJsonBody } from './http/body.js';
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
import { DecisionWaiter } from './authorization/decision-waiter.js';
import type { TokenSigner } from './tokens/authorization-token.js';

export interface AppDeps {
  db: Db;
  authenticate: Authenticator;
  signer: TokenSigner;
  waiter?: DecisionWaiter;
  /** Told when a key is revoked, so any cache of keys can drop it at once. */
  onKeyRevoked?: (keyHash: string) => void;
  agentHooks?: AgentHooks;
  logError?: (err: unknown, requestId: string) => void;
}

/** Builds the HTTP app from its dependencies; listening is the caller's business. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(requestId);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    try {
      await sql`select 1`.execute(deps.db);
      res.json({ status: 'ready', database: 'up' });
    } catch {
      res.status(503).json({ status: 'unavailable', database: 'down' });
    }
  });

  const authz = { db: deps.db, signer: deps.signer, waiter: deps.waiter ?? new DecisionWaiter() };
  const v1 = express.Router();
  v1.use(jwksRouter(deps.signer));
  v1.use(authMiddleware(deps.authenticate));
  v1.use(requireJsonBody, jsonBody);
  v1.use(idempotency(deps.db));
  v1.use('/authorize', authorizeRouter(authz));
  v1.use('/decisions', decisionsRouter(authz));
  v1.use('/authorization-tokens', tokensRouter(authz));
  v1.use('/api-keys', apiKeysRouter(deps.db, deps.onKeyRevoked));
  v1.use('/agents', agentsRouter(deps.db, deps.agentHooks ?? {}));
  v1.use('/policies', policiesRouter(deps.db));
  v1.use('/audit-logs', auditLogsRouter(deps.db));
  app.use('/v1', v1);

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
