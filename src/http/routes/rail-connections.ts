import { Router, type Request } from 'express';
import { createRailConnectionSchema, listRailConnectionsQuery } from '../../rail-connections/rail-connections.schemas.js';
import {
  createRailConnection,
  deleteRailConnection,
  getRailConnection,
  listRailConnections,
  type RailConnectionDeps,
} from '../../rail-connections/rail-connections.service.js';
import { callerOf } from '../context.js';
import { bodyObject, parse } from '../validate.js';

export interface RailConnectionRoutesDeps extends RailConnectionDeps {
  /** PUBLIC_BASE_URL; absent: the address the request came to (local development). */
  publicBaseUrl?: string | undefined;
}

/** `/v1/rail-connections`: admins create and delete, reviewers read. */
export function railConnectionsRouter(deps: RailConnectionRoutesDeps): Router {
  const r = Router();
  const baseUrl = (req: Request) => deps.publicBaseUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
  r.post('/', async (req, res) => {
    res.status(201).json(await createRailConnection(deps, callerOf(req), parse(createRailConnectionSchema, bodyObject(req.body)), baseUrl(req)));
  });
  r.get('/', async (req, res) => {
    res.json(await listRailConnections(deps, callerOf(req), parse(listRailConnectionsQuery, req.query), baseUrl(req)));
  });
  r.get('/:id', async (req, res) => {
    res.json(await getRailConnection(deps, callerOf(req), req.params.id!, baseUrl(req)));
  });
  r.delete('/:id', async (req, res) => {
    res.json(await deleteRailConnection(deps, callerOf(req), req.params.id!));
  });
  return r;
}
