import { Router } from 'express';
import { z } from 'zod';
import type { Db } from '../../db/database.js';
import { cursorSchema } from '../../db/pagination.js';
import { createApiKey, getOwnApiKey, listApiKeys, revokeApiKey } from '../../keys/keys.service.js';
import { callerOf } from '../context.js';
import { bodyObject, parse } from '../validate.js';
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

export function apiKeysRouter(db: Db, onRevoked?: (hash: string) => void): Router {
  const r = Router();
  r.post('/', async (req, res) => {
    res.status(201).json(await createApiKey(db, callerOf(req), parse(createSchema, bodyObject(req.body))));
  });
  r.get('/self', async (req, res) => {
    res.json(await getOwnApiKey(db, callerOf(req)));
  });
  r.get('/', async (req, res) => {
    const q = parse(listQuery, req.query);
    res.json(await listApiKeys(db, callerOf(req), q.limit, q.cursor));
  });
  r.delete('/:id', async (req, res) => {
    res.json(await revokeApiKey(db, callerOf(req), req.params.id!, onRevoked));
  });
  return r;
}

/** For the OpenAPI document. */
export { createSchema as createApiKeySchema, listQuery as listApiKeysQuery };
