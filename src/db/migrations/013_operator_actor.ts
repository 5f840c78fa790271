import { sql, type Kysely } from 'kysely';

/** Audit actor `operator`: an outcome signalled from the Temporal UI or CLI (docs/api.md, "Audit log"). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE audit_records DROP CONSTRAINT audit_records_actor_type_check`.execute(db);
  await sql`ALTER TABLE audit_records ADD CONSTRAINT audit_records_actor_type_check CHECK (actor_type IN ('api_key','reviewer','operator','system'))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE audit_records DROP CONSTRAINT audit_records_actor_type_check`.execute(db);
  await sql`ALTER TABLE audit_records ADD CONSTRAINT audit_records_actor_type_check CHECK (actor_type IN ('api_key','reviewer','system'))`.execute(db);
}
