import { sql, type Kysely } from 'kysely';

/**
 * The two row triggers on the authorize path get WHEN conditions, so PostgreSQL decides in the
 * executor whether they have anything to do and calls their PL/pgSQL function only then. What each
 * allows and refuses is unchanged:
 *
 * - `decisions_capture_defaults` runs only for a row that is approved without a capture status;
 *   every other insert or update (each denial and hold, and approvals that carry their capture
 *   fields, as the authorize path writes them) skips the call.
 * - `audit_records_no_update` runs only for an update that is not the one allowed change (sealing
 *   an unsealed record, touching nothing else), and then refuses it; the sealer's updates skip the
 *   call. Deletes have their own trigger, which always refuses.
 * One statement each: the embedded engine runs a single statement per query.
 */
const CONTENT = `id, account_id, livemode, type, actor_type, actor_id, agent_id, decision_id, decision, amount, currency, vendor, category, policy_id, reason, metadata, created_at, mac`;
const same = `(${CONTENT.split(', ').map((c) => `OLD.${c}`).join(', ')}) IS NOT DISTINCT FROM (${CONTENT.split(', ').map((c) => `NEW.${c}`).join(', ')})`;
/** Exactly the change `audit_records_append_only()` lets through (migration 011). */
const SEALING = `OLD.hash IS NULL AND OLD.sequence IS NULL AND NEW.hash IS NOT NULL AND NEW.sequence IS NOT NULL AND ${same}`;

const statements = [
  'DROP TRIGGER decisions_capture_defaults ON decisions',
  `CREATE TRIGGER decisions_capture_defaults BEFORE INSERT OR UPDATE ON decisions
     FOR EACH ROW WHEN (NEW.decision = 'approved' AND NEW.capture_status IS NULL)
     EXECUTE FUNCTION spend_auth_capture_defaults()`,
  'DROP TRIGGER audit_records_no_update ON audit_records',
  // IS NOT TRUE: a condition that came out unknown refuses, as the function's IF does.
  `CREATE TRIGGER audit_records_no_update BEFORE UPDATE ON audit_records
     FOR EACH ROW WHEN ((${SEALING}) IS NOT TRUE) EXECUTE FUNCTION audit_records_append_only()`,
  `CREATE TRIGGER audit_records_no_delete BEFORE DELETE ON audit_records
     FOR EACH ROW EXECUTE FUNCTION audit_records_append_only()`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const s of [
    'DROP TRIGGER audit_records_no_delete ON audit_records',
    'DROP TRIGGER audit_records_no_update ON audit_records',
    `CREATE TRIGGER audit_records_no_update BEFORE UPDATE OR DELETE ON audit_records
       FOR EACH ROW EXECUTE FUNCTION audit_records_append_only()`,
    'DROP TRIGGER decisions_capture_defaults ON decisions',
    `CREATE TRIGGER decisions_capture_defaults BEFORE INSERT OR UPDATE ON decisions
       FOR EACH ROW EXECUTE FUNCTION spend_auth_capture_defaults()`,
  ]) await sql.raw(s).execute(db);
}
