import type { ColumnType, Generated, Kysely, Selectable, Transaction } from 'kysely';
import type { Plan, Role } from '../kernel/caller.js';
import type { AgentKeyDirectoriesTable, AgentKeysTable, SignatureNoncesTable } from './agent-key-tables.js';
import type { MandatePresentationsTable, MandateRef, MandatesTable } from './mandate-tables.js';
import type { RequestSignature } from '../kernel/caller.js';
import type { RailAuthorizationsTable, RailCardCapturesTable, RailConnectionsTable, RailEventsTable, RailTransactionsTable, RailType } from './rail-tables.js';

export type { Plan, Role };

/** JSON stored in jsonb: selected as parsed values, inserted as JSON text. */
export type Json<T> = ColumnType<T, string, string>;

export type AgentStatus = 'active' | 'frozen' | 'deactivated';
export type KycStatus = 'pending' | 'verified' | 'rejected';

export interface AccountsTable {
  id: string;
  name: string;
  plan: Plan;
  rate_limit: number | null;
  /** Enterprise only: checks included per month, and the price of each further one in micro-dollars. */
  included_checks: ColumnType<number | null, number | null | undefined, number | null>;
  overage_rate_micros: ColumnType<number | null, number | null | undefined, number | null>;
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
  /** The key that minted it through the API; null for keys made on the command line (kept for good). */
  created_by: string | null;
  /** Where it came from: minted by `created_by`, on the command line, or not known (made before it was kept). */
  created_via: 'api' | 'command_line' | 'unknown';
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
  /** Goes up with every decision of the agent (see migration 009). */
  decision_seq: Generated<number>;
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
  velocity_limits: Json<VelocityLimit[]>;
  duplicate_window_seconds: number | null;
  auto_freeze: Json<AutoFreeze | null>;
  approval_rules: Json<ApprovalRule[]>;
  escalate_after_seconds: number | null;
  /** An approval not captured within this many seconds expires (docs/api.md, "Capture and void"). */
  capture_window_seconds: Generated<number>;
  /** Requests by a credential bound to one agent must be signed (DECISIONS §19; migration 026). */
  require_signed_requests: Generated<boolean>;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export interface VelocityLimit {
  window_seconds: number;
  max_count?: number | null;
  max_amount?: number | null;
}

/** A hold above `above` (minor units) needs `approvals_required` distinct approvals (docs/api.md, "Approval chains"). */
export interface ApprovalRule {
  above: number;
  approvals_required: number;
}

/** One reviewer's approval of a hold: the key that gave it (null for an operator's signal) and its name then. */
export interface ApprovalEntry {
  api_key_id: string | null;
  name: string;
  note: string | null;
  at: string;
}

export interface AutoFreeze {
  denials: number;
  window_seconds: number;
}

export interface AuditRecordsTable {
  id: string;
  account_id: string;
  livemode: boolean;
  type: string;
  actor_type: 'api_key' | 'reviewer' | 'operator' | 'system';
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
  /** Null until the record is sealed into its chain (shortly after commit). */
  sequence: number | null;
  prev_hash: string | null;
  hash: string | null;
  /** Assigned by the database on insert: the order the sealer chains committed records in. */
  insert_order: Generated<number>;
  /** HMAC of the content with the server's audit key, written with the record; null only on rows the service did not write. */
  mac: string | null;
  /** Thumbprint of the agent key that signed the request behind the record (migration 026); inside the MAC. */
  signed_by: ColumnType<string | null, string | null | undefined, never>;
  /** A decision record's terms (migration 030; DecisionTerms); inside the MAC. Null on other records and on those written before. */
  terms: ColumnType<DecisionTerms | null, string | null | undefined, never>;
}

/**
 * What a decision's `authorization.decision` record seals beside its facts (DECISIONS §7): the
 * periods it counts in, the key that requested it, a hold's quorum, and the mandate presentation
 * that made it. The API, the workflow and verify take these from the record, never from the row.
 */
export interface DecisionTerms {
  spend_month: string;
  spend_day: string;
  requested_by: string | null;
  approvals_required: number | null;
  /** With the digest of the closed mandate's signed bytes (any encoding of its signature): what is decided once. */
  mandate?: MandateRef & { closed_digest: string };
}

/** One row per (account, mode): the head of that audit chain, locked to append. */
export interface AuditChainsTable {
  account_id: string;
  livemode: boolean;
  sequence: number;
  head_hash: string;
  /** HMAC of the head's place with the audit key (migration 018): only the sealer can move a head. */
  head_mac: string;
  /** Set once, when the sealer found the head moved without the key; never cleared. */
  tampered_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The sequence the moved head pointed at then: the records after it were removed. */
  tampered_sequence: ColumnType<number | null, number | null | undefined, number | null>;
}

/** The daily checkpoint sent to an account's webhook endpoints, once per account, mode and day. */
export interface AuditCheckpointDaysTable {
  account_id: string;
  livemode: boolean;
  /** YYYY-MM-DD (UTC). */
  day: string;
  sequence: number;
  head_hash: string;
  event_id: string;
  created_at: Generated<Date>;
}

/** A fingerprint per server key setting, stored at the first migration run (never the key). */
export interface ServerKeyFingerprintsTable {
  setting: string;
  fingerprint: string;
  created_at: Generated<Date>;
}

export type DecisionOutcome = 'approved' | 'denied' | 'held';
export type DecisionStatus = 'approved' | 'denied' | 'pending' | 'expired';
export type CaptureStatus = 'uncaptured' | 'captured' | 'voided' | 'expired';

export interface DecisionsTable {
  id: string;
  account_id: string;
  livemode: boolean;
  agent_id: string;
  policy_id: string | null;
  amount: number;
  currency: string;
  vendor: string;
  category: string | null;
  metadata: Json<Record<string, unknown>>;
  decision: DecisionOutcome;
  /** The outcome as first decided (a resolved hold keeps `held`). */
  original_decision: DecisionOutcome;
  original_reason_code: string | null;
  status: DecisionStatus;
  reason_code: string | null;
  reason: string | null;
  authorization_token: string | null;
  token_expires_at: Date | null;
  spend_month: string;
  spend_day: string;
  idempotency_key: string | null;
  expires_at: Date | null;
  resolved_at: Date | null;
  resolved_by: string | null;
  resolution_note: string | null;
  /** Holds only: the distinct approvals the hold needs, fixed when it was held (null otherwise). */
  approvals_required: number | null;
  approvals: Json<ApprovalEntry[]>;
  escalates_at: Date | null;
  escalated_at: Date | null;
  created_at: Date;
  updated_at: Date;
  /** Null for denied and pending decisions; set for every approval (see migration 015). */
  capture_status: ColumnType<CaptureStatus | null, CaptureStatus | null | undefined, CaptureStatus | null>;
  captured_amount: ColumnType<number | null, number | null | undefined, number | null>;
  captured_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The capture deadline; null for approvals made before captures existed (they never expire by themselves). */
  capture_expires_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** When the capture status left `uncaptured`. */
  capture_resolved_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  token_consumed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The API key that asked for it (four eyes in live mode); null for decisions from before migration 020. */
  requested_by: ColumnType<string | null, string | null | undefined, string | null>;
  /** What the rail sent with its capture (migration 022); null until captured. Written as JSON text. */
  capture_metadata: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  /** The rail request that made the decision (migration 021): all three set, or none. */
  rail_type: ColumnType<RailType | null, RailType | null | undefined, RailType | null>;
  rail_connection_id: ColumnType<string | null, string | null | undefined, string | null>;
  rail_authorization_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** A decision made for the increase of a card authorization: its first decision (migration 024). */
  increment_of: ColumnType<string | null, string | null | undefined, string | null>;
  /** How far a rail's capture went over what was approved for its card authorization (migration 024); null when it did not. */
  over_capture_amount: ColumnType<number | null, number | null | undefined, number | null>;
  /** The request signature the decision was asked under (migration 026); null when unsigned. Written as JSON text. */
  signature: ColumnType<RequestSignature | null, string | null | undefined, never>;
  /** The request signature the capture was made under; null when unsigned or not captured by a request. */
  capture_signature: ColumnType<RequestSignature | null, string | null | undefined, string | null>;
  /** The AP2 mandate presentation that made the decision (migration 027); null otherwise. Written as JSON text. */
  mandate: ColumnType<MandateRef | null, string | null | undefined, never>;
}

export interface AgentSpendTable {
  agent_id: string;
  period: string;
  approved: number;
  reserved: number;
}

export interface IdempotencyKeysTable {
  account_id: string;
  livemode: boolean;
  /** The API key that sent the request: a stored response is replayed to that key only. */
  api_key_id: string;
  key: string;
  request_hash: string;
  status: 'in_progress' | 'completed';
  response_status: number | null;
  response_type: string | null;
  /** Encrypted with IDEMPOTENCY_ENCRYPTION_KEY (see idempotency/response-cipher.ts). */
  response_body: string | null;
  created_at: Date;
  /** The claim that holds the key (migration 029): the response is stored only under it. */
  claim_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface EventsTable {
  id: string;
  account_id: string;
  livemode: boolean;
  type: string;
  data: Json<Record<string, unknown>>;
  created_at: Date;
}

export interface OutboxTable {
  id: Generated<number>;
  account_id: string | null;
  topic: string;
  ref_id: string;
  payload: Json<Record<string, unknown>>;
  created_at: Date;
  attempts: Generated<number>;
  next_attempt_at: Date;
  last_error: string | null;
  processed_at: Date | null;
  /** Failures of the row's own (engine outages not counted). */
  failures: Generated<number>;
  dead_lettered_at: Date | null;
}

export interface WebhookEndpointsTable {
  id: string;
  account_id: string;
  livemode: boolean;
  url: string;
  description: string | null;
  events: Json<string[]>;
  enabled: boolean;
  /** The signing secret, sealed (AES-256-GCM, the endpoint as authenticated data: webhooks/endpoint-secret.ts); never in clear. */
  secret_sealed: string;
  /** After a rotation with a grace period: the secret before it, sealed the same way, still signing until `previous_secret_expires_at`. */
  previous_secret_sealed: ColumnType<string | null, string | null | undefined, string | null>;
  previous_secret_expires_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveriesTable {
  id: string;
  account_id: string;
  livemode: boolean;
  event_id: string;
  endpoint_id: string;
  workflow_id: string;
  status: DeliveryStatus;
  attempt_count: Generated<number>;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  attempted_at: Date;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
}

export interface RateLimitCountersTable {
  bucket: string;
  window_start: Date;
  count: number;
}

export interface UsageCountersTable {
  account_id: string;
  /** 'YYYY-MM', UTC. */
  month: string;
  shard: number;
  checks: number;
}

export type UsageReportStatus = 'pending' | 'accepted' | 'skipped' | 'failed';

export interface UsageReportsTable {
  account_id: string;
  month: string;
  quantity: number;
  status: UsageReportStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  idempotency_key: string;
  created_at: Date;
  updated_at: Date;
  reported_at: Date | null;
}

/** Quick-start vaults: the token is stored only as its SHA-256 hash plus a display prefix. */
export interface VaultsTable {
  id: string;
  account_id: string;
  livemode: boolean;
  agent_id: string;
  policy_id: string;
  name: string;
  token_hash: string;
  token_prefix: string;
  created_at: Date;
  revoked_at: Date | null;
}

// The rails' tables (migration 021) are in rail-tables.ts, to keep this file readable.
export type { RailAnswerOutcome, RailAuthorizationsTable, RailConnectionsTable, RailEventsTable, RailTransactionsTable, RailType } from './rail-tables.js';

// Agents' signing keys (migration 026) are in agent-key-tables.ts.
export type { AgentKeyDirectoriesTable, AgentKeysTable, SignatureNoncesTable } from './agent-key-tables.js';

// AP2 mandates (migration 027) are in mandate-tables.ts.
export type { MandatePresentationsTable, MandateRef, MandatesTable, MandateStatus } from './mandate-tables.js';

export interface DB {
  mandates: MandatesTable;
  mandate_presentations: MandatePresentationsTable;
  agent_keys: AgentKeysTable;
  agent_key_directories: AgentKeyDirectoriesTable;
  signature_nonces: SignatureNoncesTable;
  rail_connections: RailConnectionsTable;
  rail_authorizations: RailAuthorizationsTable;
  rail_events: RailEventsTable;
  rail_transactions: RailTransactionsTable;
  rail_card_captures: RailCardCapturesTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  decisions: DecisionsTable;
  agent_spend: AgentSpendTable;
  idempotency_keys: IdempotencyKeysTable;
  events: EventsTable;
  outbox: OutboxTable;
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  agents: AgentsTable;
  policies: PoliciesTable;
  audit_records: AuditRecordsTable;
  audit_chains: AuditChainsTable;
  audit_checkpoint_days: AuditCheckpointDaysTable;
  server_key_fingerprints: ServerKeyFingerprintsTable;
  rate_limit_counters: RateLimitCountersTable;
  usage_counters: UsageCountersTable;
  usage_reports: UsageReportsTable;
  vaults: VaultsTable;
}

export type Db = Kysely<DB>;
/** A handle that may be the root database or a transaction; repositories take it first. */
export type DbOrTrx = Kysely<DB> | Transaction<DB>;
export type { Generated, Selectable };
