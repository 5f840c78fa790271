import { Router } from 'express';
import type { Db } from '../../db/database.js';
import { listApprovalsQuery, resolveApprovalSchema } from '../../approvals/approvals.schemas.js';
import { listApprovals, resolveApproval } from '../../approvals/approvals.service.js';
import type { HoldEngine } from '../../approvals/hold-engine.js';
import { callerOf } from '../context.js';
import { bodyObject, parse } from '../validate.js';

export function approvalsRouter(deps: { db: Db; gateway: HoldEngine; onResolved?: (id: string) => void; now?: () => Date }): Router {
  const r = Router();
  r.get('/', async (req, res) => {
    res.json(await listApprovals(deps.db, callerOf(req), parse(listApprovalsQuery, req.query)));
  });
  for (const [action, outcome] of [['approve', 'approved'], ['deny', 'denied']] as const) {
    r.post(`/:decision_id/${action}`, async (req, res) => {
      const { note } = parse(resolveApprovalSchema, bodyObject(req.body));
      res.json(await resolveApproval(deps, callerOf(req), req.params.decision_id!, outcome, note));
    });
  }
  return r;
}
