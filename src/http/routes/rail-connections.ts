import type { Request } from 'express';
import { ADMIN, STAFF } from '../../kernel/caller.js';
import { deletedRailConnectionSchema, railConnectionListSchema, railConnectionSchema } from '../../rail-connections/rail-connection.view.js';
import { createRailConnectionSchema, listRailConnectionsQuery } from '../../rail-connections/rail-connections.schemas.js';
import { createRailConnection, deleteRailConnection, getRailConnection, listRailConnections } from '../../rail-connections/rail-connections.service.js';
import { link, list, route, type RouteDeps } from '../route.js';

/** Where the connection's endpoint is: PUBLIC_BASE_URL, else the address the request came to (local development). */
const baseUrl = (deps: RouteDeps, req: Request) => deps.railConnections.publicBaseUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
const ID = { id: 'Connection id (`rail_…`)' };

/** `/v1/rail-connections`: admins create and delete, reviewers read (docs/rails/stripe-issuing.md). */
export const railConnectionsRoutes = [
  route({
    method: 'post',
    path: '/v1/rail-connections',
    tag: 'Rails',
    roles: ADMIN,
    summary: 'Connect a rail that asks first (Stripe Issuing real-time authorizations); the signing secret is write-only',
    description:
      'Answers the connection with its `endpoint_url`: give it to Stripe as the real-time authorization webhook and the endpoint of the issuing events. See docs/rails/stripe-issuing.md.',
    body: createRailConnectionSchema,
    response: { status: 201, description: 'The rail connection (never its secret)', schema: railConnectionSchema },
    links: {
      RetrieveRailConnection: link('get /v1/rail-connections/:id', 'id', 'id'),
      DeleteRailConnection: link('delete /v1/rail-connections/:id', 'id', 'id'),
    },
    handler: ({ deps, caller, body, req }) => createRailConnection(deps.railConnections, caller, body, baseUrl(deps, req)),
  }),
  route({
    method: 'get',
    path: '/v1/rail-connections',
    tag: 'Rails',
    roles: STAFF,
    summary: 'List rail connections',
    query: listRailConnectionsQuery,
    response: list(railConnectionListSchema),
    handler: ({ deps, caller, query, req }) => listRailConnections(deps.railConnections, caller, query, baseUrl(deps, req)),
  }),
  route({
    method: 'get',
    path: '/v1/rail-connections/:id',
    tag: 'Rails',
    roles: STAFF,
    summary: 'Retrieve a rail connection',
    params: ID,
    response: { status: 200, description: 'The rail connection', schema: railConnectionSchema },
    handler: ({ deps, caller, params, req }) => getRailConnection(deps.railConnections, caller, params.id, baseUrl(deps, req)),
  }),
  route({
    method: 'delete',
    path: '/v1/rail-connections/:id',
    tag: 'Rails',
    roles: ADMIN,
    summary: 'Delete a rail connection: its endpoint refuses every request from then on',
    params: ID,
    response: { status: 200, description: 'The deletion', schema: deletedRailConnectionSchema },
    handler: ({ deps, caller, params }) => deleteRailConnection(deps.railConnections, caller, params.id),
  }),
];
