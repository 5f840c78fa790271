import { sql, type Kysely } from 'kysely';

/**
 * Each claim of an Idempotency-Key gets its own id (`claim_id`), and the response is stored only
 * under the claim that made it: a request stalled past the claim's lifetime, whose key a retry has
 * since taken over, can no longer commit its decision (two decisions for one key, one answer kept).
 * `spend_auth_claim_held` aborts the storing statement, and with it the decision's transaction,
 * with SQLSTATE SA410 when the claim is no longer the request's.
 */
const statements = [
  'ALTER TABLE idempotency_keys ADD COLUMN claim_id text',
  `CREATE FUNCTION spend_auth_claim_held(ok boolean) RETURNS boolean LANGUAGE plpgsql AS $$
   BEGIN
     IF ok IS NOT TRUE THEN
       RAISE EXCEPTION 'this Idempotency-Key was taken over by a later request' USING ERRCODE = 'SA410';
     END IF;
     RETURN true;
   END $$`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('DROP FUNCTION spend_auth_claim_held(boolean)').execute(db);
  await sql.raw('ALTER TABLE idempotency_keys DROP COLUMN claim_id').execute(db);
}
