import { sql, type Kysely } from 'kysely';

/**
 * For deciding a spend request in two statements instead of a locked transaction:
 * - `agents.decision_seq` goes up with every decision of the agent. A decision written without the
 *   agent's lock is written only if the counter (and the agent's status and policy) are still what
 *   its evaluation read; otherwise nothing is written and the request is decided again under the lock.
 * - `spend_auth_require` aborts the statement that calls it with SQLSTATE SA409 when its argument is
 *   false: that is how such a write undoes itself.
 * - Rate-limit counters are unlogged: a one-minute window need not survive a crash, and a request's
 *   count then costs no WAL flush.
 */
const statements = [
  `ALTER TABLE agents ADD COLUMN decision_seq bigint NOT NULL DEFAULT 0`,
  `CREATE FUNCTION spend_auth_require(ok boolean) RETURNS integer LANGUAGE plpgsql AS $$
   BEGIN
     IF ok IS NOT TRUE THEN
       RAISE EXCEPTION 'the state this write was based on has changed' USING ERRCODE = 'SA409';
     END IF;
     RETURN 1;
   END $$`,
  `ALTER TABLE rate_limit_counters SET UNLOGGED`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('ALTER TABLE rate_limit_counters SET LOGGED').execute(db);
  await sql.raw('DROP FUNCTION spend_auth_require(boolean)').execute(db);
  await sql.raw('ALTER TABLE agents DROP COLUMN decision_seq').execute(db);
}
