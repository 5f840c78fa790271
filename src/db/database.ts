import type { ColumnType, Generated, Kysely, Selectable, Transaction } from 'kysely';

/** JSON stored in jsonb: selected as parsed values, inserted as JSON text. */
export type Json<T> = ColumnType<T, string, string>;

export type Plan = 'sandbox' | 'starter' | 'growth' | 'enterprise';
export type Role = 'admin' | 'reviewer' | 'agent';
export type AgentStatus = 'active' | 'frozen' | 'deactivated';
export type KycStatus = 'pending' | 'verified' | 'rejected';

export interface AccountsTable {
  id: string;
  name: string;
  plan: Plan;
  rate_limit: number | null;
  created_at: Date;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  livemode: boolean;
  name: string;
  role: Role;
  agent_id: string | null;
  key_hash: string;
  key_prefix: string;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

export interface AgentsTable {
  id: string;
  account_id: string;
  livemode: boolean;
  name: string;
  agent_type: string | null;
  policy_id: string | null;
  status: AgentStatus;
  kyc_status: KycStatus;
  metadata: Json<Record<string, unknown>>;
  created_at: Date;
  updated_at: Date;
}

export interface PoliciesTable {
  id: string;
  account_id: string;
  livemode: boolean;
  name: string;
  currency: string;
  budget_monthly: number;
  budget_daily: number | null;
  budget_single_max: number;
  vendor_allowlist: Json<string[]>;
  vendor_denylist: Json<string[]>;
  require_approval_above: number | null;
  categories_allowed: Json<string[]>;
  active: boolean;
  approval_timeout_seconds: number;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export interface AuditRecordsTable {
  id: string;
  account_id: string;
  livemode: boolean;
  sequence: number;
  type: string;
  actor_type: 'api_key' | 'reviewer' | 'system';
  actor_id: string | null;
  agent_id: string | null;
  decision_id: string | null;
  decision: string | null;
  amount: number | null;
  currency: string | null;
  vendor: string | null;
  category: string | null;
  policy_id: string | null;
  reason: string | null;
  metadata: Json<Record<string, unknown>>;
  created_at: Date;
  prev_hash: string;
  hash: string;
}

/** One row per (account, mode): the head of that audit chain, locked to append. */
export interface AuditChainsTable {
  account_id: string;
  livemode: boolean;
  sequence: number;
  head_hash: string;
}

export interface DB {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  agents: AgentsTable;
  policies: PoliciesTable;
  audit_records: AuditRecordsTable;
  audit_chains: AuditChainsTable;
}

export type Db = Kysely<DB>;
/** A handle that may be the root database or a transaction; repositories take it first. */
export type DbOrTrx = Kysely<DB> | Transaction<DB>;
export type { Generated, Selectable };
