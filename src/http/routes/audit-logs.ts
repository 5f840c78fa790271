import { Router } from 'express';
import { requireRole, STAFF } from '../../caller.js';
import type { Db } from '../../db/database.js';
import type { SigningKeys } from '../../tokens/signing-keys.js';
import { decodeCursor, encodeCursor, type Page } from '../../db/pagination.js';
import { listAuditQuery, verifyAuditQuery } from '../../audit/audit.schemas.js';
import { listAuditRecords, verifyAuditLog } from '../../audit/audit.service.js';
import { auditCsv, toAuditVerificationView, toAuditView, type AuditRecordView } from '../../audit/audit.view.js';
import { invalid } from '../../errors.js';
import { callerOf } from '../context.js';
import { parse } from '../validate.js';

function sequenceCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  const n = Number(decodeCursor(cursor));
  if (!Number.isSafeInteger(n) || n < 1) throw invalid('The cursor is not one this service returned.', 'cursor');
  return n;
}

export function auditLogsRouter(db: Db, keys: SigningKeys): Router {
  const r = Router();
  r.get('/verify', async (req, res) => {
    const caller = callerOf(req);
    requireRole(caller, STAFF);
    const q = parse(verifyAuditQuery, req.query);
    const verification = await verifyAuditLog({ db, keys }, { accountId: caller.accountId, livemode: caller.livemode }, q.checkpoint);
    res.json(toAuditVerificationView(verification));
  });
  r.get('/', async (req, res) => {
    const caller = callerOf(req);
    requireRole(caller, STAFF);
    const q = parse(listAuditQuery, req.query);
    const page = await listAuditRecords(db, {
      accountId: caller.accountId,
      livemode: caller.livemode,
      agentId: q.agent_id,
      decision: q.decision,
      type: q.type,
      from: q.from,
      to: q.to,
      beforeSequence: sequenceCursor(q.cursor),
      limit: q.limit,
    });
    const nextCursor = page.hasMore && page.lastSequence != null ? encodeCursor(page.lastSequence) : null;
    if (req.accepts(['application/json', 'text/csv']) === 'text/csv') {
      if (nextCursor) res.setHeader('X-Next-Cursor', nextCursor);
      res.type('text/csv; charset=utf-8').send(auditCsv(page.rows));
      return;
    }
    res.json({ object: 'list', data: page.rows.map(toAuditView), has_more: page.hasMore, next_cursor: nextCursor } satisfies Page<AuditRecordView>);
  });
  return r;
}
