import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { parseSignatureAgent, parseSigningKey } from './client/signing-key.js';
import { ConfigError, DEFAULT_AUTHORIZE_BATCH, type Config, type McpConfig, type McpSigningConfig, type McpX402Config, type SignalApprovals } from './kernel/config.js';
import { UNAUTHENTICATED_LIMIT_PER_MINUTE } from './ratelimit/limits.js';

const bool = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1');

const optionalUrl = z.string().url().optional();

/** A server secret written as hex or base64; never echoed in an error message. */
const secretKey = (bytes: number, exact: boolean) =>
  z.string().transform((value, ctx) => {
    const decoded = /^([0-9a-fA-F]{2})+$/.test(value)
      ? Buffer.from(value, 'hex')
      : /^[A-Za-z0-9+/_-]+={0,2}$/.test(value)
        ? Buffer.from(value, 'base64')
        : undefined;
    if (!decoded || (exact ? decoded.length !== bytes : decoded.length < bytes)) {
      ctx.addIssue({ code: 'custom', message: `must be ${exact ? '' : 'at least '}${bytes} random bytes written as hex or base64` });
      return z.NEVER;
    }
    return decoded;
  });

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  DATA_DIR: z.string().min(1).default('./.data'),
  TEMPORAL_ADDRESS: z.string().min(1).default('localhost:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('spend-authorization'),
  TEMPORAL_CLI_PATH: z.string().min(1).optional(),
  /** `false` (or 0): off; `true` (or 1, `test`, unset): test-mode holds only; `live`: the operator's opt-in to live approvals by signal. */
  TEMPORAL_ALLOW_SIGNAL_APPROVALS: z
    .enum(['true', 'false', '1', '0', 'test', 'live'], { message: 'must be false, true (test-mode holds only, the default) or live' })
    .transform((v): SignalApprovals => (v === 'live' ? 'live' : v === 'false' || v === '0' ? 'off' : 'test'))
    .default('test'),
  TEMPORAL_TLS_CERT: z.string().min(1).optional(),
  TEMPORAL_TLS_KEY: z.string().min(1).optional(),
  TEMPORAL_TLS_CA: z.string().min(1).optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  RECONCILE_INTERVAL_SECONDS: z.coerce.number().int().min(10).max(86_400).default(300),
  TOKEN_SIGNING_KEY: z.string().min(1).optional(),
  MANDATE_SIGNING_KEY: z.string().min(1).optional(),
  PUBLIC_BASE_URL: optionalUrl,
  WEBHOOK_ALLOW_PRIVATE_URLS: bool.default(false),
  BILLING_METER_URL: optionalUrl,
  BILLING_METER_API_KEY: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  /** `serve`: API processes sharing PORT (node:cluster); `serve --workers N` overrides. */
  API_WORKERS: z.coerce.number().int().min(1).max(64).default(1),
  /** PostgreSQL connections pooled per process; unset: API_DATABASE_POOL_SIZE for `serve`, DEFAULT_DATABASE_POOL_SIZE otherwise. */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1000).optional(),
  /** Requests per minute per client address without a valid key (behind a proxy that hides client addresses, raise it). */
  UNAUTHENTICATED_RATE_LIMIT: z.coerce.number().int().min(1).max(1_000_000_000).default(UNAUTHENTICATED_LIMIT_PER_MINUTE),
  /** Unset: the Temporal SDK's own (Core) metrics are not exported. */
  TEMPORAL_SDK_METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /** Unset: no tracing at all (no spans, no interceptors). */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().regex(/^https?:\/\//, 'must be an http:// or https:// URL').optional(),
  /** AES-256-GCM key for stored idempotent responses (exactly 32 bytes). */
  IDEMPOTENCY_ENCRYPTION_KEY: secretKey(32, true).optional(),
  /** HMAC-SHA-256 key of the audit chain (32 bytes or more). */
  AUDIT_HMAC_KEY: secretKey(32, false).optional(),
  /** A rail's authorization request is answered within this (Stripe waits 2 s); past it, the connection's on_timeout. */
  RAIL_DECISION_DEADLINE_MS: z.coerce.number().int().min(100).max(1_900).default(1_500),
  /** A spend request that waited longer than this (from its arrival) for its work to start is shed: 503, never decided. */
  MAX_QUEUE_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
  /** The worker sends each day's signed audit checkpoint to the accounts' webhook endpoints. */
  AUDIT_CHECKPOINT_WEBHOOKS: bool.default(false),
  /** Spend decisions committed together at most (group commit); 1: each decision its own transaction (docs/operations.md). */
  AUTHORIZE_BATCH_SIZE: z.coerce.number().int().min(1).max(256).default(DEFAULT_AUTHORIZE_BATCH.size),
  /** How long a batch waits for more requests after its first arrived; 0: until the event loop's next turn. */
  AUTHORIZE_BATCH_LINGER_MS: z.coerce.number().int().min(0).max(1).default(DEFAULT_AUTHORIZE_BATCH.lingerMs),
  /** Batches of one process in flight at once (one prepares while another commits). */
  AUTHORIZE_BATCH_IN_FLIGHT: z.coerce.number().int().min(1).max(16).default(DEFAULT_AUTHORIZE_BATCH.inFlight),
  /** Failpoint for the crash tests only: the process kills itself after its Nth batch commits, before answering. */
  FAILPOINT_KILL_AFTER_BATCH_COMMIT: z.coerce.number().int().min(1).optional(),
});

/** Every environment variable the service reads; nothing else in the environment affects it. */
export const CONFIG_VARIABLES = Object.keys(envSchema.shape) as ReadonlyArray<keyof typeof envSchema.shape>;

/** The service's settings from `env` (the CLI passes process.env). Empty strings count as unset. */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  const raw: Record<string, string> = {};
  for (const key of CONFIG_VARIABLES) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const parsed = envSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration: ${lines.join('; ')}`);
  }
  const e = parsed.data;
  if (Boolean(e.TEMPORAL_TLS_CERT) !== Boolean(e.TEMPORAL_TLS_KEY)) {
    throw new ConfigError('Invalid configuration: TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together (the client certificate and its key)');
  }
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    dataDir: path.resolve(e.DATA_DIR),
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      addressGiven: raw.TEMPORAL_ADDRESS !== undefined,
      cliPath: e.TEMPORAL_CLI_PATH ? path.resolve(e.TEMPORAL_CLI_PATH) : undefined,
      searchPath: env.PATH,
      cliCacheDir: path.join(env.XDG_CACHE_HOME || path.join(env.HOME || os.userInfo().homedir, '.cache'), 'spend-auth', 'temporal-cli'),
      allowSignalApprovals: e.TEMPORAL_ALLOW_SIGNAL_APPROVALS,
      tls:
        e.TEMPORAL_TLS_CERT || e.TEMPORAL_TLS_CA || e.TEMPORAL_TLS_SERVER_NAME
          ? { cert: e.TEMPORAL_TLS_CERT, key: e.TEMPORAL_TLS_KEY, ca: e.TEMPORAL_TLS_CA, serverName: e.TEMPORAL_TLS_SERVER_NAME }
          : undefined,
      apiKey: e.TEMPORAL_API_KEY,
      reconcileIntervalSeconds: e.RECONCILE_INTERVAL_SECONDS,
    },
    tokenSigningKey: e.TOKEN_SIGNING_KEY,
    mandateSigningKey: e.MANDATE_SIGNING_KEY,
    publicBaseUrl: e.PUBLIC_BASE_URL,
    webhookAllowPrivateUrls: e.WEBHOOK_ALLOW_PRIVATE_URLS,
    billingMeter: { url: e.BILLING_METER_URL, apiKey: e.BILLING_METER_API_KEY },
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    nodeEnv: e.NODE_ENV,
    metricsPort: e.METRICS_PORT,
    apiWorkers: e.API_WORKERS,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    unauthenticatedRateLimit: e.UNAUTHENTICATED_RATE_LIMIT,
    temporalSdkMetricsPort: e.TEMPORAL_SDK_METRICS_PORT,
    otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
    idempotencyEncryptionKey: e.IDEMPOTENCY_ENCRYPTION_KEY,
    auditHmacKey: e.AUDIT_HMAC_KEY,
    railDecisionDeadlineMs: e.RAIL_DECISION_DEADLINE_MS,
    maxQueueMs: e.MAX_QUEUE_MS,
    auditCheckpointWebhooks: e.AUDIT_CHECKPOINT_WEBHOOKS,
    authorizeBatch: { size: e.AUTHORIZE_BATCH_SIZE, lingerMs: e.AUTHORIZE_BATCH_LINGER_MS, inFlight: e.AUTHORIZE_BATCH_IN_FLIGHT },
    failpointKillAfterBatchCommit: e.FAILPOINT_KILL_AFTER_BATCH_COMMIT,
  };
}

export const MCP_X402_ENV_VARS = ['SPEND_AUTH_X402_PRIVATE_KEY', 'SPEND_AUTH_X402_AGENT_ID', 'SPEND_AUTH_X402_MAX_WAIT_SECONDS', 'SPEND_AUTH_X402_ALLOW_PRIVATE_URLS'] as const;
/** A tool call blocks the model while it waits: at most this long. */
export const MCP_X402_MAX_WAIT_SECONDS = 300;

export const MCP_ENV_VARS = ['SPEND_AUTH_BASE_URL', 'SPEND_AUTH_API_KEY'] as const;
const API_KEY_SHAPE = /^gc_(test|live)_[0-9A-Za-z]{32,128}$/;

/**
 * The service's base address, with `/v1`; a value without `/v1` gets it appended (docs/api.md,
 * "MCP tool server"). `http://localhost:3000` → `http://localhost:3000/v1`.
 */
export function normalizeServiceBaseUrl(value: string): string {
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('must be an http:// or https:// URL');
  if (url.search || url.hash || url.username || url.password) throw new TypeError('must not carry credentials, a query or a fragment');
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path.endsWith('/v1') ? path : `${path}/v1`;
  return url.toString().replace(/\/+$/, '');
}

/** Reads and checks the MCP command's variables (the two it needs, the x402 tool's optional ones); the message names every one at fault. */
export function loadMcpConfig(env: NodeJS.ProcessEnv): McpConfig {
  const missing = MCP_ENV_VARS.filter((name) => !env[name]);
  if (missing.length) {
    throw new ConfigError(
      `Missing ${missing.join(' and ')}. The mcp command needs SPEND_AUTH_BASE_URL (the service's base address, e.g. http://localhost:3000/v1) and SPEND_AUTH_API_KEY (a gc_test_… or gc_live_… key).`,
    );
  }
  let baseUrl: string;
  try {
    baseUrl = normalizeServiceBaseUrl(env.SPEND_AUTH_BASE_URL!);
  } catch (err) {
    const why = err instanceof TypeError && !/Invalid URL/i.test(err.message) ? err.message : 'must be an http:// or https:// URL';
    throw new ConfigError(`Invalid configuration: SPEND_AUTH_BASE_URL: ${why}`);
  }
  const apiKey = env.SPEND_AUTH_API_KEY!.trim();
  if (!API_KEY_SHAPE.test(apiKey)) {
    throw new ConfigError('Invalid configuration: SPEND_AUTH_API_KEY: must be an API key starting with gc_test_ or gc_live_');
  }
  const signing = loadMcpSigningConfig(env);
  const x402 = loadMcpX402Config(env);
  return { baseUrl, apiKey, ...(signing ? { signing } : {}), ...(x402 ? { x402 } : {}) };
}

/** The signing variables (DECISIONS §19): the key absent → unsigned; the agent without the key is a mistake. Never echoes the key. */
function loadMcpSigningConfig(env: NodeJS.ProcessEnv): McpSigningConfig | undefined {
  const raw = env.SPEND_AUTH_SIGNING_KEY?.trim();
  const agent = env.SPEND_AUTH_SIGNATURE_AGENT?.trim();
  if (!raw) {
    if (agent) throw new ConfigError('SPEND_AUTH_SIGNATURE_AGENT is set, but SPEND_AUTH_SIGNING_KEY is not: only a signed request names a signature agent.');
    return undefined;
  }
  let privateJwk: unknown;
  try {
    privateJwk = JSON.parse(raw);
  } catch {
    throw new ConfigError('Invalid configuration: SPEND_AUTH_SIGNING_KEY: must be a private JWK written as JSON (Ed25519 or P-256)');
  }
  try {
    parseSigningKey(privateJwk);
  } catch (err) {
    throw new ConfigError(`Invalid configuration: SPEND_AUTH_SIGNING_KEY: ${(err as Error).message}`);
  }
  let signatureAgent: string | undefined;
  if (agent) {
    try {
      signatureAgent = parseSignatureAgent(agent);
    } catch (err) {
      throw new ConfigError(`Invalid configuration: SPEND_AUTH_SIGNATURE_AGENT: ${(err as Error).message}`);
    }
  }
  return { privateJwk: privateJwk as Record<string, unknown>, ...(signatureAgent ? { signatureAgent } : {}) };
}

/** The x402 tool's variables: all absent → off; the others without the key are a mistake, not ignored. Never echoes the key. */
function loadMcpX402Config(env: NodeJS.ProcessEnv): McpX402Config | undefined {
  const key = env.SPEND_AUTH_X402_PRIVATE_KEY?.trim();
  if (!key) {
    const stray = MCP_X402_ENV_VARS.filter((name) => name !== 'SPEND_AUTH_X402_PRIVATE_KEY' && env[name]);
    if (stray.length) throw new ConfigError(`${stray.join(' and ')} ${stray.length > 1 ? 'are' : 'is'} set, but SPEND_AUTH_X402_PRIVATE_KEY is not: the fetch_paid_resource tool needs it.`);
    return undefined;
  }
  if (!/^0x[0-9a-fA-F]{64}$/.test(key)) throw new ConfigError('Invalid configuration: SPEND_AUTH_X402_PRIVATE_KEY: must be an EVM private key, 0x followed by 64 hex digits');
  const agentId = env.SPEND_AUTH_X402_AGENT_ID?.trim() || undefined;
  if (agentId !== undefined && !/^agt_[0-9A-Za-z]{1,64}$/.test(agentId)) throw new ConfigError('Invalid configuration: SPEND_AUTH_X402_AGENT_ID: must be an agent id (agt_…)');
  const wait = env.SPEND_AUTH_X402_MAX_WAIT_SECONDS?.trim() || '0';
  if (!/^[0-9]{1,3}$/.test(wait) || Number(wait) > MCP_X402_MAX_WAIT_SECONDS) {
    throw new ConfigError(`Invalid configuration: SPEND_AUTH_X402_MAX_WAIT_SECONDS: must be a whole number of seconds from 0 to ${MCP_X402_MAX_WAIT_SECONDS}`);
  }
  const allow = bool.safeParse(env.SPEND_AUTH_X402_ALLOW_PRIVATE_URLS?.trim() || 'false');
  if (!allow.success) throw new ConfigError('Invalid configuration: SPEND_AUTH_X402_ALLOW_PRIVATE_URLS: must be true, false, 1 or 0');
  return { privateKey: key as `0x${string}`, ...(agentId ? { agentId } : {}), maxWaitSeconds: Number(wait), allowPrivateUrls: allow.data };
}
