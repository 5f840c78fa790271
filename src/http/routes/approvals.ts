import { listApprovalsQuery, resolveApprovalSchema } from '../../approvals/approvals.schemas.js';
import { listApprovals, resolveApproval } from '../../approvals/approvals.service.js';
import { approvalListSchema, decisionSchema } from '../../decisions/decision.view.js';
import { STAFF } from '../../kernel/caller.js';
import { list, route } from '../route.js';

export const approvalsRoutes = [
  route({
    method: 'get',
    path: '/v1/approvals',
    tag: 'Approvals',
    roles: STAFF,
    summary: 'List held requests',
    query: listApprovalsQuery,
    response: list(approvalListSchema),
    handler: ({ deps, caller, query }) => listApprovals(deps.db, caller, query),
  }),
  route({
    method: 'post',
    path: '/v1/approvals/:decision_id/approve',
    tag: 'Approvals',
    roles: STAFF,
    summary:
      'Approve a held request: one approval towards its quorum (approvals_required); a key approves once (409 again). Waits ≤ 10 s for the workflow; 409 if resolved, 503 if the engine is down',
    params: { decision_id: 'Id of the held decision (`dec_…`)' },
    body: resolveApprovalSchema,
    response: { status: 200, description: 'The decision object: still pending until the quorum is met, then approved', schema: decisionSchema },
    errors: [409, 503],
    handler: ({ deps, caller, params, body }) => resolveApproval(deps.approvals, caller, params.decision_id, 'approved', body.note),
  }),
  route({
    method: 'post',
    path: '/v1/approvals/:decision_id/deny',
    tag: 'Approvals',
    roles: STAFF,
    summary: 'Deny a held request: one denial denies at once (waits ≤ 10 s for the workflow; 409 if resolved, 503 if the engine is down)',
    params: { decision_id: 'Id of the held decision (`dec_…`)' },
    body: resolveApprovalSchema,
    response: { status: 200, description: 'The resolved decision object', schema: decisionSchema },
    errors: [409, 503],
    handler: ({ deps, caller, params, body }) => resolveApproval(deps.approvals, caller, params.decision_id, 'denied', body.note),
  }),
];
