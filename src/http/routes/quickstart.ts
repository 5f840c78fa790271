import { ADMIN } from '../../kernel/caller.js';
import { quickstartAgentSchema, quickstartAuthorizeSchema, vaultSchema } from '../../quickstart/quickstart.schemas.js';
import { authorizeWithVault, createQuickstartAgent, createVault } from '../../quickstart/quickstart.service.js';
import { quickstartAgentSchema as quickstartAgentView, quickstartAuthorizationSchema, vaultWithTokenSchema } from '../../quickstart/quickstart.view.js';
import { route } from '../route.js';

/** The quick-start surface (docs/api.md): unprefixed paths, decimal amounts, vault tokens. */
export const quickstartRoutes = [
  route({
    method: 'post',
    path: '/agents',
    tag: 'Quick start',
    roles: ADMIN,
    summary: 'Register an agent (quick-start surface)',
    body: quickstartAgentSchema,
    response: { status: 201, description: 'The agent object', schema: quickstartAgentView },
    handler: ({ deps, caller, body }) => createQuickstartAgent(deps.db, caller, body),
  }),
  route({
    method: 'post',
    path: '/vaults',
    tag: 'Quick start',
    roles: ADMIN,
    summary: 'Create a vault: a daily-budget policy bound to the agent, with a dlt_ token (returned once)',
    body: vaultSchema,
    response: { status: 201, description: 'The vault record with `token`', schema: vaultWithTokenSchema },
    errors: [404],
    handler: ({ deps, caller, body }) => createVault(deps.db, caller, body),
  }),
  route({
    method: 'post',
    path: '/authorize',
    tag: 'Quick start',
    roles: ADMIN,
    summary: 'Authorize a spend with a dlt_ vault token; decimal amounts',
    body: quickstartAuthorizeSchema,
    // Every completed check is a 200, whether approved, denied or pending.
    response: { status: 200, description: 'The outcome in decimal USD', schema: quickstartAuthorizationSchema },
    // 503: shed under overload (MAX_QUEUE_MS), never decided.
    errors: [503],
    handler: ({ deps, caller, body, idempotency, res }) => authorizeWithVault(deps.authorization, caller, body, idempotency, res.locals.arrivedAt as number | undefined),
  }),
];
