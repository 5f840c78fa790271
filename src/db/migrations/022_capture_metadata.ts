import { sql, type Kysely } from 'kysely';

/**
 * What a rail sends with its capture (its own reference, e.g. an x402 settlement's transaction),
 * kept with the capture: null until captured, an object (possibly empty) once captured.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw('ALTER TABLE decisions ADD COLUMN capture_metadata jsonb').execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('ALTER TABLE decisions DROP COLUMN capture_metadata').execute(db);
}
