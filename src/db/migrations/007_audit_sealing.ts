import { sql, type Kysely } from 'kysely';

/**
 * Records are written unsealed (no sequence, no hash) inside the transaction of the change they
 * describe, and sealed into the chain shortly after by one sealer per chain. Authorizations then
 * never queue behind one account-wide lock held through commit.
 */
const statements = [
  `ALTER TABLE audit_records ALTER COLUMN sequence DROP NOT NULL`,
  `ALTER TABLE audit_records ALTER COLUMN prev_hash DROP NOT NULL`,
  `ALTER TABLE audit_records ALTER COLUMN hash DROP NOT NULL`,
  `CREATE INDEX audit_records_unsealed_idx ON audit_records (account_id, livemode, created_at, id) WHERE hash IS NULL`,
  // Still append-only: the one change allowed is sealing an unsealed record, once, touching nothing else.
  `CREATE OR REPLACE FUNCTION audit_records_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.hash IS NULL AND OLD.sequence IS NULL AND NEW.hash IS NOT NULL AND NEW.sequence IS NOT NULL
     AND (OLD.id, OLD.account_id, OLD.livemode, OLD.type, OLD.actor_type, OLD.actor_id, OLD.agent_id, OLD.decision_id,
          OLD.decision, OLD.amount, OLD.currency, OLD.vendor, OLD.category, OLD.policy_id, OLD.reason, OLD.metadata, OLD.created_at)
     IS NOT DISTINCT FROM
         (NEW.id, NEW.account_id, NEW.livemode, NEW.type, NEW.actor_type, NEW.actor_id, NEW.agent_id, NEW.decision_id,
          NEW.decision, NEW.amount, NEW.currency, NEW.vendor, NEW.category, NEW.policy_id, NEW.reason, NEW.metadata, NEW.created_at)
  THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'audit_records is append-only (% refused)', TG_OP;
END;
$$`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(): Promise<void> {
  throw new Error('007_audit_sealing cannot be reverted: unsealed records would have no sequence');
}
