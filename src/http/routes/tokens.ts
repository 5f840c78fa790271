import { verifyTokenSchema } from '../../authorization/authorize.schemas.js';
import { verifyToken } from '../../authorization/decision-reads.service.js';
import { ANY_ROLE } from '../../kernel/caller.js';
import { jwksSchema, toJwksView, tokenVerificationSchema } from '../../tokens/token.view.js';
import { documentPerSource, publicDocument, sendPublicDocument } from '../public-document.js';
import { route, SENT, type RouteDeps } from '../route.js';

/**
 * The keys are fixed for the process's life: the document (the token keys, then the mandate keys)
 * is serialized once per app and served from memory.
 */
const jwksOf = documentPerSource((deps: RouteDeps) => publicDocument(JSON.stringify(toJwksView(deps.authorization.signer.keys.jwks, deps.mandates?.mandateKeys.jwks)), 'application/json'));

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
  // Public: rails fetch the keys to verify `gca_` tokens offline. Outside every rate-limit bucket,
  // so a flood of bad keys from a rail's address never starves its key fetch (docs/api.md, "Rate limits").
  route({
    method: 'get',
    path: '/v1/.well-known/jwks.json',
    tag: 'Authorization',
    roles: 'public',
    summary: 'Public keys (JWKS) that verify gca_ tokens, AP2 mandates and payment receipts offline',
    cacheable: { etag: true },
    response: { status: 200, description: 'A JSON Web Key Set', schema: jwksSchema },
    handler: ({ deps, req, res }) => {
      sendPublicDocument(req, res, jwksOf(deps));
      return SENT;
    },
  }),
];
