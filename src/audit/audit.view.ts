import { stringify } from 'csv-stringify/sync';
import { z } from 'zod';
import { listOf } from '../db/pagination.js';
import { currencyField, idOf, instant, livemodeField, metadataField } from '../kernel/view-fields.js';
import type { AuditRow } from './audit.repository.js';
import type { AuditVerification } from './audit.service.js';

const hashField = (description: string) => z.string().regex(/^[0-9a-f]{64}$/).describe(description);

export const auditRecordSchema = z
  .object({
    id: idOf('aud', 'Record id'),
    object: z.literal('audit_record'),
    type: z
      .string()
      .describe(
        'What happened: `authorization.decision`, `approval.completed`, `agent.created|updated|frozen|unfrozen|deactivated`, `policy.created|updated|deleted`, `api_key.created|revoked`, `approval.escalated`, `approval.refused` (an approval sent straight to the workflow engine, refused), `authorization.captured|voided|expired`, `webhook_endpoint.*`, `vault.created|revoked`',
      ),
    actor: z
      .object({
        type: z.enum(['api_key', 'reviewer', 'operator', 'system']).describe('`operator`: a signal sent from the Temporal UI or CLI'),
        id: z.string().nullable().describe("The API key id, the operator's name, or null for the system"),
      })
      .describe('Who did it'),
    signed_by: z
      .string()
      .nullable()
      .describe("The JWK thumbprint (the signature's `keyid`) of the agent key that signed the request behind the record; null when unsigned. Inside the record's MAC"),
    agent_id: idOf('agt', 'The agent concerned').nullable(),
    decision_id: idOf('dec', 'The decision concerned').nullable(),
    decision: z.enum(['approved', 'denied', 'held']).nullable().describe('For decision records: the outcome'),
    amount: z.number().int().nullable().describe('Minor units, for decision records'),
    currency: currencyField.nullable(),
    vendor: z.string().nullable(),
    category: z.string().nullable(),
    policy_id: idOf('pol', 'The policy concerned').nullable(),
    reason: z.string().nullable().describe('Reason code or text, where one applies'),
    metadata: metadataField.describe('Details of the change (for decisions: the request metadata)'),
    livemode: livemodeField,
    created_at: instant('When it was recorded'),
    sequence: z.number().int().positive().nullable().describe('Position in the hash chain; null for the moment between commit and sealing'),
    prev_hash: hashField("The previous record's hash").nullable(),
    hash: hashField('HMAC-SHA-256 chain hash of this record').nullable(),
  })
  .describe('An append-only audit record, linked into a keyed hash chain per account and mode.');
export type AuditRecordView = z.infer<typeof auditRecordSchema>;

export const auditRecordListSchema = listOf(auditRecordSchema, 'audit records');

const ledgerValues = z.record(z.string(), z.union([z.string(), z.number(), z.null()]));

const ledgerMismatchSchema = z
  .object({
    kind: z
      .enum(['decision', 'spend', 'mandate', 'usage'])
      .describe(
        '`decision`: a decision differs from its audit records; `spend`: an agent spend counter differs from its decisions; `mandate`: a mandate\'s `uses` or `budget_used` differs from its approved decisions; `usage`: a live month\'s usage count differs from its decision records',
      ),
    id: z.string().describe("The decision's id, for `spend` the agent's id, for `mandate` the mandate's id, for `usage` the account's id"),
    expected: ledgerValues.describe(
      'What the records say: for `decision` the differing fields (`amount`, `currency`, `vendor`, `agent_id`, `decision`, `capture_status`, `captured_amount`, `spend_month`, `spend_day`, `mandate_id`); for `usage` `{month, checks}` counted from the live decision records; for `spend` `{period, approved, reserved}` recomputed from the decisions; for `mandate` `{uses, budget_used}` recomputed from the decisions approved under it (`found` null when no mandate of this account and mode has that id)',
    ),
    found: ledgerValues.describe('What is stored, with the same fields'),
  })
  .describe('One place where the books do not balance');

export const auditVerificationSchema = z
  .object({
    object: z.literal('audit_verification'),
    valid: z
      .boolean()
      .describe('True when every record and the stored head verify, no decision lacks its record, the books balance (`ledger_mismatches` is 0) and a given checkpoint matched'),
    records: z.number().int().nonnegative().describe('Records checked'),
    head_hash: hashField('Hash of the last record that verifies (the genesis hash when none does)'),
    first_invalid: z
      .object({ id: idOf('aud', 'Record id'), sequence: z.number().int().positive() })
      .nullable()
      .describe('The first record that does not verify; null when valid'),
    first_invalid_sequence: z.number().int().positive().nullable().describe('Sequence of `first_invalid` (kept for existing clients)'),
    decisions_without_record: z
      .number()
      .int()
      .nonnegative()
      .describe('Decisions of this account and mode that have no `authorization.decision` record; any makes `valid` false'),
    records_without_decision: z
      .number()
      .int()
      .nonnegative()
      .describe('Sealed `authorization.decision` records of this account and mode whose decision is gone (a decision row deleted behind the API); any makes `valid` false'),
    ledger_mismatches: z
      .number()
      .int()
      .nonnegative()
      .describe(
        "Places where the books do not balance: decisions whose amount, currency, vendor, agent or outcome differ from their `authorization.decision` record (the outcome from a resolved hold's latest `approval.completed` record), approvals whose capture status or captured amount differ from their latest lifecycle record (`authorization.captured`, `.adjusted`, `.voided`, `.expired`), agent spend counters (each period of each agent) that differ from the sum recomputed from the decisions, their captures, voids, expiries and releases, and mandates whose `uses` or `budget_used` differ from the count and sum of the decisions approved under them; any makes `valid` false",
      ),
    ledger_mismatch_examples: z
      .array(ledgerMismatchSchema)
      .max(10)
      .describe('Up to 10 of the mismatches, decisions first'),
    checkpoint: z
      .string()
      .describe(
        'A signed checkpoint of the head that verified: a compact JWS (EdDSA, `kid` in the JWKS, header `typ: "audit-checkpoint+jwt"`) with claims `{aud: account id, livemode, sequence, head_hash, iat}`. Keep it outside the service and pass it back as `?checkpoint=`',
      ),
    checkpoint_check: z
      .enum(['matched', 'mismatched'])
      .nullable()
      .describe('With `?checkpoint=`: whether the record at its sequence is still there with its hash (`mismatched` makes `valid` false); null without it'),
  })
  .describe('The result of recomputing the audit hash chain.');
export type AuditVerificationView = z.infer<typeof auditVerificationSchema>;

export const toAuditVerificationView = (v: AuditVerification): AuditVerificationView => ({
  object: 'audit_verification',
  valid: v.valid,
  records: v.records,
  head_hash: v.head_hash,
  first_invalid: v.first_invalid,
  first_invalid_sequence: v.first_invalid_sequence,
  decisions_without_record: v.decisions_without_record,
  records_without_decision: v.records_without_decision,
  ledger_mismatches: v.ledger_mismatches,
  ledger_mismatch_examples: v.ledger_mismatch_examples,
  checkpoint: v.checkpoint,
  checkpoint_check: v.checkpoint_check,
});

export function toAuditView(row: AuditRow): AuditRecordView {
  return {
    id: row.id,
    object: 'audit_record',
    type: row.type,
    actor: { type: row.actor_type, id: row.actor_id },
    signed_by: row.signed_by ?? null,
    agent_id: row.agent_id,
    decision_id: row.decision_id,
    decision: row.decision as AuditRecordView['decision'],
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
  // Added last, so the columns before it keep their places.
  'signed_by',
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
      v.sequence, v.prev_hash, v.hash, v.signed_by,
    ].map((x) => (x === null || x === undefined ? '' : neutralizeCsvCell(String(x))));
  });
  return stringify(records, { header: true, columns: [...CSV_COLUMNS], record_delimiter: '\r\n' });
}
