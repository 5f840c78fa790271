import { z } from 'zod';
import { listOf } from '../db/pagination.js';
import type { RailConnectionsTable, Selectable } from '../db/database.js';
import { idOf, instant, livemodeField } from '../kernel/view-fields.js';
import { ON_TIMEOUT } from './rail-connections.schemas.js';

export type RailConnectionRow = Selectable<RailConnectionsTable>;

/** Where a connection's rail sends its requests: the service's public address and the connection's path. */
export const railEndpointPath = (id: string) => `/rails/stripe-issuing/${id}`;

export const railConnectionSchema = z
  .object({
    id: idOf('rail', 'Connection id'),
    object: z.literal('rail_connection'),
    type: z.enum(['stripe_issuing']).describe('The rail'),
    livemode: livemodeField,
    endpoint_url: z.string().describe("The URL to give the rail: Stripe's real-time authorization webhook (and the issuing events) go here"),
    stripe_version: z.string().describe('The Stripe API version of the endpoint, sent as `Stripe-Version` on every answer'),
    on_timeout: z.enum(ON_TIMEOUT).describe('The answer when no decision is reached within the deadline'),
    created_at: instant('Creation time'),
  })
  .describe('A rail that asks this service before it moves money: a Stripe Issuing card program. The signing secret is never shown.');
export type RailConnectionView = z.infer<typeof railConnectionSchema>;

export const railConnectionListSchema = listOf(railConnectionSchema, 'rail connections');

export const deletedRailConnectionSchema = z
  .object({ id: idOf('rail', 'Connection id'), object: z.literal('rail_connection'), deleted: z.literal(true) })
  .describe('The answer to deleting a rail connection: its endpoint refuses every request from now on.');
export type DeletedRailConnectionView = z.infer<typeof deletedRailConnectionSchema>;

/** The fields a client may see: never the sealed secret. */
export function toRailConnectionView(row: RailConnectionRow, baseUrl: string): RailConnectionView {
  return {
    id: row.id,
    object: 'rail_connection',
    type: row.type,
    livemode: row.livemode,
    endpoint_url: `${baseUrl.replace(/\/+$/, '')}${railEndpointPath(row.id)}`,
    stripe_version: row.stripe_version,
    on_timeout: row.on_timeout,
    created_at: row.created_at.toISOString(),
  };
}
