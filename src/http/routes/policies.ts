import { Router } from 'express';
import type { Db } from '../../db/database.js';
import { createPolicySchema, listPoliciesQuery, updatePolicySchema } from '../../policies/policies.schemas.js';
import { createPolicy, deletePolicy, getPolicy, listPolicies, updatePolicy } from '../../policies/policies.service.js';
import { callerOf } from '../context.js';
import { simulateSchema } from '../../simulation/simulate.schemas.js';
import { simulatePolicy } from '../../simulation/simulation.service.js';
import { bodyObject, parse } from '../validate.js';

export function policiesRouter(db: Db): Router {
  const r = Router();
  r.post('/', async (req, res) => {
    res.status(201).json(await createPolicy(db, callerOf(req), parse(createPolicySchema, bodyObject(req.body))));
  });
  // Before '/:id' so 'simulate' is never read as an id.
  r.post('/simulate', async (req, res) => {
    res.json(await simulatePolicy({ db }, callerOf(req), parse(simulateSchema, bodyObject(req.body))));
  });
  r.get('/', async (req, res) => {
    res.json(await listPolicies(db, callerOf(req), parse(listPoliciesQuery, req.query)));
  });
  r.get('/:id', async (req, res) => {
    res.json(await getPolicy(db, callerOf(req), req.params.id!));
  });
  r.patch('/:id', async (req, res) => {
    res.json(await updatePolicy(db, callerOf(req), req.params.id!, parse(updatePolicySchema, bodyObject(req.body))));
  });
  r.delete('/:id', async (req, res) => {
    res.json(await deletePolicy(db, callerOf(req), req.params.id!));
  });
  return r;
}
