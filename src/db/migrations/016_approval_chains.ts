import { sql, type Kysely } from 'kysely';

/**
 * Approval chains (docs/api.md, "Approval chains"): a policy's quorum rules and escalation delay; a
 * hold keeps the quorum it needs (fixed when held), the approvals given so far, and when it
 * escalates. One statement each: the embedded engine runs a single statement per query.
 */
const statements = [
  `ALTER TABLE policies ADD COLUMN approval_rules jsonb NOT NULL DEFAULT '[]'`,
  // The API refuses less than 60 s; the column only refuses nonsense.
  `ALTER TABLE policies ADD COLUMN escalate_after_seconds integer CHECK (escalate_after_seconds > 0)`,
  `ALTER TABLE decisions ADD COLUMN approvals_required integer CHECK (approvals_required BETWEEN 1 AND 5)`,
  `ALTER TABLE decisions ADD COLUMN approvals jsonb NOT NULL DEFAULT '[]'`,
  `ALTER TABLE decisions ADD COLUMN escalates_at timestamptz`,
  `ALTER TABLE decisions ADD COLUMN escalated_at timestamptz`,
  // Holds from before: one approval, as they were decided.
  `UPDATE decisions SET approvals_required = 1 WHERE expires_at IS NOT NULL`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const s of [
    'ALTER TABLE decisions DROP COLUMN escalated_at',
    'ALTER TABLE decisions DROP COLUMN escalates_at',
    'ALTER TABLE decisions DROP COLUMN approvals',
    'ALTER TABLE decisions DROP COLUMN approvals_required',
    'ALTER TABLE policies DROP COLUMN escalate_after_seconds',
    'ALTER TABLE policies DROP COLUMN approval_rules',
  ]) await sql.raw(s).execute(db);
}
