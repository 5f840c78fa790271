import { stringify } from 'csv-stringify/sync';
import type { AuditRow } from './audit.repository.js';

export function toAuditView(row: AuditRow) {
  return {
    id: row.id,
    object: 'audit_record' as const,
    type: row.type,
    actor: { type: row.actor_type, id: row.actor_id },
    agent_id: row.agent_id,
    decision_id: row.decision_id,
    decision: row.decision,
    amount: row.amount,
    currency: row.currency,
    vendor: row.vendor,
    category: row.category,
    policy_id: row.policy_id,
    reason: row.reason,
    metadata: row.metadata,
    livemode: row.livemode,
    created_at: row.created_at.toISOString(),
    sequence: row.sequence === null ? null : Number(row.sequence),
    prev_hash: row.prev_hash,
    hash: row.hash,
  };
}

const CSV_COLUMNS = [
  'id', 'type', 'actor_type', 'actor_id', 'agent_id', 'decision_id', 'decision', 'amount', 'currency',
  'vendor', 'category', 'policy_id', 'reason', 'metadata', 'livemode', 'created_at', 'sequence', 'prev_hash', 'hash',
] as const;

/** A spreadsheet reads a cell starting with one of these as a formula (OWASP's CSV injection list). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** Prefixed with `'` so a spreadsheet shows the text instead of running it. */
export const neutralizeCsvCell = (cell: string): string => (FORMULA_START.test(cell) ? `'${cell}` : cell);

/**
 * RFC 4180 (CRLF line ends, quoted where needed) with a header row; metadata as JSON text. Vendors,
 * categories, names and reasons come from callers, so every cell is neutralized against formulas.
 */
export function auditCsv(rows: AuditRow[]): string {
  const records = rows.map((r) => {
    const v = toAuditView(r);
    return [
      v.id, v.type, v.actor.type, v.actor.id, v.agent_id, v.decision_id, v.decision, v.amount, v.currency,
      v.vendor, v.category, v.policy_id, v.reason, JSON.stringify(v.metadata), v.livemode, v.created_at,
      v.sequence, v.prev_hash, v.hash,
    ].map((x) => (x === null || x === undefined ? '' : neutralizeCsvCell(String(x))));
  });
  return stringify(records, { header: true, columns: [...CSV_COLUMNS], record_delimiter: '\r\n' });
}
