import { Router } from 'express';
import { getDecisionQuery } from '../../authorization/authorize.schemas.js';
import { getDecision, type AuthorizationDeps } from '../../authorization/authorization.service.js';
import { callerOf } from '../context.js';
import { parse } from '../validate.js';

export function decisionsRouter(deps: AuthorizationDeps): Router {
  const r = Router();
  r.get('/:id', async (req, res) => {
    const { wait } = parse(getDecisionQuery, req.query);
    // Stop long-polling as soon as the client goes away.
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    res.json(await getDecision(deps, callerOf(req), req.params.id!, wait ?? 0, abort.signal));
  });
  return r;
}
