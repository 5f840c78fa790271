import { sql, type Kysely } from 'kysely';

/** One statement each: the embedded engine runs a single statement per query. */
const statements = [
  // Enterprise terms; null on other plans (their terms come from the plan table in code).
  `ALTER TABLE accounts ADD COLUMN included_checks bigint CHECK (included_checks IS NULL OR included_checks >= 0)`,
  // Micro-dollars (USD 0.000001) per check beyond the included ones: integers, never floats.
  `ALTER TABLE accounts ADD COLUMN overage_rate_micros bigint CHECK (overage_rate_micros IS NULL OR overage_rate_micros >= 0)`,
  // Fixed one-minute windows shared by every API process. Unlogged: a crash may lose the
  // counts of the current minute, which is harmless, and no request pays for a WAL flush.
  `CREATE UNLOGGED TABLE rate_limit_counters (
  bucket text NOT NULL,
  window_start timestamptz NOT NULL,
  count integer NOT NULL DEFAULT 1,
  PRIMARY KEY (bucket, window_start)
)`,
  `CREATE INDEX rate_limit_counters_window_idx ON rate_limit_counters (window_start)`,
  // Billable checks per account and UTC month, live mode only. Spread over a few shard rows so
  // concurrent authorizations of different agents of one account never queue on one row lock;
  // the month's count is the sum of its shards.
  `CREATE TABLE usage_counters (
  account_id text NOT NULL REFERENCES accounts(id),
  month text NOT NULL CHECK (month ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
  shard smallint NOT NULL CHECK (shard >= 0),
  checks bigint NOT NULL DEFAULT 0 CHECK (checks >= 0),
  PRIMARY KEY (account_id, month, shard)
)`,
  `CREATE INDEX usage_counters_month_idx ON usage_counters (month, account_id)`,
  // One row per (account, month) reported to the billing meter: a re-run finds it and does nothing.
  `CREATE TABLE usage_reports (
  account_id text NOT NULL REFERENCES accounts(id),
  month text NOT NULL CHECK (month ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
  quantity bigint NOT NULL CHECK (quantity >= 0),
  status text NOT NULL CHECK (status IN ('pending','accepted','skipped','failed')),
  attempts integer NOT NULL DEFAULT 0,
  last_status_code integer,
  last_error text,
  idempotency_key text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  reported_at timestamptz,
  PRIMARY KEY (account_id, month)
)`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['usage_reports', 'usage_counters', 'rate_limit_counters']) await sql.raw(`DROP TABLE ${t}`).execute(db);
  await sql.raw('ALTER TABLE accounts DROP COLUMN overage_rate_micros').execute(db);
  await sql.raw('ALTER TABLE accounts DROP COLUMN included_checks').execute(db);
}
