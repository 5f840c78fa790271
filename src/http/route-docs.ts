import type { z } from 'zod';
import { agentListSchema, agentSchema } from '../agents/agent.view.js';
import { auditRecordListSchema, auditVerificationSchema } from '../audit/audit.view.js';
import { approvalListSchema, decisionSchema } from '../authorization/decision.view.js';
import { eventListSchema, eventSchema } from '../events/event.view.js';
import { apiKeyListSchema, apiKeySchema, createdApiKeySchema } from '../keys/api-key.view.js';
import { deletedPolicySchema, policyListSchema, policySchema } from '../policies/policy.view.js';
import { policySimulationSchema } from '../policies/simulation.view.js';
import { quickstartAgentSchema as quickstartAgentView, quickstartAuthorizationSchema, vaultWithTokenSchema } from '../quickstart/quickstart.view.js';
import { jwksSchema, tokenVerificationSchema } from '../tokens/token.view.js';
import { usageSchema } from '../usage/usage.view.js';
import {
  deletedWebhookEndpointSchema,
  webhookDeliveryListSchema,
  webhookEndpointListSchema,
  webhookEndpointSchema,
  webhookEndpointWithSecretSchema,
} from '../webhooks/webhook.view.js';
import { healthSchema, readinessSchema } from './health.view.js';
import { openApiDocumentSchema } from './openapi-document.view.js';
import { createAgentSchema, listAgentsQuery, updateAgentSchema } from '../agents/agents.schemas.js';
import { listApprovalsQuery, resolveApprovalSchema } from '../approvals/approvals.schemas.js';
import { listAuditQuery, verifyAuditQuery } from '../audit/audit.schemas.js';
import { authorizeSchema, getDecisionQuery, verifyTokenSchema } from '../authorization/authorize.schemas.js';
import { captureSchema, voidSchema } from '../capture/capture.schemas.js';
import type { Role } from '../db/database.js';
import { createPolicySchema, listPoliciesQuery, updatePolicySchema } from '../policies/policies.schemas.js';
import { createEndpointSchema, listEventsQuery, listQuery, redeliverSchema, updateEndpointSchema } from '../webhooks/webhooks.schemas.js';
import { createApiKeySchema, listApiKeysQuery } from './routes/api-keys.js';
import { simulateSchema } from '../policies/simulate.schemas.js';
import { usageQuery } from '../usage/usage.schemas.js';
import { quickstartAgentSchema, quickstartAuthorizeSchema, vaultSchema } from '../quickstart/quickstart.schemas.js';

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';

/**
 * One served route, as the OpenAPI document and the route label of metrics and logs know it.
 * `path` is written the Express way (`/v1/agents/:id`); the document turns `:id` into `{id}`.
 */
export interface RouteDoc {
  method: HttpMethod;
  path: string;
  summary: string;
  /** Groups operations in the document and on /docs. */
  tag: string;
  description?: string;
  /** Roles whose keys may call it; `public` needs no key at all. */
  roles: readonly Role[] | 'public';
  /** A zod schema the handler parses the JSON body with. */
  body?: z.ZodType;
  /** A zod object schema the handler parses the query string with. */
  query?: z.ZodObject;
  /** Path parameter descriptions, by name. */
  params?: Record<string, string>;
  /**
   * Status, meaning and schema of a successful answer: a response object schema (one of the
   * OpenAPI document's components), or none for non-JSON answers (`contentType`).
   */
  response: { status: number; description: string; schema?: z.ZodType; contentType?: string; /** Also answers RFC 4180 CSV for `Accept: text/csv`. */ csv?: boolean };
  /** Error statuses this operation can answer beyond the ones every operation of its kind can (see openapi.ts). */
  errors?: readonly (403 | 404 | 409 | 503)[];
  /** Operations a client can call next with a value of this answer (OpenAPI links): name → target and parameters. */
  links?: Record<string, { to: `${HttpMethod} ${string}`; parameters: Record<string, string> }>;
}

const ADMIN = ['admin'] as const;
const STAFF = ['admin', 'reviewer'] as const;
const ANY = ['admin', 'reviewer', 'agent'] as const;

const LIST_PAGE = 'A list: `{object: "list", data, has_more, next_cursor}`, newest first.';
const list = (schema: z.ZodType) => ({ status: 200, description: LIST_PAGE, schema });

/** A link that passes the answer's `field` as the `param` path parameter of `to`. */
const link = (to: `${HttpMethod} ${string}`, param: string, field: string) => ({ to, parameters: { [param]: `$response.body#/${field}` } });


const operational: RouteDoc[] = [
  { method: 'get', path: '/healthz', tag: 'Operations', roles: 'public', summary: 'Liveness: the process is up', response: { status: 200, description: 'The process is up', schema: healthSchema } },
  {
    method: 'get',
    path: '/readyz',
    tag: 'Operations',
    roles: 'public',
    summary: 'Readiness: the database answers; reports the workflow engine and the outbox lag',
    response: { status: 200, description: 'Ready (503 with the same object when the database is down)', schema: readinessSchema },
  },
  {
    method: 'get',
    path: '/metrics',
    tag: 'Operations',
    roles: 'public',
    summary: 'Prometheus metrics (text exposition format); no per-account data',
    response: { status: 200, description: 'Prometheus text format 0.0.4', contentType: 'text/plain' },
  },
  { method: 'get', path: '/docs', tag: 'Operations', roles: 'public', summary: 'This API reference as an HTML page', response: { status: 200, description: 'HTML', contentType: 'text/html' } },
  {
    method: 'get',
    path: '/dashboard',
    tag: 'Operations',
    roles: 'public',
    summary: 'The reviewer dashboard (a static page; it calls /v1 with a key pasted into it)',
    description: 'Its scripts and styles are served under /dashboard/. The page itself holds no data and needs no key.',
    response: { status: 200, description: 'HTML', contentType: 'text/html' },
  },
  { method: 'get', path: '/v1/openapi.json', tag: 'Operations', roles: 'public', summary: 'This OpenAPI 3.1 document', response: { status: 200, description: 'The document', schema: openApiDocumentSchema } },
];

const authorization: RouteDoc[] = [
  {
    method: 'post',
    path: '/v1/authorize',
    tag: 'Authorization',
    roles: ['admin', 'agent'],
    summary: 'Request a spend decision: approved (with a gca_ token), denied or held',
    description: 'Every completed check answers 200, including denied and held. Agent keys authorize only their own agent.',
    body: authorizeSchema,
    response: { status: 200, description: 'The decision object', schema: decisionSchema },
    errors: [404],
    links: {
      RetrieveDecision: link('get /v1/decisions/:id', 'id', 'decision_id'),
      ApproveHeldDecision: link('post /v1/approvals/:decision_id/approve', 'decision_id', 'decision_id'),
      DenyHeldDecision: link('post /v1/approvals/:decision_id/deny', 'decision_id', 'decision_id'),
    },
  },
  {
    method: 'get',
    path: '/v1/decisions/:id',
    tag: 'Authorization',
    roles: ANY,
    summary: 'The current state of a decision; `wait` long-polls while it is pending',
    params: { id: 'Decision id (`dec_…`)' },
    query: getDecisionQuery,
    response: { status: 200, description: 'The decision object', schema: decisionSchema },
  },
  {
    method: 'post',
    path: '/v1/decisions/:id/capture',
    tag: 'Authorization',
    roles: ADMIN,
    summary: 'Capture an approval: the amount the rail charged (default all); the rest is released from the budget',
    description:
      'Once only. `amount` above the approved amount → 400 (`param` amount). A second capture, or a capture of a voided, expired, denied or pending decision → 409 conflict. The token is consumed.',
    params: { id: 'Decision id (`dec_…`)' },
    body: captureSchema,
    response: { status: 200, description: 'The decision object, `capture.status` captured', schema: decisionSchema },
    errors: [409],
  },
  {
    method: 'post',
    path: '/v1/decisions/:id/void',
    tag: 'Authorization',
    roles: ADMIN,
    summary: 'Void an uncaptured approval: its whole amount is released and its token stops verifying',
    description: 'Voiding a captured, voided or expired approval, or a denied or pending decision → 409 conflict.',
    params: { id: 'Decision id (`dec_…`)' },
    body: voidSchema,
    response: { status: 200, description: 'The decision object, `capture.status` voided', schema: decisionSchema },
    errors: [409],
  },
  {
    method: 'post',
    path: '/v1/authorization-tokens/verify',
    tag: 'Authorization',
    roles: ANY,
    summary: 'Verify a gca_ authorization token by a call; `consume: true` (admin keys) uses it up',
    body: verifyTokenSchema,
    // `consume: true` needs an admin key.
    errors: [403],
    response: {
      status: 200,
      schema: tokenVerificationSchema,
      description:
        '`{valid, claims, error}`; `error`: malformed, unknown_key, bad_signature, expired (the token, or an approval not captured in time), wrong_issuer, wrong_audience (another account or mode), unknown_token, agent_inactive (agent frozen or deactivated), consumed (used once already, or captured), voided',
    },
  },
  {
    method: 'get',
    path: '/v1/.well-known/jwks.json',
    tag: 'Authorization',
    roles: 'public',
    summary: 'Public keys (JWKS) that verify gca_ tokens offline',
    response: { status: 200, description: 'A JSON Web Key Set', schema: jwksSchema },
  },
];

const approvals: RouteDoc[] = [
  { method: 'get', path: '/v1/approvals', tag: 'Approvals', roles: STAFF, summary: 'List held requests', query: listApprovalsQuery, response: list(approvalListSchema) },
  ...(['approve', 'deny'] as const).map(
    (action): RouteDoc => ({
      method: 'post',
      path: `/v1/approvals/:decision_id/${action}`,
      tag: 'Approvals',
      roles: STAFF,
      summary:
        action === 'approve'
          ? 'Approve a held request: one approval towards its quorum (approvals_required); a key approves once (409 again). Waits ≤ 10 s for the workflow; 409 if resolved, 503 if the engine is down'
          : 'Deny a held request: one denial denies at once (waits ≤ 10 s for the workflow; 409 if resolved, 503 if the engine is down)',
      params: { decision_id: 'Id of the held decision (`dec_…`)' },
      body: resolveApprovalSchema,
      response: { status: 200, description: action === 'approve' ? 'The decision object: still pending until the quorum is met, then approved' : 'The resolved decision object', schema: decisionSchema },
      errors: [409, 503],
    }),
  ),
];

const agents: RouteDoc[] = [
  { method: 'post', path: '/v1/agents', tag: 'Agents', roles: ADMIN, summary: 'Register an agent', body: createAgentSchema,
    response: { status: 201, description: 'The agent object', schema: agentSchema },
    errors: [404],
    links: {
      RetrieveAgent: link('get /v1/agents/:id', 'id', 'id'),
      UpdateAgent: link('patch /v1/agents/:id', 'id', 'id'),
      DeactivateAgent: link('delete /v1/agents/:id', 'id', 'id'),
      FreezeAgent: link('post /v1/agents/:id/freeze', 'id', 'id'),
    },
  },
  { method: 'get', path: '/v1/agents', tag: 'Agents', roles: STAFF, summary: 'List agents', query: listAgentsQuery, response: list(agentListSchema) },
  { method: 'get', path: '/v1/agents/:id', tag: 'Agents', roles: ANY, summary: 'Retrieve an agent (agent keys: their own only)', params: { id: 'Agent id (`agt_…`)' }, response: { status: 200, description: 'The agent object', schema: agentSchema } },
  { method: 'patch', path: '/v1/agents/:id', tag: 'Agents', roles: ADMIN, summary: 'Update an agent (metadata is merged; null removes a key)', params: { id: 'Agent id' }, body: updateAgentSchema, response: { status: 200, description: 'The agent object', schema: agentSchema }, errors: [409] },
  { method: 'delete', path: '/v1/agents/:id', tag: 'Agents', roles: ADMIN, summary: 'Deactivate an agent (terminal; denies its pending holds)', params: { id: 'Agent id' }, response: { status: 200, description: 'The agent object', schema: agentSchema } },
  { method: 'post', path: '/v1/agents/:id/freeze', tag: 'Agents', roles: STAFF, summary: 'Freeze an agent (denies its pending holds)', params: { id: 'Agent id' }, response: { status: 200, description: 'The agent object', schema: agentSchema } },
  { method: 'post', path: '/v1/agents/:id/unfreeze', tag: 'Agents', roles: STAFF, summary: 'Unfreeze an agent', params: { id: 'Agent id' }, response: { status: 200, description: 'The agent object', schema: agentSchema } },
];

const policies: RouteDoc[] = [
  { method: 'post', path: '/v1/policies', tag: 'Policies', roles: ADMIN, summary: 'Create a policy', body: createPolicySchema,
    response: { status: 201, description: 'The policy object', schema: policySchema },
    links: {
      RetrievePolicy: link('get /v1/policies/:id', 'id', 'id'),
      UpdatePolicy: link('patch /v1/policies/:id', 'id', 'id'),
      DeletePolicy: link('delete /v1/policies/:id', 'id', 'id'),
    },
  },
  { method: 'post', path: '/v1/policies/simulate', tag: 'Policies', roles: STAFF, summary: 'Evaluate a draft or saved policy against given or recorded requests, without side effects', body: simulateSchema, response: { status: 200, description: 'What the policy would have decided', schema: policySimulationSchema }, errors: [404] },
  { method: 'get', path: '/v1/policies', tag: 'Policies', roles: STAFF, summary: 'List policies', query: listPoliciesQuery, response: list(policyListSchema) },
  { method: 'get', path: '/v1/policies/:id', tag: 'Policies', roles: STAFF, summary: 'Retrieve a policy', params: { id: 'Policy id (`pol_…`)' }, response: { status: 200, description: 'The policy object', schema: policySchema } },
  { method: 'patch', path: '/v1/policies/:id', tag: 'Policies', roles: ADMIN, summary: 'Update a policy', params: { id: 'Policy id' }, body: updatePolicySchema, response: { status: 200, description: 'The policy object', schema: policySchema } },
  { method: 'delete', path: '/v1/policies/:id', tag: 'Policies', roles: ADMIN, summary: 'Delete a policy (409 while an agent is bound)', params: { id: 'Policy id' }, response: { status: 200, description: 'The deletion', schema: deletedPolicySchema }, errors: [409] },
];

const audit: RouteDoc[] = [
  {
    method: 'get',
    path: '/v1/audit-logs',
    tag: 'Audit log',
    roles: STAFF,
    summary: 'List audit records (JSON, or CSV with Accept: text/csv)',
    query: listAuditQuery,
    response: { status: 200, schema: auditRecordListSchema, csv: true, description: `${LIST_PAGE} With \`Accept: text/csv\`: RFC 4180 CSV with a header row, the next cursor in \`X-Next-Cursor\`.` },
  },
  { method: 'get', path: '/v1/audit-logs/verify', tag: 'Audit log', roles: STAFF, summary: 'Recompute the hash chain, count decisions without a record, check a kept checkpoint and sign a new one', query: verifyAuditQuery, response: { status: 200, description: 'The result of the check', schema: auditVerificationSchema } },
];

const apiKeys: RouteDoc[] = [
  { method: 'post', path: '/v1/api-keys', tag: 'API keys', roles: ADMIN, summary: 'Create an API key (the raw key is returned once)', body: createApiKeySchema,
    response: { status: 201, description: 'The key object with `key`', schema: createdApiKeySchema },
    errors: [404],
    links: { RevokeApiKey: link('delete /v1/api-keys/:id', 'id', 'id') },
  },
  { method: 'get', path: '/v1/api-keys', tag: 'API keys', roles: ADMIN, summary: 'List API keys (never the key itself)', query: listApiKeysQuery, response: list(apiKeyListSchema) },
  { method: 'get', path: '/v1/api-keys/self', tag: 'API keys', roles: ANY, summary: 'The calling key itself (mode, role, agent)', response: { status: 200, description: 'The key object', schema: apiKeySchema } },
  { method: 'delete', path: '/v1/api-keys/:id', tag: 'API keys', roles: ADMIN, summary: 'Revoke an API key', params: { id: 'Key id' }, response: { status: 200, description: 'The key object, revoked', schema: apiKeySchema } },
];

const webhooks: RouteDoc[] = [
  { method: 'post', path: '/v1/webhook-endpoints', tag: 'Webhooks', roles: ADMIN, summary: 'Create a webhook endpoint (the whsec_ secret is returned once)', body: createEndpointSchema,
    response: { status: 201, description: 'The endpoint object with `secret`', schema: webhookEndpointWithSecretSchema },
    links: {
      RetrieveWebhookEndpoint: link('get /v1/webhook-endpoints/:id', 'id', 'id'),
      UpdateWebhookEndpoint: link('patch /v1/webhook-endpoints/:id', 'id', 'id'),
      DeleteWebhookEndpoint: link('delete /v1/webhook-endpoints/:id', 'id', 'id'),
      RotateWebhookSecret: link('post /v1/webhook-endpoints/:id/rotate-secret', 'id', 'id'),
      ListWebhookDeliveries: link('get /v1/webhook-endpoints/:id/deliveries', 'id', 'id'),
    },
  },
  { method: 'get', path: '/v1/webhook-endpoints', tag: 'Webhooks', roles: STAFF, summary: 'List webhook endpoints', query: listQuery, response: list(webhookEndpointListSchema) },
  { method: 'get', path: '/v1/webhook-endpoints/:id', tag: 'Webhooks', roles: STAFF, summary: 'Retrieve a webhook endpoint', params: { id: 'Endpoint id' }, response: { status: 200, description: 'The endpoint object', schema: webhookEndpointSchema } },
  { method: 'patch', path: '/v1/webhook-endpoints/:id', tag: 'Webhooks', roles: ADMIN, summary: 'Update a webhook endpoint', params: { id: 'Endpoint id' }, body: updateEndpointSchema, response: { status: 200, description: 'The endpoint object', schema: webhookEndpointSchema } },
  { method: 'delete', path: '/v1/webhook-endpoints/:id', tag: 'Webhooks', roles: ADMIN, summary: 'Delete a webhook endpoint', params: { id: 'Endpoint id' }, response: { status: 200, description: 'The deletion', schema: deletedWebhookEndpointSchema } },
  { method: 'post', path: '/v1/webhook-endpoints/:id/rotate-secret', tag: 'Webhooks', roles: ADMIN, summary: 'Rotate the signing secret (returned once)', params: { id: 'Endpoint id' }, response: { status: 200, description: 'The endpoint object with the new `secret`', schema: webhookEndpointWithSecretSchema } },
  { method: 'get', path: '/v1/webhook-endpoints/:id/deliveries', tag: 'Webhooks', roles: STAFF, summary: "List an endpoint's deliveries and their attempts", params: { id: 'Endpoint id' }, query: listQuery, response: list(webhookDeliveryListSchema) },
  { method: 'get', path: '/v1/events', tag: 'Webhooks', roles: STAFF, summary: 'List events', query: listEventsQuery, response: list(eventListSchema) },
  { method: 'get', path: '/v1/events/:id', tag: 'Webhooks', roles: STAFF, summary: 'Retrieve an event', params: { id: 'Event id (`evt_…`)' }, response: { status: 200, description: 'The event object', schema: eventSchema } },
  { method: 'post', path: '/v1/events/:id/redeliver', tag: 'Webhooks', roles: ADMIN, summary: 'Deliver an event again (to one endpoint or every subscribed one)', params: { id: 'Event id' }, body: redeliverSchema, response: { status: 200, description: 'A list of the deliveries created (one page, `has_more` false)', schema: webhookDeliveryListSchema } },
];

const usage: RouteDoc[] = [
  { method: 'get', path: '/v1/usage', tag: 'Usage', roles: STAFF, summary: "A month's billable checks and overage", query: usageQuery, response: { status: 200, description: 'The usage', schema: usageSchema } },
];

const quickstart: RouteDoc[] = [
  { method: 'post', path: '/agents', tag: 'Quick start', roles: ADMIN, summary: 'Register an agent (quick-start surface)', body: quickstartAgentSchema, response: { status: 201, description: 'The agent object', schema: quickstartAgentView } },
  { method: 'post', path: '/vaults', tag: 'Quick start', roles: ADMIN, summary: 'Create a vault: a daily-budget policy bound to the agent, with a dlt_ token (returned once)', body: vaultSchema, response: { status: 201, description: 'The vault record with `token`', schema: vaultWithTokenSchema }, errors: [404] },
  { method: 'post', path: '/authorize', tag: 'Quick start', roles: ADMIN, summary: 'Authorize a spend with a dlt_ vault token; decimal amounts', body: quickstartAuthorizeSchema, response: { status: 200, description: 'The outcome in decimal USD', schema: quickstartAuthorizationSchema } },
];

/**
 * Every route the app serves. A new route adds its entry here (a test walks the Express router
 * and fails on any route missing from this list, and on any entry the app does not serve).
 */
export const ROUTE_DOCS: readonly RouteDoc[] = [
  ...operational,
  ...authorization,
  ...approvals,
  ...agents,
  ...policies,
  ...audit,
  ...apiKeys,
  ...webhooks,
  ...usage,
  ...quickstart,
];

/** The documented route a request is for (method and concrete path), if any. */
export function createRouteFinder(routes: readonly RouteDoc[] = ROUTE_DOCS): (method: string, path: string) => RouteDoc | undefined {
  const compiled = routes.map((route) => {
    const source = route.path
      .split('/')
      .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    return { method: route.method.toUpperCase(), route, regexp: new RegExp(`^${source}/?$`) };
  });
  return (method, path) => {
    const m = method === 'HEAD' ? 'GET' : method;
    return compiled.find((c) => c.method === m && c.regexp.test(path))?.route;
  };
}
