import { z } from 'zod';
import { ADMIN, ANY_ROLE } from '../../kernel/caller.js';
import { cursorSchema } from '../../db/pagination.js';
import { apiKeyListSchema, apiKeySchema, createdApiKeySchema } from '../../keys/api-key.view.js';
import { createApiKey, getOwnApiKey, listApiKeys, revokeApiKey } from '../../keys/keys.service.js';
import { link, list, route } from '../route.js';
import { limitSchema, trimmedText } from '../../kernel/schemas.js';

const createSchema = z.strictObject({
  name: trimmedText(200),
  mode: z.enum(['test', 'live']).optional(),
  role: z.enum(['admin', 'reviewer', 'agent']),
  agent_id: z.string().min(1).max(100).optional(),
})
  // keys.service.ts: an agent key names its agent; no other key does.
  .meta({
    if: { properties: { role: { const: 'agent' } }, required: ['role'] },
    then: { required: ['agent_id'], properties: { agent_id: {} } },
    else: { not: { required: ['agent_id'], properties: { agent_id: {} } } },
  });
const listQuery = z.strictObject({
  limit: limitSchema(20, 100),
  cursor: cursorSchema().optional(),
});

export const apiKeysRoutes = [
  route({
    method: 'post',
    path: '/v1/api-keys',
    tag: 'API keys',
    roles: ADMIN,
    summary: 'Create an API key (the raw key is returned once)',
    body: createSchema,
    response: { status: 201, description: 'The key object with `key`', schema: createdApiKeySchema },
    errors: [404],
    links: { RevokeApiKey: link('delete /v1/api-keys/:id', 'id', 'id') },
    handler: ({ deps, caller, body }) => createApiKey(deps.db, caller, body),
  }),
  route({
    method: 'get',
    path: '/v1/api-keys',
    tag: 'API keys',
    roles: ADMIN,
    summary: 'List API keys (never the key itself)',
    query: listQuery,
    response: list(apiKeyListSchema),
    handler: ({ deps, caller, query }) => listApiKeys(deps.db, caller, query.limit, query.cursor),
  }),
  route({
    method: 'get',
    path: '/v1/api-keys/self',
    tag: 'API keys',
    roles: ANY_ROLE,
    summary: 'The calling key itself (mode, role, agent)',
    response: { status: 200, description: 'The key object', schema: apiKeySchema },
    handler: ({ deps, caller }) => getOwnApiKey(deps.db, caller),
  }),
  route({
    method: 'delete',
    path: '/v1/api-keys/:id',
    tag: 'API keys',
    roles: ADMIN,
    summary: 'Revoke an API key',
    params: { id: 'Key id' },
    response: { status: 200, description: 'The key object, revoked', schema: apiKeySchema },
    handler: ({ deps, caller, params }) => revokeApiKey(deps.db, caller, params.id, deps.onKeyRevoked),
  }),
];
