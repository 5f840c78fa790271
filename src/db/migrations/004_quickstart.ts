import { sql, type Kysely } from 'kysely';

/** One statement each: the embedded engine runs a single statement per query. */
const statements = [
  // A vault (quick-start surface): a policy bound to one agent plus a dlt_ token, stored only as a hash.
  `CREATE TABLE vaults (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id),
  livemode boolean NOT NULL,
  agent_id text NOT NULL REFERENCES agents(id),
  policy_id text NOT NULL REFERENCES policies(id),
  name text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  token_prefix text NOT NULL,
  created_at timestamptz NOT NULL,
  revoked_at timestamptz
)`,
  // At most one usable vault per agent: a new vault replaces (revokes) the previous one.
  `CREATE UNIQUE INDEX vaults_one_active_per_agent ON vaults (agent_id) WHERE revoked_at IS NULL`,
  `CREATE INDEX vaults_account_idx ON vaults (account_id, livemode, created_at DESC, id DESC)`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('DROP TABLE vaults').execute(db);
}
