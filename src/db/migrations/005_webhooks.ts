import { sql, type Kysely } from 'kysely';

/** One statement each: the embedded engine runs a single statement per query. */
const statements = [
  `CREATE TABLE webhook_endpoints (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id),
  livemode boolean NOT NULL,
  url text NOT NULL,
  description text,
  events jsonb NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  secret text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz
)`,
  `CREATE INDEX webhook_endpoints_account_idx ON webhook_endpoints (account_id, livemode, created_at DESC, id DESC)`,
  `CREATE TABLE webhook_deliveries (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id),
  livemode boolean NOT NULL,
  event_id text NOT NULL REFERENCES events(id),
  endpoint_id text NOT NULL REFERENCES webhook_endpoints(id),
  workflow_id text NOT NULL UNIQUE,
  status text NOT NULL CHECK (status IN ('pending','delivered','failed')),
  attempt_count integer NOT NULL DEFAULT 0,
  last_status_code integer,
  last_error text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  completed_at timestamptz
)`,
  `CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at DESC, id DESC)`,
  `CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id)`,
  `CREATE TABLE webhook_attempts (
  id bigserial PRIMARY KEY,
  delivery_id text NOT NULL REFERENCES webhook_deliveries(id),
  attempted_at timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  status_code integer,
  error text
)`,
  `CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, id DESC)`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['webhook_attempts', 'webhook_deliveries', 'webhook_endpoints']) await sql.raw(`DROP TABLE ${t}`).execute(db);
}
