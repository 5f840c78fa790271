import { Router } from 'express';
import type { Db } from '../../db/database.js';
import { createAgentSchema, listAgentsQuery, updateAgentSchema } from '../../agents/agents.schemas.js';
import { createAgent, getAgent, listAgents, setAgentStatus, updateAgent, type AgentHooks } from '../../agents/agents.service.js';
import { callerOf } from '../context.js';
import { bodyObject, parse } from '../validate.js';

export function agentsRouter(db: Db, hooks: AgentHooks): Router {
  const r = Router();
  r.post('/', async (req, res) => {
    res.status(201).json(await createAgent(db, callerOf(req), parse(createAgentSchema, bodyObject(req.body))));
  });
  r.get('/', async (req, res) => {
    res.json(await listAgents(db, callerOf(req), parse(listAgentsQuery, req.query)));
  });
  r.get('/:id', async (req, res) => {
    res.json(await getAgent(db, callerOf(req), req.params.id!));
  });
  r.patch('/:id', async (req, res) => {
    res.json(await updateAgent(db, callerOf(req), req.params.id!, parse(updateAgentSchema, bodyObject(req.body)), hooks));
  });
  r.delete('/:id', async (req, res) => {
    res.json(await setAgentStatus(db, callerOf(req), req.params.id!, 'deactivated', hooks));
  });
  r.post('/:id/freeze', async (req, res) => {
    res.json(await setAgentStatus(db, callerOf(req), req.params.id!, 'frozen', hooks));
  });
  r.post('/:id/unfreeze', async (req, res) => {
    res.json(await setAgentStatus(db, callerOf(req), req.params.id!, 'active', hooks));
  });
  return r;
}
