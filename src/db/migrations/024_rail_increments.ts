import { sql, type Kysely } from 'kysely';

/**
 * Card authorizations that grow (docs/rails/stripe-issuing.md, "Incremental authorizations" and
 * "Over-captures"):
 *
 * - `rail_authorizations` holds one row per request event answered, no longer one per card
 *   authorization: the first request of an authorization (`increment` false, one per authorization,
 *   it keeps the card's later life in `stripe_*`) and each later request for an increase
 *   (`increment` true). `approved_amount` is what the answer approved for the card authorization
 *   (the swipe's amount, also when it matched a larger approval); rows answered before this
 *   migration get the amount of the capture the swipe recorded (its audit record), else the
 *   decision's amount.
 * - `decisions.increment_of`: a decision made for an increase names the authorization's first
 *   decision.
 * - `decisions.captured_amount` may exceed `amount`: what the card moved counts, also above what
 *   was approved; `decisions.over_capture_amount` says by how much the capture went over what was
 *   approved for its card authorization (null when it did not).
 */
const statements = [
  `ALTER TABLE rail_authorizations DROP CONSTRAINT rail_authorizations_pkey`,
  `ALTER TABLE rail_authorizations ADD COLUMN increment boolean NOT NULL DEFAULT false`,
  `ALTER TABLE rail_authorizations ADD COLUMN approved_amount bigint NOT NULL DEFAULT 0 CHECK (approved_amount >= 0)`,
  // The amount the swipe's capture recorded (rules 1 and 2 capture at once for what was asked).
  `UPDATE rail_authorizations r SET approved_amount = coalesce(
       (SELECT a.amount FROM audit_records a WHERE a.decision_id = r.decision_id AND a.type = 'authorization.captured'
          AND a.actor_id = r.connection_id ORDER BY a.sequence LIMIT 1),
       d.amount)
     FROM decisions d WHERE d.id = r.decision_id AND r.approved`,
  `CREATE UNIQUE INDEX rail_authorizations_first_idx ON rail_authorizations (connection_id, authorization_id) WHERE NOT increment`,
  `ALTER TABLE decisions ADD COLUMN increment_of text`,
  `ALTER TABLE decisions ADD COLUMN over_capture_amount bigint CHECK (over_capture_amount > 0)`,
  // Migration 015's check was named by PostgreSQL (it spans two columns): found by what it says.
  `DO $$
   DECLARE c text;
   BEGIN
     FOR c IN SELECT conname FROM pg_constraint WHERE conrelid = 'decisions'::regclass AND contype = 'c'
                AND pg_get_constraintdef(oid) LIKE '%captured_amount <= amount%' LOOP
       EXECUTE format('ALTER TABLE decisions DROP CONSTRAINT %I', c);
     END LOOP;
   END $$`,
  `ALTER TABLE decisions ADD CONSTRAINT decisions_captured_amount_positive CHECK (captured_amount > 0)`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const s of [
    'ALTER TABLE decisions DROP CONSTRAINT decisions_captured_amount_positive',
    'UPDATE decisions SET captured_amount = amount WHERE captured_amount > amount',
    'ALTER TABLE decisions ADD CHECK (captured_amount > 0 AND captured_amount <= amount)',
    'ALTER TABLE decisions DROP COLUMN over_capture_amount',
    'ALTER TABLE decisions DROP COLUMN increment_of',
    'DROP INDEX rail_authorizations_first_idx',
    'DELETE FROM rail_authorizations WHERE increment',
    'ALTER TABLE rail_authorizations DROP COLUMN approved_amount',
    'ALTER TABLE rail_authorizations DROP COLUMN increment',
    'ALTER TABLE rail_authorizations ADD PRIMARY KEY (connection_id, authorization_id)',
  ]) await sql.raw(s).execute(db);
}
