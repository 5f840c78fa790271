import { agentListSchema, agentSchema } from '../../agents/agent.view.js';
import { createAgentSchema, listAgentsQuery, updateAgentSchema } from '../../agents/agents.schemas.js';
import { createAgent, getAgent, listAgents, setAgentStatus, updateAgent } from '../../agents/agents.service.js';
import { ADMIN, ANY_ROLE, STAFF } from '../../kernel/caller.js';
import { link, list, route } from '../route.js';
import { changed } from './policies.js';

const agentObject = { status: 200, description: 'The agent object', schema: agentSchema };

export const agentsRoutes = [
  route({
    method: 'post',
    path: '/v1/agents',
    tag: 'Agents',
    roles: ADMIN,
    summary: 'Register an agent',
    body: createAgentSchema,
    response: { ...agentObject, status: 201 },
    errors: [404],
    links: {
      RetrieveAgent: link('get /v1/agents/:id', 'id', 'id'),
      UpdateAgent: link('patch /v1/agents/:id', 'id', 'id'),
      DeactivateAgent: link('delete /v1/agents/:id', 'id', 'id'),
      FreezeAgent: link('post /v1/agents/:id/freeze', 'id', 'id'),
    },
    handler: ({ deps, caller, body }) => createAgent(deps.db, caller, body),
  }),
  route({
    method: 'get',
    path: '/v1/agents',
    tag: 'Agents',
    roles: STAFF,
    summary: 'List agents',
    query: listAgentsQuery,
    response: list(agentListSchema),
    handler: ({ deps, caller, query }) => listAgents(deps.db, caller, query),
  }),
  route({
    method: 'get',
    path: '/v1/agents/:id',
    tag: 'Agents',
    roles: ANY_ROLE,
    summary: 'Retrieve an agent (agent keys: their own only)',
    params: { id: 'Agent id (`agt_…`)' },
    response: agentObject,
    handler: ({ deps, caller, params }) => getAgent(deps.db, caller, params.id),
  }),
  route({
    method: 'patch',
    path: '/v1/agents/:id',
    tag: 'Agents',
    roles: ADMIN,
    summary: 'Update an agent (metadata is merged; null removes a key)',
    params: { id: 'Agent id' },
    body: updateAgentSchema,
    response: agentObject,
    errors: [409],
    handler: ({ deps, caller, params, body }) => {
      const updated = updateAgent(deps.db, caller, params.id, body, deps.agentHooks);
      // A new policy_id changes what the agent's cached keys carry (the policy's `require_signed_requests`).
      return body.policy_id === undefined ? updated : changed(deps, updated);
    },
  }),
  route({
    method: 'delete',
    path: '/v1/agents/:id',
    tag: 'Agents',
    roles: ADMIN,
    summary: 'Deactivate an agent (terminal; denies its pending holds)',
    params: { id: 'Agent id' },
    response: agentObject,
    handler: ({ deps, caller, params }) => setAgentStatus(deps.db, caller, params.id, 'deactivated', deps.agentHooks),
  }),
  route({
    method: 'post',
    path: '/v1/agents/:id/freeze',
    tag: 'Agents',
    roles: STAFF,
    summary: 'Freeze an agent (denies its pending holds)',
    params: { id: 'Agent id' },
    response: agentObject,
    handler: ({ deps, caller, params }) => setAgentStatus(deps.db, caller, params.id, 'frozen', deps.agentHooks),
  }),
  route({
    method: 'post',
    path: '/v1/agents/:id/unfreeze',
    tag: 'Agents',
    roles: STAFF,
    summary: 'Unfreeze an agent',
    params: { id: 'Agent id' },
    response: agentObject,
    handler: ({ deps, caller, params }) => setAgentStatus(deps.db, caller, params.id, 'active', deps.agentHooks),
  }),
];
