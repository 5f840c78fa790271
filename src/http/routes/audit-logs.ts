import { listAuditQuery, verifyAuditQuery } from '../../audit/audit.schemas.js';
import { listAuditRecords, verifyAuditLog } from '../../audit/audit.service.js';
import { auditCsv, auditRecordListSchema, auditVerificationSchema, toAuditVerificationView, toAuditView } from '../../audit/audit.view.js';
import { STAFF } from '../../kernel/caller.js';
import { decodeCursor, encodeCursor } from '../../db/pagination.js';
import { invalid } from '../../kernel/errors.js';
import { LIST_PAGE, route, SENT } from '../route.js';

function sequenceCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  const n = Number(decodeCursor(cursor));
  if (!Number.isSafeInteger(n) || n < 1) throw invalid('The cursor is not one this service returned.', 'cursor');
  return n;
}

export const auditLogsRoutes = [
  route({
    method: 'get',
    path: '/v1/audit-logs',
    tag: 'Audit log',
    roles: STAFF,
    summary: 'List audit records (JSON, or CSV with Accept: text/csv)',
    query: listAuditQuery,
    response: { status: 200, schema: auditRecordListSchema, csv: true, description: `${LIST_PAGE} With \`Accept: text/csv\`: RFC 4180 CSV with a header row, the next cursor in \`X-Next-Cursor\`.` },
    handler: async ({ deps, caller, query: q, req, res }) => {
      const page = await listAuditRecords(deps.db, {
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
        return SENT;
      }
      return { object: 'list' as const, data: page.rows.map(toAuditView), has_more: page.hasMore, next_cursor: nextCursor };
    },
  }),
  route({
    method: 'get',
    path: '/v1/audit-logs/verify',
    tag: 'Audit log',
    roles: STAFF,
    summary: 'Recompute the hash chain, count decisions without a record, check that the books balance, check a kept checkpoint and sign a new one',
    query: verifyAuditQuery,
    response: { status: 200, description: 'The result of the check', schema: auditVerificationSchema },
    handler: async ({ deps, caller, query: q }) =>
      toAuditVerificationView(
        await verifyAuditLog({ db: deps.db, keys: deps.authorization.signer.keys }, { accountId: caller.accountId, livemode: caller.livemode }, q.checkpoint),
      ),
  }),
];
