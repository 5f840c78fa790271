import { Router } from 'express';
import { createEndpointSchema, listEventsQuery, listQuery, redeliverSchema, rotateSecretSchema, updateEndpointSchema } from '../../webhooks/webhooks.schemas.js';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  getEvent,
  listDeliveries,
  listEndpoints,
  listEvents,
  redeliverEvent,
  rotateSecret,
  updateEndpoint,
  type WebhookDeps,
} from '../../webhooks/webhooks.service.js';
import { callerOf } from '../context.js';
import { bodyObject, parse } from '../validate.js';

export function webhookEndpointsRouter(deps: WebhookDeps): Router {
  const r = Router();
  r.post('/', async (req, res) => {
    res.status(201).json(await createEndpoint(deps, callerOf(req), parse(createEndpointSchema, bodyObject(req.body))));
  });
  r.get('/', async (req, res) => {
    res.json(await listEndpoints(deps, callerOf(req), parse(listQuery, req.query)));
  });
  r.get('/:id', async (req, res) => {
    res.json(await getEndpoint(deps, callerOf(req), req.params.id!));
  });
  r.patch('/:id', async (req, res) => {
    res.json(await updateEndpoint(deps, callerOf(req), req.params.id!, parse(updateEndpointSchema, bodyObject(req.body))));
  });
  r.delete('/:id', async (req, res) => {
    res.json(await deleteEndpoint(deps, callerOf(req), req.params.id!));
  });
  r.post('/:id/rotate-secret', async (req, res) => {
    res.json(await rotateSecret(deps, callerOf(req), req.params.id!, parse(rotateSecretSchema, bodyObject(req.body))));
  });
  r.get('/:id/deliveries', async (req, res) => {
    res.json(await listDeliveries(deps, callerOf(req), req.params.id!, parse(listQuery, req.query)));
  });
  return r;
}

export function eventsRouter(deps: WebhookDeps): Router {
  const r = Router();
  r.get('/', async (req, res) => {
    res.json(await listEvents(deps, callerOf(req), parse(listEventsQuery, req.query)));
  });
  r.get('/:id', async (req, res) => {
    res.json(await getEvent(deps, callerOf(req), req.params.id!));
  });
  r.post('/:id/redeliver', async (req, res) => {
    const { endpoint_id } = parse(redeliverSchema, bodyObject(req.body));
    res.json(await redeliverEvent(deps, callerOf(req), req.params.id!, endpoint_id));
  });
  return r;
}
