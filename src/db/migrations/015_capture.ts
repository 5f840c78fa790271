import { sql, type Kysely } from 'kysely';

/**
 * The spend lifecycle after approval (docs/api.md, "Capture and void"): what the rail captured, a
 * void, the expiry of an approval never captured, and single-use tokens.
 *
 * - `decisions.capture_status` is null for denied and pending decisions; every approval gets
 *   `uncaptured` and a capture deadline (`capture_expires_at` = approval time + the policy's
 *   `capture_window_seconds`). A trigger sets both whenever a row becomes approved without them, so
 *   every path to an approval (a direct approval, a reviewer, a quorum) gets them alike.
 * - Approvals made before this migration become `uncaptured` without a deadline: nothing is
 *   released on their behalf automatically (the rail may have charged them); an admin captures or
 *   voids them.
 * - `token_consumed_at`: the token was used once (a verify with `consume`, or a capture).
 */
const statements = [
  `ALTER TABLE policies ADD COLUMN capture_window_seconds integer NOT NULL DEFAULT 604800
     CHECK (capture_window_seconds BETWEEN 60 AND 2592000)`,
  `ALTER TABLE decisions ADD COLUMN capture_status text
     CHECK (capture_status IN ('uncaptured','captured','voided','expired'))`,
  `ALTER TABLE decisions ADD COLUMN captured_amount bigint CHECK (captured_amount > 0 AND captured_amount <= amount)`,
  `ALTER TABLE decisions ADD COLUMN captured_at timestamptz`,
  `ALTER TABLE decisions ADD COLUMN capture_expires_at timestamptz`,
  `ALTER TABLE decisions ADD COLUMN capture_resolved_at timestamptz`,
  `ALTER TABLE decisions ADD COLUMN token_consumed_at timestamptz`,
  `UPDATE decisions SET capture_status = 'uncaptured' WHERE decision = 'approved'`,
  `CREATE INDEX decisions_uncaptured_idx ON decisions (capture_expires_at) WHERE capture_status = 'uncaptured'`,
  `CREATE FUNCTION spend_auth_capture_defaults() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF NEW.decision = 'approved' AND NEW.capture_status IS NULL THEN
       NEW.capture_status := 'uncaptured';
       NEW.capture_expires_at := coalesce(NEW.resolved_at, NEW.updated_at) + make_interval(secs => coalesce(
         (SELECT p.capture_window_seconds FROM policies p WHERE p.id = NEW.policy_id), 604800));
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER decisions_capture_defaults BEFORE INSERT OR UPDATE ON decisions
     FOR EACH ROW EXECUTE FUNCTION spend_auth_capture_defaults()`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('DROP TRIGGER decisions_capture_defaults ON decisions').execute(db);
  await sql.raw('DROP FUNCTION spend_auth_capture_defaults()').execute(db);
  await sql.raw('DROP INDEX decisions_uncaptured_idx').execute(db);
  for (const c of ['token_consumed_at', 'capture_resolved_at', 'capture_expires_at', 'captured_at', 'captured_amount', 'capture_status']) {
    await sql.raw(`ALTER TABLE decisions DROP COLUMN ${c}`).execute(db);
  }
  await sql.raw('ALTER TABLE policies DROP COLUMN capture_window_seconds').execute(db);
}
