import type { Route } from '../route.js';
import { agentKeysRoutes } from './agent-keys.js';
import { agentsRoutes } from './agents.js';
import { apiKeysRoutes } from './api-keys.js';
import { approvalsRoutes } from './approvals.js';
import { auditLogsRoutes } from './audit-logs.js';
import { authorizeRoutes } from './authorize.js';
import { decisionsRoutes } from './decisions.js';
import { mandatesRoutes } from './mandates.js';
import { operationsRoutes } from './operations.js';
import { policiesRoutes } from './policies.js';
import { quickstartRoutes } from './quickstart.js';
import { railConnectionsRoutes } from './rail-connections.js';
import { railsRoutes } from './rails.js';
import { tokensRoutes } from './tokens.js';
import { usageRoutes } from './usage.js';
import { webhooksRoutes } from './webhooks.js';

/**
 * Every route the app serves, in the order of the OpenAPI document: the app mounts these and
 * nothing else (src/http/app.ts), and the document describes these (src/http/openapi.ts).
 */
export const ROUTES: readonly Route[] = [
  ...operationsRoutes,
  ...authorizeRoutes,
  ...decisionsRoutes,
  ...tokensRoutes,
  ...approvalsRoutes,
  ...agentsRoutes,
  ...agentKeysRoutes,
  ...mandatesRoutes,
  ...policiesRoutes,
  ...auditLogsRoutes,
  ...apiKeysRoutes,
  ...webhooksRoutes,
  ...usageRoutes,
  ...quickstartRoutes,
  ...railConnectionsRoutes,
  ...railsRoutes,
];
