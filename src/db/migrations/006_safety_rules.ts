import { sql, type Kysely } from 'kysely';

/** One statement each: the embedded engine runs a single statement per query. */
const statements = [
  `ALTER TABLE policies ADD COLUMN velocity_limits jsonb NOT NULL DEFAULT '[]'`,
  `ALTER TABLE policies ADD COLUMN duplicate_window_seconds integer CHECK (duplicate_window_seconds BETWEEN 1 AND 86400)`,
  `ALTER TABLE policies ADD COLUMN auto_freeze jsonb`,
  // The outcome as first decided: a hold keeps 'held' here after a reviewer resolves it (simulation compares against it).
  `ALTER TABLE decisions ADD COLUMN original_decision text`,
  `ALTER TABLE decisions ADD COLUMN original_reason_code text`,
  `UPDATE decisions SET original_decision = CASE WHEN expires_at IS NOT NULL THEN 'held' ELSE decision END,
     original_reason_code = CASE WHEN expires_at IS NOT NULL THEN 'approval_required' ELSE reason_code END`,
  `ALTER TABLE decisions ALTER COLUMN original_decision SET NOT NULL`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const s of [
    'ALTER TABLE decisions DROP COLUMN original_reason_code',
    'ALTER TABLE decisions DROP COLUMN original_decision',
    'ALTER TABLE policies DROP COLUMN auto_freeze',
    'ALTER TABLE policies DROP COLUMN duplicate_window_seconds',
    'ALTER TABLE policies DROP COLUMN velocity_limits',
  ]) await sql.raw(s).execute(db);
}
