import { ADMIN, ANY_ROLE, type Role } from '../../kernel/caller.js';
import { AppError } from '../../kernel/errors.js';
import type { MandateDeps } from '../../mandates/mandate-deps.js';
import { mandateListSchema, mandateSchema } from '../../mandates/mandate.view.js';
import { createMandateSchema, listMandatesQuery } from '../../mandates/mandates.schemas.js';
import { createMandate, getMandate, listMandates, revokeMandate } from '../../mandates/mandates.service.js';
import { verifyPresentation } from '../../mandates/mandate-verify.service.js';
import { mandateVerificationSchema, verifyMandateSchema } from '../../mandates/verify.schemas.js';
import { link, list, route, SENT, type RouteDeps } from '../route.js';

const mandateObject = { status: 200, description: 'The mandate object', schema: mandateSchema };
const idParam = { id: 'Mandate id (`mdt_…`)' };
/** Verify: an admin key, or a key of the mandate's agent (checked against the credential's `jti`); reviewers cannot. */
const VERIFIERS: readonly Role[] = ['admin', 'agent'];

/** The process gives the app its mandate keys (MANDATE_SIGNING_KEY); an app built without them serves no mandates. */
function mandatesOf(deps: RouteDeps): MandateDeps {
  if (!deps.mandates) throw new AppError('service_unavailable', 'AP2 mandates are not configured in this process.');
  return deps.mandates;
}

/** AP2 mandates (DECISIONS §20): issued to an agent, closed by it, verified here. */
export const mandatesRoutes = [
  route({
    method: 'post',
    path: '/v1/mandates/verify',
    tag: 'Mandates',
    roles: VERIFIERS,
    summary: 'Verify an AP2 mandate presentation (`<open>~~<closed>~`) and decide the payment it closes',
    description:
      'The presentation is checked in the order of DECISIONS §20 (first failure wins), and every completed check answers 200 with AP2\'s signed receipt: `status: "Success"` with a `gca_` token, or `status: "Error"` with AP2\'s `error` (`mandates_not_supported`, `invalid_credential`, `invalid_mandate`, `unresolved_constraint`). From the policy checks on, the outcome is a decision like an authorize one (counted, audited, billed). The same closed mandate presented again gets its first answer, byte for byte, with `Idempotent-Replayed: true`. 400 only for the body\'s shape.',
    body: verifyMandateSchema,
    response: { status: 200, description: 'The verification: AP2\'s outcome, its receipt and the decision made', schema: mandateVerificationSchema },
    responseHeaders: {
      'Idempotent-Replayed': {
        description: '`true` when this closed mandate (its `reference`) was decided before: this is its first answer, byte for byte (or the stored answer to an earlier request with the same Idempotency-Key)',
        required: false,
        schema: { type: 'string', enum: ['true'] },
      },
    },
    handler: async ({ deps, caller, body, req, res }) => {
      const result = await verifyPresentation(mandatesOf(deps), caller, body, req.requestId);
      // Sent as computed (and as stored): a replay is byte-equal to the first answer.
      if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
      res.status(200).type('application/json').send(result.body);
      return SENT;
    },
  }),
  route({
    method: 'post',
    path: '/v1/mandates',
    tag: 'Mandates',
    roles: ADMIN,
    summary: 'Issue an AP2 open Payment Mandate to an agent (an agent key → 403: no agent authorizes itself)',
    description:
      'Signed ES256 with the mandate signing key (in the JWKS), bound to an active P-256 key of the agent as its `cnf`, within the agent\'s policy (its currency; `amount_max` at most `budget_single_max`; payees neither denylisted nor off a non-empty allowlist). 404: unknown agent; 403: agent frozen or deactivated; 409: no active policy.',
    body: createMandateSchema,
    errors: [404, 409],
    response: { ...mandateObject, status: 201 },
    links: {
      RetrieveMandate: link('get /v1/mandates/:id', 'id', 'id'),
      RevokeMandate: link('post /v1/mandates/:id/revoke', 'id', 'id'),
    },
    handler: ({ deps, caller, body }) => createMandate(mandatesOf(deps), caller, body),
  }),
  route({
    method: 'get',
    path: '/v1/mandates',
    tag: 'Mandates',
    roles: ANY_ROLE,
    summary: 'List mandates (agent keys: their own agent\'s only)',
    query: listMandatesQuery,
    response: list(mandateListSchema),
    handler: ({ deps, caller, query }) => listMandates(mandatesOf(deps), caller, query),
  }),
  route({
    method: 'get',
    path: '/v1/mandates/:id',
    tag: 'Mandates',
    roles: ANY_ROLE,
    summary: 'Retrieve a mandate (agent keys: their own agent\'s only)',
    params: idParam,
    response: mandateObject,
    handler: ({ deps, caller, params }) => getMandate(mandatesOf(deps), caller, params.id),
  }),
  route({
    method: 'post',
    path: '/v1/mandates/:id/revoke',
    tag: 'Mandates',
    roles: ADMIN,
    summary: 'Revoke a mandate (it never verifies again and stays readable; repeatable)',
    description: 'A used or expired mandate has nothing left to revoke: it is answered as it is.',
    params: idParam,
    response: { ...mandateObject, description: 'The mandate object, revoked' },
    handler: ({ deps, caller, params }) => revokeMandate(mandatesOf(deps), caller, params.id),
  }),
];
