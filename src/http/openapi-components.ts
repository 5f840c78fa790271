import { z } from 'zod';
import { agentListSchema, agentSchema } from '../agents/agent.view.js';
import { agentKeyListSchema, agentKeySchema } from '../agent-keys/agent-key.view.js';
import { auditRecordListSchema, auditRecordSchema, auditVerificationSchema } from '../audit/audit.view.js';
import { approvalListSchema, approvalSchema, decisionEventDataSchema, decisionSchema } from '../decisions/decision.view.js';
import type { ErrorCode } from '../kernel/errors.js';
import { eventListSchema, eventSchema, webhookPayloadSchema } from '../webhooks/event.view.js';
import { approvalCompletedDataSchema, approvalEscalatedDataSchema } from '../approvals/approval-events.js';
import { EVENT_TYPES, type EventType } from '../events/events.repository.js';
import { apiKeyListSchema, apiKeySchema, createdApiKeySchema } from '../keys/api-key.view.js';
import { deletedPolicySchema, policyListSchema, policySchema } from '../policies/policy.view.js';
import { policySimulationSchema } from '../simulation/simulation.view.js';
import { quickstartAgentSchema, quickstartAuthorizationSchema, vaultWithTokenSchema } from '../quickstart/quickstart.view.js';
import { jwksSchema, tokenClaimsSchema, tokenVerificationSchema } from '../tokens/token.view.js';
import { usageSchema } from '../usage/usage.view.js';
import {
  deletedWebhookEndpointSchema,
  webhookDeliveryListSchema,
  webhookDeliverySchema,
  webhookEndpointListSchema,
  webhookEndpointSchema,
  webhookEndpointWithSecretSchema,
} from '../webhooks/webhook.view.js';
import { healthSchema, readinessSchema } from './health.view.js';
import { mandateListSchema, mandateSchema } from '../mandates/mandate.view.js';
import { mandateVerificationSchema } from '../mandates/verify.schemas.js';
import { deletedRailConnectionSchema, railConnectionListSchema, railConnectionSchema } from '../rail-connections/rail-connection.view.js';
import { railAnswerSchema } from '../rail-connections/rail-endpoint.view.js';
import { openApiDocumentSchema } from './openapi-document.view.js';

type JsonSchema = Record<string, unknown>;

/** What each error code means; typed so a new code cannot be left out of the document. */
export const ERROR_CODES: Record<ErrorCode, string> = {
  invalid_request: '400 (413 for a body over 64 KiB): a missing or malformed field, query parameter or body',
  unauthorized: '401: missing, malformed, unknown or revoked key',
  signature_required: "401: the agent's policy requires signed requests and this one carries no `web-bot-auth` signature",
  signature_invalid: '401: the request signature is malformed, does not cover what it must, or does not verify (`param` `Content-Digest` when the body does not match its digest)',
  signature_key_unknown: "401: no `web-bot-auth` signature names an active key of the request's agent",
  signature_expired: '401: the request signature expired (its `expires` more than 30 s ago)',
  signature_replayed: '401: this signature (key and nonce) was already used',
  forbidden: "403: the key's role or the account's plan does not allow it",
  agent_frozen: '403: authorize for a frozen agent',
  agent_deactivated: '403: authorize for a deactivated agent',
  not_found: '404: unknown route or id (including another account’s or mode’s)',
  conflict: '409: state conflict, or an Idempotency-Key reused with another request',
  rate_limited: "429: over the plan's per-minute limit",
  service_unavailable: '503: a dependency the call needs is down',
  internal_error: '500: a bug; the message is generic',
};

export const errorEnvelopeSchema = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]),
      message: z.string().describe('For people: what went wrong and, where it helps, what to do'),
      param: z.string().optional().describe('The offending parameter, dotted for nested fields'),
      request_id: z.string().optional().describe('Equal to the X-Request-Id response header'),
    }),
  })
  .describe(`The error envelope. Codes: ${Object.entries(ERROR_CODES).map(([code, when]) => `\`${code}\` ${when}`).join('; ')}.`);

/** `authorize.approved` → `AuthorizeApprovedWebhook` */
export const webhookComponentName = (type: EventType) =>
  `${type
    .split(/[._]/)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('')}Webhook`;

/**
 * Every response object, by its component name. Each is the zod schema its view function is
 * typed with, so the document cannot drift from what the handlers send.
 */
export const COMPONENT_SCHEMAS: Record<string, z.ZodType> = {
  Error: errorEnvelopeSchema,
  Decision: decisionSchema,
  DecisionEventData: decisionEventDataSchema,
  Approval: approvalSchema,
  ApprovalList: approvalListSchema,
  TokenVerification: tokenVerificationSchema,
  TokenClaims: tokenClaimsSchema,
  JWKS: jwksSchema,
  Agent: agentSchema,
  AgentList: agentListSchema,
  AgentKey: agentKeySchema,
  AgentKeyList: agentKeyListSchema,
  Mandate: mandateSchema,
  MandateList: mandateListSchema,
  MandateVerification: mandateVerificationSchema,
  Policy: policySchema,
  PolicyList: policyListSchema,
  DeletedPolicy: deletedPolicySchema,
  PolicySimulation: policySimulationSchema,
  AuditRecord: auditRecordSchema,
  AuditRecordList: auditRecordListSchema,
  AuditVerification: auditVerificationSchema,
  ApiKey: apiKeySchema,
  CreatedApiKey: createdApiKeySchema,
  ApiKeyList: apiKeyListSchema,
  WebhookEndpoint: webhookEndpointSchema,
  WebhookEndpointWithSecret: webhookEndpointWithSecretSchema,
  DeletedWebhookEndpoint: deletedWebhookEndpointSchema,
  WebhookEndpointList: webhookEndpointListSchema,
  WebhookDelivery: webhookDeliverySchema,
  WebhookDeliveryList: webhookDeliveryListSchema,
  Event: eventSchema,
  EventList: eventListSchema,
  ApprovalCompletedData: approvalCompletedDataSchema,
  ApprovalEscalatedData: approvalEscalatedDataSchema,
  Usage: usageSchema,
  QuickstartAgent: quickstartAgentSchema,
  // A vault is answered only when it is created, with its token.
  Vault: vaultWithTokenSchema,
  QuickstartAuthorization: quickstartAuthorizationSchema,
  Health: healthSchema,
  Readiness: readinessSchema,
  OpenApiDocument: openApiDocumentSchema,
  RailConnection: railConnectionSchema,
  RailConnectionList: railConnectionListSchema,
  DeletedRailConnection: deletedRailConnectionSchema,
  RailAnswer: railAnswerSchema,
  ...Object.fromEntries(EVENT_TYPES.map((type) => [webhookComponentName(type), webhookPayloadSchema(type)])),
};

/** Drops what JSON Schema tools do not need: per-schema `$schema`/`$id`, and the long regex zod adds beside `format: date-time`. */
function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (!node || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema' || key === '$id') continue;
    if (key === 'pattern' && ((node as JsonSchema).format === 'date-time' || (node as JsonSchema).format === 'date')) continue;
    out[key] = tidy(value);
  }
  return out;
}

/** The component schemas, nested objects referencing each other by `$ref`. */
export function componentSchemas(): { schemas: Record<string, JsonSchema>; nameOf: (schema: z.ZodType) => string } {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(COMPONENT_SCHEMAS)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io: 'output',
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
  });
  return {
    schemas: tidy(schemas) as Record<string, JsonSchema>,
    nameOf: (schema) => {
      const id = registry.get(schema)?.id;
      if (!id) throw new Error(`a response schema is not a component: add it to COMPONENT_SCHEMAS (${schema.description ?? 'no description'})`);
      return id;
    },
  };
}
