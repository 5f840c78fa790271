import { sql, type Kysely } from 'kysely';

/** One statement each: the embedded engine runs a single statement per query. */
const statements = [
  `CREATE TABLE decisions (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id),
  livemode boolean NOT NULL,
  agent_id text NOT NULL REFERENCES agents(id),
  policy_id text,
  amount bigint NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  vendor text NOT NULL,
  category text,
  metadata jsonb NOT NULL DEFAULT '{}',
  decision text NOT NULL CHECK (decision IN ('approved','denied','held')),
  status text NOT NULL CHECK (status IN ('approved','denied','pending','expired')),
  reason_code text,
  reason text,
  authorization_token text,
  token_expires_at timestamptz,
  spend_month text NOT NULL,
  spend_day text NOT NULL,
  idempotency_key text,
  expires_at timestamptz,
  resolved_at timestamptz,
  resolved_by text,
  resolution_note text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
)`,
  `CREATE INDEX decisions_account_idx ON decisions (account_id, livemode, created_at DESC, id DESC)`,
  `CREATE INDEX decisions_agent_idx ON decisions (agent_id, created_at DESC)`,
  `CREATE INDEX decisions_pending_idx ON decisions (account_id, livemode, expires_at) WHERE status = 'pending'`,
  // Per agent and period ('M:2026-11' or 'D:2026-11-21'): approved spend and amounts reserved by holds.
  `CREATE TABLE agent_spend (
  agent_id text NOT NULL REFERENCES agents(id),
  period text NOT NULL,
  approved bigint NOT NULL DEFAULT 0 CHECK (approved >= 0),
  reserved bigint NOT NULL DEFAULT 0 CHECK (reserved >= 0),
  PRIMARY KEY (agent_id, period)
)`,
  `CREATE TABLE idempotency_keys (
  account_id text NOT NULL REFERENCES accounts(id),
  livemode boolean NOT NULL,
  key text NOT NULL,
  request_hash text NOT NULL,
  status text NOT NULL CHECK (status IN ('in_progress','completed')),
  response_status integer,
  response_type text,
  response_body text,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, livemode, key)
)`,
  `CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at)`,
  `CREATE TABLE events (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id),
  livemode boolean NOT NULL,
  type text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL
)`,
  `CREATE INDEX events_account_idx ON events (account_id, livemode, created_at DESC, id DESC)`,
  // Work that must follow a commit (start a workflow, deliver an event), written in the same transaction.
  `CREATE TABLE outbox (
  id bigserial PRIMARY KEY,
  topic text NOT NULL,
  ref_id text NOT NULL,
  payload jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  last_error text,
  processed_at timestamptz
)`,
  `CREATE INDEX outbox_due_idx ON outbox (next_attempt_at) WHERE processed_at IS NULL`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['outbox', 'events', 'idempotency_keys', 'agent_spend', 'decisions']) {
    await sql.raw(`DROP TABLE ${t}`).execute(db);
  }
}
