import { Router } from 'express';
import { verifyTokenSchema } from '../../authorization/authorize.schemas.js';
import { verifyToken, type AuthorizationDeps } from '../../authorization/authorization.service.js';
import type { TokenSigner } from '../../tokens/authorization-token.js';
import { toJwksView, type TokenVerificationView } from '../../tokens/token.view.js';
import { callerOf } from '../context.js';
import { publicDocument, sendPublicDocument } from '../public-document.js';
import { bodyObject, parse } from '../validate.js';

/**
 * Public: rails fetch the keys to verify `gca_` tokens offline. The keys are fixed for the
 * process's life, so the document is serialized once and served from memory, outside every
 * rate-limit bucket, with Cache-Control and an ETag.
 */
export function jwksRouter(signer: TokenSigner): Router {
  const r = Router();
  const jwks = publicDocument(JSON.stringify(toJwksView(signer.keys.jwks)), 'application/json');
  r.get('/.well-known/jwks.json', (req, res) => {
    sendPublicDocument(req, res, jwks);
  });
  return r;
}

export function tokensRouter(deps: AuthorizationDeps): Router {
  const r = Router();
  r.post('/verify', async (req, res) => {
    const { token, consume } = parse(verifyTokenSchema, bodyObject(req.body));
    res.json((await verifyToken(deps, callerOf(req), token, consume ?? false)) satisfies TokenVerificationView);
  });
  return r;
}
