import { sql, type Kysely } from 'kysely';

/** One statement each: the embedded engine runs a single statement per query. */
const statements = [
  `CREATE TABLE accounts (
  id text PRIMARY KEY,
  name text NOT NULL,
  plan text NOT NULL CHECK (plan IN ('sandbox','starter','growth','enterprise')),
  rate_limit integer CHECK (rate_limit IS NULL OR rate_limit > 0),
  created_at timestamptz NOT NULL DEFAULT now()
)`,
  `CREATE TABLE api_keys (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id),
  livemode boolean NOT NULL,
  name text NOT NULL,
  role text NOT NULL CHECK (role IN ('admin','reviewer','agent')),
  agent_id text,
  key_hash text NOT NULL UNIQUE,
  key_prefix text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  last_used_at timestamptz,
  CHECK ((role = 'agent') = (agent_id IS NOT NULL))
)`,
  `CREATE INDEX api_keys_account_idx ON api_keys (account_id, livemode, created_at DESC, id DESC)`,
  `CREATE TABLE policies (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id),
  livemode boolean NOT NULL,
  name text NOT NULL,
  currency text NOT NULL DEFAULT 'USD',
  budget_monthly bigint NOT NULL CHECK (budget_monthly >= 0),
  budget_daily bigint CHECK (budget_daily >= 0),
  budget_single_max bigint NOT NULL CHECK (budget_single_max >= 0),
  vendor_allowlist jsonb NOT NULL DEFAULT '[]',
  vendor_denylist jsonb NOT NULL DEFAULT '[]',
  require_approval_above bigint CHECK (require_approval_above >= 0),
  categories_allowed jsonb NOT NULL DEFAULT '[]',
  active boolean NOT NULL DEFAULT true,
  approval_timeout_seconds integer NOT NULL DEFAULT 259200 CHECK (approval_timeout_seconds > 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
)`,
  `CREATE INDEX policies_account_idx ON policies (account_id, livemode, created_at DESC, id DESC)`,
  `CREATE TABLE agents (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id),
  livemode boolean NOT NULL,
  name text NOT NULL,
  agent_type text,
  policy_id text REFERENCES policies(id),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active','frozen','deactivated')),
  kyc_status text NOT NULL DEFAULT 'pending' CHECK (kyc_status IN ('pending','verified','rejected')),
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
)`,
  `CREATE INDEX agents_account_idx ON agents (account_id, livemode, created_at DESC, id DESC)`,
  `CREATE INDEX agents_policy_idx ON agents (policy_id)`,
  `CREATE TABLE audit_chains (
  account_id text NOT NULL REFERENCES accounts(id),
  livemode boolean NOT NULL,
  sequence bigint NOT NULL,
  head_hash text NOT NULL,
  PRIMARY KEY (account_id, livemode)
)`,
  `CREATE TABLE audit_records (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id),
  livemode boolean NOT NULL,
  sequence bigint NOT NULL,
  type text NOT NULL,
  actor_type text NOT NULL CHECK (actor_type IN ('api_key','reviewer','system')),
  actor_id text,
  agent_id text,
  decision_id text,
  decision text,
  amount bigint,
  currency text,
  vendor text,
  category text,
  policy_id text,
  reason text,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL,
  prev_hash text NOT NULL,
  hash text NOT NULL,
  UNIQUE (account_id, livemode, sequence)
)`,
  `CREATE INDEX audit_records_agent_idx ON audit_records (account_id, livemode, agent_id, sequence DESC)`,
  `CREATE INDEX audit_records_created_idx ON audit_records (account_id, livemode, created_at)`,
  `-- Append-only in the database itself: no code path, and no stray SQL session, may rewrite history.
CREATE FUNCTION audit_records_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_records is append-only (% refused)', TG_OP;
END;
$$`,
  `CREATE TRIGGER audit_records_no_update BEFORE UPDATE OR DELETE ON audit_records
  FOR EACH ROW EXECUTE FUNCTION audit_records_append_only()`,
  `CREATE TRIGGER audit_records_no_truncate BEFORE TRUNCATE ON audit_records
  FOR EACH STATEMENT EXECUTE FUNCTION audit_records_append_only()`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(): Promise<void> {
  throw new Error('001_foundation cannot be reverted: the audit log is append-only');
}
