import { Router } from 'express';
import { verifyTokenSchema } from '../../authorization/authorize.schemas.js';
import { verifyToken, type AuthorizationDeps } from '../../authorization/authorization.service.js';
import type { TokenSigner } from '../../tokens/authorization-token.js';
import { callerOf } from '../context.js';
import { bodyObject, parse } from '../validate.js';

/** Public: rails fetch the keys to verify `gca_` tokens offline. */
export function jwksRouter(signer: TokenSigner): Router {
  const r = Router();
  r.get('/.well-known/jwks.json', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.json(signer.keys.jwks);
  });
  return r;
}

export function tokensRouter(deps: AuthorizationDeps): Router {
  const r = Router();
  r.post('/verify', async (req, res) => {
    const { token, consume } = parse(verifyTokenSchema, bodyObject(req.body));
    res.json(await verifyToken(deps, callerOf(req), token, consume ?? false));
  });
  return r;
}
