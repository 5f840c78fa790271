import { sql, type Kysely } from 'kysely';

/**
 * Rails that ask first (docs/rails/stripe-issuing.md):
 *
 * - `rail_connections`: a card program's real-time authorization endpoint, per account and mode.
 *   The signing secret is kept only sealed (AES-256-GCM, the connection id as authenticated data).
 * - `decisions.rail_*`: the rail request that made a decision (all three set, or none).
 * - `rail_authorizations`: one row per card authorization a connection answered, with the exact
 *   answer (a repeat of the event or of the authorization gets it back) and the card's later life
 *   as last reported (`stripe_*`), and `counted_amount`: what the authorization counts against the
 *   agent's budget through its decision now.
 * - `rail_events`: every event a connection processed, so a repeat changes nothing.
 * - `rail_transactions`: settled captures and refunds, one row each, summed per authorization.
 * - An index for matching a swipe to an uncaptured approval (smallest covering one, oldest first).
 */
const statements = [
  `CREATE TABLE rail_connections (
     id text PRIMARY KEY,
     account_id text NOT NULL REFERENCES accounts(id),
     livemode boolean NOT NULL,
     type text NOT NULL CHECK (type IN ('stripe_issuing')),
     signing_secret_sealed text NOT NULL,
     stripe_version text NOT NULL,
     on_timeout text NOT NULL CHECK (on_timeout IN ('decline', 'approve')),
     created_at timestamptz NOT NULL,
     deleted_at timestamptz
   )`,
  `CREATE INDEX rail_connections_list_idx ON rail_connections (account_id, livemode, created_at DESC, id DESC) WHERE deleted_at IS NULL`,
  `ALTER TABLE decisions ADD COLUMN rail_type text, ADD COLUMN rail_connection_id text, ADD COLUMN rail_authorization_id text`,
  `ALTER TABLE decisions ADD CONSTRAINT decisions_rail_whole CHECK (
     (rail_type IS NULL AND rail_connection_id IS NULL AND rail_authorization_id IS NULL)
     OR (rail_type IS NOT NULL AND rail_connection_id IS NOT NULL AND rail_authorization_id IS NOT NULL))`,
  `CREATE INDEX decisions_uncaptured_by_agent_idx ON decisions (agent_id, currency, amount, created_at) WHERE capture_status = 'uncaptured'`,
  `CREATE TABLE rail_authorizations (
     connection_id text NOT NULL REFERENCES rail_connections(id),
     authorization_id text NOT NULL,
     account_id text NOT NULL,
     livemode boolean NOT NULL,
     request_event_id text NOT NULL,
     agent_id text,
     decision_id text,
     outcome text NOT NULL CHECK (outcome IN ('matched', 'decided', 'declined', 'timeout')),
     approved boolean NOT NULL,
     reason_code text,
     answer jsonb NOT NULL,
     counted_amount bigint NOT NULL DEFAULT 0 CHECK (counted_amount >= 0),
     stripe_approved boolean,
     stripe_status text,
     stripe_amount bigint,
     stripe_amount_at bigint,
     created_at timestamptz NOT NULL,
     updated_at timestamptz NOT NULL,
     PRIMARY KEY (connection_id, authorization_id)
   )`,
  `CREATE UNIQUE INDEX rail_authorizations_event_idx ON rail_authorizations (connection_id, request_event_id)`,
  `CREATE TABLE rail_events (
     connection_id text NOT NULL REFERENCES rail_connections(id),
     event_id text NOT NULL,
     type text NOT NULL,
     received_at timestamptz NOT NULL,
     PRIMARY KEY (connection_id, event_id)
   )`,
  `CREATE TABLE rail_transactions (
     connection_id text NOT NULL REFERENCES rail_connections(id),
     transaction_id text NOT NULL,
     authorization_id text,
     type text NOT NULL,
     amount bigint NOT NULL,
     currency text NOT NULL,
     created_at timestamptz NOT NULL,
     PRIMARY KEY (connection_id, transaction_id)
   )`,
  `CREATE INDEX rail_transactions_authorization_idx ON rail_transactions (connection_id, authorization_id)`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['rail_transactions', 'rail_events', 'rail_authorizations']) await sql.raw(`DROP TABLE ${table}`).execute(db);
  await sql.raw('DROP INDEX decisions_uncaptured_by_agent_idx').execute(db);
  await sql.raw('ALTER TABLE decisions DROP CONSTRAINT decisions_rail_whole').execute(db);
  await sql.raw('ALTER TABLE decisions DROP COLUMN rail_type, DROP COLUMN rail_connection_id, DROP COLUMN rail_authorization_id').execute(db);
  await sql.raw('DROP TABLE rail_connections').execute(db);
}
