import { Router } from 'express';
import type { Db } from '../../db/database.js';
import { usageQuery } from '../../usage/usage.schemas.js';
import { getUsage } from '../../usage/usage.service.js';
import { callerOf } from '../context.js';
import { parse } from '../validate.js';

export function usageRouter(db: Db): Router {
  const r = Router();
  r.get('/', async (req, res) => {
    const caller = callerOf(req);
    const q = parse(usageQuery, req.query);
    res.json(await getUsage(db, caller, q.month));
  });
  return r;
}
