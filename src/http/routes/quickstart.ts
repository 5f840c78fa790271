import { Router } from 'express';
import type { AuthorizationDeps } from '../../authorization/authorization.service.js';
import { quickstartAgentSchema, quickstartAuthorizeSchema, vaultSchema } from '../../quickstart/quickstart.schemas.js';
import { authorizeWithVault, createQuickstartAgent, createVault } from '../../quickstart/quickstart.service.js';
import { callerOf } from '../context.js';
import { bodyObject, parse } from '../validate.js';

/** The quick-start paths; the app puts its auth, body and idempotency middleware in front of them. */
export const QUICKSTART_PATHS = ['/agents', '/vaults', '/authorize'];

/** SPEC §4.6, DECISIONS §11: unprefixed paths, decimal amounts, vault tokens. */
export function quickstartRouter(deps: AuthorizationDeps): Router {
  const r = Router();
  r.post('/agents', async (req, res) => {
    res.status(201).json(await createQuickstartAgent(deps.db, callerOf(req), parse(quickstartAgentSchema, bodyObject(req.body))));
  });
  r.post('/vaults', async (req, res) => {
    res.status(201).json(await createVault(deps.db, callerOf(req), parse(vaultSchema, bodyObject(req.body))));
  });
  // Every completed check is a 200, whether approved, denied or pending (DECISIONS §2).
  r.post('/authorize', async (req, res) => {
    const input = parse(quickstartAuthorizeSchema, bodyObject(req.body));
    res.json(await authorizeWithVault(deps, callerOf(req), input, req.idempotency));
  });
  return r;
}
