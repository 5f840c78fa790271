import { sql, type Kysely } from 'kysely';

/**
 * AP2 mandates (DECISIONS §20): the open Payment Mandates the service issues, the closed ones it
 * was shown (each answered once, its first answer kept sealed for replay), and the decision a
 * presentation made.
 *
 * - A mandate's signed content never changes: an UPDATE may only move `status` active → used or
 *   active → revoked (never back), and the counters `uses`, `budget_used`, `last_used_at`, which
 *   never decrease. `expired` is not stored: an active mandate past `expires_at` reads as expired.
 * - `reference` (base64url SHA-256 of the closed JWT) is the primary key of a presentation, and
 *   `closed_digest` (base64url SHA-256 of the closed JWT's signed `header.payload`) is unique: the
 *   same closed mandate presented twice, even at once or with its signature re-encoded, is decided once.
 * One statement each: the embedded engine runs a single statement per query.
 */
const FROZEN = 'id, account_id, livemode, agent_id, agent_key_id, credential, open_mandate, signing_kid, currency, category, single_use, max_occurrences, budget_minor, expires_at, created_at, metadata';
const cols = (prefix: string) => FROZEN.split(', ').map((c) => `${prefix}.${c}`).join(', ');

const statements = [
  `CREATE TABLE mandates (
     id text PRIMARY KEY,
     account_id text NOT NULL REFERENCES accounts(id),
     livemode boolean NOT NULL,
     agent_id text NOT NULL REFERENCES agents(id),
     agent_key_id text NOT NULL REFERENCES agent_keys(id),
     status text NOT NULL CHECK (status IN ('active', 'used', 'revoked')),
     credential text NOT NULL,
     open_mandate jsonb NOT NULL,
     signing_kid text NOT NULL,
     currency text NOT NULL,
     category text,
     single_use boolean NOT NULL,
     max_occurrences integer CHECK (max_occurrences BETWEEN 1 AND 1000),
     budget_minor bigint CHECK (budget_minor > 0),
     uses integer NOT NULL DEFAULT 0 CHECK (uses >= 0),
     budget_used bigint NOT NULL DEFAULT 0 CHECK (budget_used >= 0),
     last_used_at timestamptz,
     expires_at timestamptz NOT NULL,
     revoked_at timestamptz,
     created_at timestamptz NOT NULL,
     metadata jsonb NOT NULL DEFAULT '{}',
     CHECK ((status = 'revoked') = (revoked_at IS NOT NULL))
   )`,
  'CREATE INDEX mandates_by_agent ON mandates (account_id, livemode, agent_id, created_at DESC, id DESC)',
  'CREATE INDEX mandates_list ON mandates (account_id, livemode, created_at DESC, id DESC)',
  `CREATE INDEX mandates_active_by_key ON mandates (agent_key_id) WHERE status = 'active'`,
  `CREATE FUNCTION mandates_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'mandates: only status (active to used or revoked), revoked_at and the counters change, and the counters never decrease (% refused)', TG_OP;
END;
$$`,
  `CREATE TRIGGER mandates_immutable BEFORE UPDATE ON mandates
     FOR EACH ROW WHEN (
       (${cols('OLD')}) IS DISTINCT FROM (${cols('NEW')})
       OR NEW.uses < OLD.uses OR NEW.budget_used < OLD.budget_used
       OR (OLD.last_used_at IS NOT NULL AND NEW.last_used_at IS DISTINCT FROM OLD.last_used_at AND (NEW.last_used_at IS NULL OR NEW.last_used_at < OLD.last_used_at))
       OR (OLD.status <> 'active' AND (NEW.status IS DISTINCT FROM OLD.status OR NEW.revoked_at IS DISTINCT FROM OLD.revoked_at)))
     EXECUTE FUNCTION mandates_immutable()`,
  `CREATE TABLE mandate_presentations (
     reference text PRIMARY KEY,
     closed_digest text NOT NULL,
     account_id text NOT NULL REFERENCES accounts(id),
     livemode boolean NOT NULL,
     mandate_id text NOT NULL REFERENCES mandates(id),
     transaction_id text NOT NULL,
     decision_id text NOT NULL REFERENCES decisions(id),
     outcome text NOT NULL CHECK (outcome IN ('approved', 'denied')),
     response_sealed text NOT NULL,
     created_at timestamptz NOT NULL
   )`,
  // An ECDSA signature has a second valid encoding (s and n − s): the same closed mandate with it is
  // another JWT, another reference, but the same signed bytes. Those are what is decided once.
  'CREATE UNIQUE INDEX mandate_presentations_closed_digest ON mandate_presentations (closed_digest)',
  `CREATE INDEX mandate_presentations_approved ON mandate_presentations (mandate_id, transaction_id) WHERE outcome = 'approved'`,
  'ALTER TABLE decisions ADD COLUMN mandate jsonb',
  // The ledger check sums each mandate's approvals (audit verify).
  `CREATE INDEX decisions_by_mandate ON decisions ((mandate->>'id')) WHERE mandate IS NOT NULL`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(): Promise<void> {
  throw new Error('027_mandates cannot be reverted: mandates are dispute evidence and their decisions name them');
}
