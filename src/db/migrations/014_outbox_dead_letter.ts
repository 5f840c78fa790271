import { sql, type Kysely } from 'kysely';

/**
 * Dead letters: an outbox row whose carrying fails for a reason of its own (not an engine outage)
 * this many times stops being retried, stays for an operator, and is counted in /metrics.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE outbox ADD COLUMN failures integer NOT NULL DEFAULT 0`.execute(db);
  await sql`ALTER TABLE outbox ADD COLUMN dead_lettered_at timestamptz`.execute(db);
  await sql`CREATE INDEX outbox_dead_letter_idx ON outbox (dead_lettered_at) WHERE dead_lettered_at IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX outbox_dead_letter_idx`.execute(db);
  await sql`ALTER TABLE outbox DROP COLUMN dead_lettered_at`.execute(db);
  await sql`ALTER TABLE outbox DROP COLUMN failures`.execute(db);
}
