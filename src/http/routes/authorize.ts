import { authorizeSchema } from '../../authorization/authorize.schemas.js';
import { authorize } from '../../authorization/authorization.service.js';
import { decisionSchema } from '../../decisions/decision.view.js';
import { link, route } from '../route.js';

export const authorizeRoutes = [
  route({
    method: 'post',
    path: '/v1/authorize',
    tag: 'Authorization',
    roles: ['admin', 'agent'],
    summary: 'Request a spend decision: approved (with a gca_ token), denied or held',
    description: 'Every completed check answers 200, including denied and held. Agent keys authorize only their own agent.',
    body: authorizeSchema,
    response: { status: 200, description: 'The decision object', schema: decisionSchema },
    // 503: shed under overload (MAX_QUEUE_MS), never decided.
    errors: [404, 503],
    links: {
      RetrieveDecision: link('get /v1/decisions/:id', 'id', 'decision_id'),
      ApproveHeldDecision: link('post /v1/approvals/:decision_id/approve', 'decision_id', 'decision_id'),
      DenyHeldDecision: link('post /v1/approvals/:decision_id/deny', 'decision_id', 'decision_id'),
    },
    // Its wait counts from its arrival (admission control: 503 past MAX_QUEUE_MS, never decided).
    handler: ({ deps, caller, body, idempotency, res }) => authorize(deps.authorization, caller, body, idempotency, res.locals.arrivedAt as number | undefined),
  }),
];
