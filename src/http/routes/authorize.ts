import { Router } from 'express';
import { authorizeSchema } from '../../authorization/authorize.schemas.js';
import { authorize, type AuthorizationDeps } from '../../authorization/authorization.service.js';
import { callerOf } from '../context.js';
import { bodyObject, parse } from '../validate.js';

export function authorizeRouter(deps: AuthorizationDeps): Router {
  const r = Router();
  r.post('/', async (req, res) => {
    const input = parse(authorizeSchema, bodyObject(req.body));
    res.json(await authorize(deps, callerOf(req), input, req.idempotency));
  });
  return r;
}
