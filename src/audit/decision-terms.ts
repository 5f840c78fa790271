import type { DbOrTrx, DecisionsTable, DecisionTerms, Selectable } from '../db/database.js';
import { auditHmacKey } from '../kernel/audit-key.js';
import { recordMac } from './audit-chain.js';

type DecisionRow = Selectable<DecisionsTable>;

/**
 * A decision as its sealed record states it (DECISIONS §7): the row with the amount, currency,
 * vendor and category, the periods, the requester and the quorum its `authorization.decision`
 * record carries, never the row's own.
 * `verified` is false when the decision has no record whose MAC is the audit key's (a row or a
 * record written behind the service): then nothing of the row may be trusted to approve it.
 */
export interface SealedDecision {
  row: DecisionRow;
  verified: boolean;
}

/**
 * The decision's first `authorization.decision` record (written in the decision's own statement),
 * checked against its MAC, and the row with that record's terms. A record from before its terms
 * were sealed (migration 030) verifies and leaves the row as it is.
 */
export async function sealedDecision(db: DbOrTrx, row: DecisionRow): Promise<SealedDecision> {
  const record = await db
    .selectFrom('audit_records')
    .selectAll()
    .where('account_id', '=', row.account_id)
    .where('livemode', '=', row.livemode)
    .where('type', '=', 'authorization.decision')
    .where('decision_id', '=', row.id)
    .orderBy('insert_order')
    .limit(1)
    .executeTakeFirst();
  if (!record || record.mac === null || record.mac !== recordMac(auditHmacKey(), record)) return { row, verified: false };
  // What the token of an approval signs comes from the record too.
  const facts = { ...row, amount: record.amount === null ? row.amount : Number(record.amount), currency: record.currency ?? row.currency, vendor: record.vendor ?? row.vendor, category: record.category };
  return { row: record.terms ? withTerms(facts, record.terms) : facts, verified: true };
}

function withTerms(row: DecisionRow, terms: DecisionTerms): DecisionRow {
  return { ...row, spend_month: terms.spend_month, spend_day: terms.spend_day, requested_by: terms.requested_by, approvals_required: terms.approvals_required };
}
