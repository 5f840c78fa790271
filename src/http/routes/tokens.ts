import { verifyTokenSchema } from '../../authorization/authorize.schemas.js';
import { verifyToken } from '../../authorization/authorization.service.js';
import { ANY_ROLE } from '../../kernel/caller.js';
import { jwksSchema, toJwksView, tokenVerificationSchema } from '../../tokens/token.view.js';
import { route } from '../route.js';

export const tokensRoutes = [
  route({
    method: 'post',
    path: '/v1/authorization-tokens/verify',
    tag: 'Authorization',
    roles: ANY_ROLE,
    summary: 'Verify a gca_ authorization token by a call; `consume: true` (admin keys) uses it up',
    body: verifyTokenSchema,
    // `consume: true` needs an admin key.
    errors: [403],
    response: {
      status: 200,
      schema: tokenVerificationSchema,
      description:
        '`{valid, claims, error}`; `error`: malformed, unknown_key, bad_signature, expired (the token, or an approval not captured in time), wrong_issuer, wrong_audience (another account or mode), unknown_token, agent_inactive (agent frozen or deactivated), consumed (used once already, or captured), voided',
    },
    handler: ({ deps, caller, body }) => verifyToken(deps.authorization, caller, body.token, body.consume ?? false),
  }),
  // Public: rails fetch the keys to verify `gca_` tokens offline.
  route({
    method: 'get',
    path: '/v1/.well-known/jwks.json',
    tag: 'Authorization',
    roles: 'public',
    summary: 'Public keys (JWKS) that verify gca_ tokens offline',
    response: { status: 200, description: 'A JSON Web Key Set', schema: jwksSchema },
    handler: ({ deps, res }) => {
      res.setHeader('Cache-Control', 'public, max-age=300');
      return toJwksView(deps.authorization.signer.keys.jwks);
    },
  }),
];
