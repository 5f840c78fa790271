import { getDecisionQuery } from '../../authorization/authorize.schemas.js';
import { getDecision } from '../../authorization/decision-reads.service.js';
import { decisionSchema } from '../../decisions/decision.view.js';
import { ADMIN, ANY_ROLE } from '../../kernel/caller.js';
import { captureSchema, captureUpdateSchema, voidSchema } from '../../capture/capture.schemas.js';
import { captureDecision, updateCaptureMetadata, voidDecision } from '../../capture/capture.service.js';
import { route } from '../route.js';

export const decisionsRoutes = [
  route({
    method: 'get',
    path: '/v1/decisions/:id',
    tag: 'Authorization',
    roles: ANY_ROLE,
    summary: 'The current state of a decision; `wait` long-polls while it is pending',
    params: { id: 'Decision id (`dec_…`)' },
    query: getDecisionQuery,
    response: { status: 200, description: 'The decision object', schema: decisionSchema },
    handler: ({ deps, caller, params, query, res }) => {
      // Stop long-polling as soon as the client goes away.
      const abort = new AbortController();
      res.on('close', () => abort.abort());
      return getDecision(deps.authorization, caller, params.id, query.wait ?? 0, abort.signal);
    },
  }),
  route({
    method: 'post',
    path: '/v1/decisions/:id/capture',
    tag: 'Authorization',
    roles: ['admin', 'agent'],
    summary: 'Capture an approval: the amount the rail charged (default all); the rest is released from the budget',
    description:
      'Once only. `amount` above the approved amount → 400 (`param` amount). A second capture, or a capture of a voided, expired, denied or pending decision → 409 conflict. The token is consumed. `metadata` (as on authorize) is kept with the capture. Agent keys capture their own agent\'s approvals in full only: a smaller `amount` → 403 forbidden; another agent\'s decision → 404.',
    params: { id: 'Decision id (`dec_…`)' },
    body: captureSchema,
    response: { status: 200, description: 'The decision object, `capture.status` captured', schema: decisionSchema },
    errors: [403, 409],
    handler: ({ deps, caller, params, body, idempotency }) => captureDecision(deps.authorization, caller, params.id, body, idempotency),
  }),
  route({
    method: 'patch',
    path: '/v1/decisions/:id/capture',
    tag: 'Authorization',
    roles: ['admin', 'agent'],
    summary: "Add references to a captured approval's capture metadata (e.g. the settlement's transaction, known after the capture)",
    description:
      'Captured approvals only (else 409 conflict). Keys are added to `capture.metadata`; a key already recorded keeps its value: the same value again changes nothing, another value → 409 conflict (`param` metadata). At most 50 keys in all (more → 400). Amounts and budgets are not changed. Audit record `authorization.capture_updated`. Same callers as a capture: agent keys for their own agent\'s approvals; another agent\'s decision → 404.',
    params: { id: 'Decision id (`dec_…`)' },
    body: captureUpdateSchema,
    response: { status: 200, description: 'The decision object, `capture.metadata` with the added keys', schema: decisionSchema },
    errors: [403, 409],
    handler: ({ deps, caller, params, body }) => updateCaptureMetadata(deps.authorization, caller, params.id, body),
  }),
  route({
    method: 'post',
    path: '/v1/decisions/:id/void',
    tag: 'Authorization',
    roles: ADMIN,
    summary: 'Void an uncaptured approval: its whole amount is released and its token stops verifying',
    description: 'Voiding a captured, voided or expired approval, or a denied or pending decision → 409 conflict.',
    params: { id: 'Decision id (`dec_…`)' },
    body: voidSchema,
    response: { status: 200, description: 'The decision object, `capture.status` voided', schema: decisionSchema },
    errors: [409],
    handler: ({ deps, caller, params, idempotency }) => voidDecision(deps.authorization, caller, params.id, idempotency),
  }),
];
