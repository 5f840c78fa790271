import { sql, type Kysely } from 'kysely';

/**
 * What a card moved that no decision of this service approved (DECISIONS §17): a capture on an
 * authorization it declined, on one Stripe approved on the `on_timeout: approve` answer, on one it
 * never saw, or a force post with no authorization. Each counts against the card's agent at once,
 * one row per authorization (or per force-posted transaction), the amount it counts now; the spend
 * check of audit verify adds them to what the decisions count.
 */
const statements = [
  `CREATE TABLE rail_card_captures (
     connection_id text NOT NULL REFERENCES rail_connections(id),
     capture_key text NOT NULL,
     authorization_id text,
     transaction_id text,
     account_id text NOT NULL REFERENCES accounts(id),
     livemode boolean NOT NULL,
     agent_id text NOT NULL REFERENCES agents(id),
     currency text NOT NULL,
     counted_amount bigint NOT NULL CHECK (counted_amount >= 0),
     spend_month text NOT NULL,
     spend_day text NOT NULL,
     created_at timestamptz NOT NULL,
     updated_at timestamptz NOT NULL,
     PRIMARY KEY (connection_id, capture_key),
     CHECK ((authorization_id IS NULL) <> (transaction_id IS NULL))
   )`,
  'CREATE INDEX rail_card_captures_by_account ON rail_card_captures (account_id, livemode, agent_id)',
  // A force post names only its card: the agent is the one an earlier swipe of that card named.
  `CREATE INDEX decisions_by_stripe_card ON decisions (rail_connection_id, (metadata->>'stripe_card'), created_at DESC) WHERE rail_connection_id IS NOT NULL`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('DROP INDEX decisions_by_stripe_card').execute(db);
  await sql.raw('DROP TABLE rail_card_captures').execute(db);
}
