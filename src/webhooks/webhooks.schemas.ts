import { z } from 'zod';
import { cursorSchema } from '../db/pagination.js';

/** Checked by src/webhooks/ssrf.ts (absolute http(s), public host); the document says what a schema can. */
const endpointUrl = () =>
  z
    .string()
    .trim()
    .min(1)
    .max(2048)
    .meta({
      format: 'uri',
      pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\u0000]*$',
      description: 'An absolute https URL (http only in test mode) whose host resolves to public addresses; no credentials',
    });
import { EVENT_TYPES } from '../events/events.repository.js';
import { limitSchema } from '../kernel/schemas.js';

const eventList = z
  .array(z.enum([...EVENT_TYPES, '*'] as unknown as [string, ...string[]]))
  .min(1)
  .max(EVENT_TYPES.length + 1)
  .transform((list) => (list.includes('*') ? ['*'] : [...new Set(list)]));

export const createEndpointSchema = z.strictObject({
  url: endpointUrl(),
  events: eventList,
  description: z.string().max(500).trim().optional(),
});

export const updateEndpointSchema = z.strictObject({
  url: endpointUrl().optional(),
  events: eventList.optional(),
  enabled: z.boolean().optional(),
  description: z.string().max(500).trim().nullable().optional(),
});

export const listQuery = z.strictObject({
  limit: limitSchema(20, 100),
  cursor: cursorSchema().optional(),
});

export const listEventsQuery = listQuery.extend({
  type: z.enum(EVENT_TYPES as unknown as [string, ...string[]]).optional(),
});

export const redeliverSchema = z.strictObject({
  endpoint_id: z.string().min(1).max(100).optional(),
});

export type CreateEndpointInput = z.output<typeof createEndpointSchema>;
export type UpdateEndpointInput = z.output<typeof updateEndpointSchema>;
