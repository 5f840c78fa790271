import { sql, type Kysely } from 'kysely';

/**
 * A decision's terms sealed in its record (DECISIONS §7): `audit_records.terms` holds what the row
 * alone carried before, the periods it counts in, the key that requested it, the quorum of a hold
 * and the mandate presentation that made it (with the closed mandate's digest). It is content,
 * under the record's MAC, so the append-only guard is re-created with it among the columns a
 * sealing UPDATE may not touch. Two partial indexes answer, per presentation, whether a closed
 * mandate was decided and whether its transaction was approved, from the records themselves.
 * One statement each: the embedded engine runs a single statement per query.
 */
const CONTENT = `id, account_id, livemode, type, actor_type, actor_id, agent_id, decision_id, decision, amount, currency, vendor, category, policy_id, reason, metadata, created_at, mac, signed_by, terms`;
const same = `(${CONTENT.split(', ').map((c) => `OLD.${c}`).join(', ')}) IS NOT DISTINCT FROM (${CONTENT.split(', ').map((c) => `NEW.${c}`).join(', ')})`;
const SEALING = `OLD.hash IS NULL AND OLD.sequence IS NULL AND NEW.hash IS NOT NULL AND NEW.sequence IS NOT NULL AND ${same}`;

const statements = [
  'ALTER TABLE audit_records ADD COLUMN terms jsonb',
  `CREATE OR REPLACE FUNCTION audit_records_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND (${SEALING}) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'audit_records is append-only (% refused)', TG_OP;
END;
$$`,
  'DROP TRIGGER audit_records_no_update ON audit_records',
  `CREATE TRIGGER audit_records_no_update BEFORE UPDATE ON audit_records
     FOR EACH ROW WHEN ((${SEALING}) IS NOT TRUE) EXECUTE FUNCTION audit_records_append_only()`,
  `CREATE INDEX audit_records_mandate_digest ON audit_records ((terms->'mandate'->>'closed_digest')) WHERE terms ? 'mandate'`,
  `CREATE INDEX audit_records_mandate_approved ON audit_records ((terms->'mandate'->>'id'), (terms->'mandate'->>'transaction_id')) WHERE terms ? 'mandate' AND decision = 'approved'`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(): Promise<void> {
  throw new Error('030_decision_terms cannot be reverted: the terms sealed in decision records would be lost');
}
