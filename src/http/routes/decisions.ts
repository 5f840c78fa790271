import { Router } from 'express';
import { getDecisionQuery } from '../../authorization/authorize.schemas.js';
import { getDecision, type AuthorizationDeps } from '../../authorization/authorization.service.js';
import { captureSchema, voidSchema } from '../../capture/capture.schemas.js';
import { captureDecision, voidDecision } from '../../capture/capture.service.js';
import { callerOf } from '../context.js';
import { bodyObject, parse } from '../validate.js';

export function decisionsRouter(deps: AuthorizationDeps): Router {
  const r = Router();
  r.get('/:id', async (req, res) => {
    const { wait } = parse(getDecisionQuery, req.query);
    // Stop long-polling as soon as the client goes away.
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    res.json(await getDecision(deps, callerOf(req), req.params.id!, wait ?? 0, abort.signal));
  });
  r.post('/:id/capture', async (req, res) => {
    const input = parse(captureSchema, bodyObject(req.body));
    res.json(await captureDecision(deps, callerOf(req), req.params.id!, input, req.idempotency));
  });
  r.post('/:id/void', async (req, res) => {
    parse(voidSchema, bodyObject(req.body));
    res.json(await voidDecision(deps, callerOf(req), req.params.id!, req.idempotency));
  });
  return r;
}
