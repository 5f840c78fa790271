import { agentKeyListSchema, agentKeySchema } from '../../agent-keys/agent-key.view.js';
import { createAgentKeySchema, listAgentKeysQuery } from '../../agent-keys/agent-keys.schemas.js';
import { createAgentKey, getAgentKey, listAgentKeys, revokeAgentKey } from '../../agent-keys/agent-keys.service.js';
import { ADMIN, ANY_ROLE } from '../../kernel/caller.js';
import { link, list, route } from '../route.js';

const keyObject = { status: 200, description: 'The agent key object', schema: agentKeySchema };
const params = { id: 'Agent id (`agt_…`)', key_id: 'Agent key id (`akey_…`)' };

/** Agents' public signing keys (DECISIONS §19), under their agent. */
export const agentKeysRoutes = [
  route({
    method: 'post',
    path: '/v1/agents/:id/keys',
    tag: 'Agents',
    roles: ADMIN,
    summary: "Register an agent's public signing key (RFC 9421, Web Bot Auth)",
    description:
      'The key (Ed25519 or P-256 JWK) then verifies the `web-bot-auth` signatures of requests made with the agent\'s credentials. With `directory_url`, the origin\'s key directory is fetched now and must list the key; the key then verifies only signatures whose `Signature-Agent` is that origin, while the directory lists it. 409: a deactivated agent, 10 active keys already, or the thumbprint active on an agent of this account and mode.',
    params: { id: params.id },
    body: createAgentKeySchema,
    response: { ...keyObject, status: 201 },
    links: {
      RetrieveAgentKey: link('get /v1/agents/:id/keys/:key_id', 'key_id', 'id'),
      RevokeAgentKey: link('delete /v1/agents/:id/keys/:key_id', 'key_id', 'id'),
    },
    handler: ({ deps, caller, params, body }) => createAgentKey(deps.agentKeys, caller, params.id, body),
  }),
  route({
    method: 'get',
    path: '/v1/agents/:id/keys',
    tag: 'Agents',
    roles: ANY_ROLE,
    summary: "List an agent's signing keys (agent keys: their own agent only)",
    params: { id: params.id },
    query: listAgentKeysQuery,
    response: list(agentKeyListSchema),
    handler: ({ deps, caller, params, query }) => listAgentKeys(deps.agentKeys, caller, params.id, query),
  }),
  route({
    method: 'get',
    path: '/v1/agents/:id/keys/:key_id',
    tag: 'Agents',
    roles: ANY_ROLE,
    summary: "Retrieve an agent's signing key (agent keys: their own agent only)",
    params,
    response: keyObject,
    handler: ({ deps, caller, params }) => getAgentKey(deps.agentKeys, caller, params.id, params.key_id),
  }),
  route({
    method: 'delete',
    path: '/v1/agents/:id/keys/:key_id',
    tag: 'Agents',
    roles: ADMIN,
    summary: "Revoke an agent's signing key (it never verifies again; repeatable)",
    params,
    response: { ...keyObject, description: 'The agent key object, revoked' },
    handler: ({ deps, caller, params }) => revokeAgentKey(deps.agentKeys, caller, params.id, params.key_id),
  }),
];
