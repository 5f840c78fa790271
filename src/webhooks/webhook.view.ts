import { z } from 'zod';
import { listOf } from '../db/pagination.js';
import { EVENT_TYPES } from '../events/events.repository.js';
import { idOf, instant, livemodeField } from '../kernel/view-fields.js';
import type { AttemptRow, DeliveryRow, EndpointRow } from './webhooks.repository.js';

export const webhookEndpointSchema = z
  .object({
    id: idOf('we', 'Endpoint id'),
    object: z.literal('webhook_endpoint'),
    url: z.string().describe('Where deliveries are POSTed (https in live mode)'),
    description: z.string().nullable().describe('Free text'),
    events: z.array(z.enum([...EVENT_TYPES, '*'])).describe('Subscribed event types, or `["*"]` for all'),
    enabled: z.boolean().describe('Disabled endpoints get no new deliveries'),
    previous_secret_expires_at: instant('Until when the secret before the last rotation also signs deliveries')
      .nullable()
      .describe('Until when the secret before the last rotation also signs deliveries (X-Service-Signature-Previous); null when it does not'),
    livemode: livemodeField,
    created_at: instant('Creation time'),
    updated_at: instant('Last change'),
  })
  .describe('A webhook endpoint: a URL that receives signed event deliveries.');
export type WebhookEndpointView = z.infer<typeof webhookEndpointSchema>;

export const webhookEndpointWithSecretSchema = webhookEndpointSchema
  .extend({ secret: z.string().regex(/^whsec_[0-9A-Za-z]+$/).describe('The signing secret: shown by create and rotate-secret only') })
  .describe('A webhook endpoint with its signing secret (answer of create and rotate-secret only).');
export type WebhookEndpointWithSecretView = z.infer<typeof webhookEndpointWithSecretSchema>;

export const deletedWebhookEndpointSchema = z
  .object({ id: idOf('we', 'Endpoint id'), object: z.literal('webhook_endpoint'), deleted: z.literal(true) })
  .describe('The answer to deleting a webhook endpoint.');
export type DeletedWebhookEndpointView = z.infer<typeof deletedWebhookEndpointSchema>;

export const webhookEndpointListSchema = listOf(webhookEndpointSchema, 'webhook endpoints');

const deliveryAttemptSchema = z
  .object({
    attempted_at: instant('When the POST was sent'),
    duration_ms: z.number().int().nonnegative().describe('Time to the answer or the failure'),
    status_code: z.number().int().nullable().describe("The receiver's HTTP status; null when there was no answer"),
    error: z.string().nullable().describe('Why the attempt failed; null on success'),
  })
  .describe('One delivery attempt.');

export const webhookDeliverySchema = z
  .object({
    id: idOf('del', 'Delivery id'),
    object: z.literal('webhook_delivery'),
    event_id: idOf('evt', 'The delivered event'),
    endpoint_id: idOf('we', 'The receiving endpoint'),
    status: z.enum(['pending', 'delivered', 'failed']).describe('`pending` while retrying (up to 3 days); `failed` once retries are exhausted'),
    attempt_count: z.number().int().nonnegative().describe('Attempts so far'),
    last_status_code: z.number().int().nullable().describe("The last attempt's HTTP status"),
    last_error: z.string().nullable().describe("The last attempt's error"),
    created_at: instant('Creation time'),
    completed_at: instant('When it was delivered or given up').nullable(),
    attempts: z.array(deliveryAttemptSchema).describe('Its recent attempts (empty in the answer to redeliver)'),
    livemode: livemodeField,
  })
  .describe('The delivery of one event to one endpoint, with its attempts.');
export type WebhookDeliveryView = z.infer<typeof webhookDeliverySchema>;

export const webhookDeliveryListSchema = listOf(webhookDeliverySchema, 'deliveries');

/** Whitelisted fields: the secret appears only in create and rotate answers. */
export function toEndpointView(row: EndpointRow): WebhookEndpointView {
  return {
    id: row.id,
    object: 'webhook_endpoint',
    url: row.url,
    description: row.description,
    events: row.events as WebhookEndpointView['events'],
    enabled: row.enabled,
    previous_secret_expires_at: row.previous_secret_sealed && row.previous_secret_expires_at && row.previous_secret_expires_at > new Date() ? row.previous_secret_expires_at.toISOString() : null,
    livemode: row.livemode,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function toDeliveryView(row: DeliveryRow, attempts: AttemptRow[] = []): WebhookDeliveryView {
  return {
    id: row.id,
    object: 'webhook_delivery',
    event_id: row.event_id,
    endpoint_id: row.endpoint_id,
    status: row.status,
    attempt_count: Number(row.attempt_count),
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    created_at: row.created_at.toISOString(),
    completed_at: row.completed_at?.toISOString() ?? null,
    attempts: attempts.map((a) => ({
      attempted_at: a.attempted_at.toISOString(),
      duration_ms: a.duration_ms,
      status_code: a.status_code,
      error: a.error,
    })),
    livemode: row.livemode,
  };
}
