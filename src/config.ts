import path from 'node:path';
import { z } from 'zod';
import { UNAUTHENTICATED_LIMIT_PER_MINUTE } from './ratelimit/limits.js';

/**
 * Pooled PostgreSQL connections of an API process (`serve`). Few: every connection is a server
 * process, and past a few per PostgreSQL core they add context switches and lock traffic, not
 * throughput (8 against 20 on a 2-core machine: 12% more decisions a second, 17% less PostgreSQL
 * CPU per decision).
 */
export const API_DATABASE_POOL_SIZE = 8;
/** `worker` and `dev` (and the CLI's commands): the worker's 18 activity slots each get a connection. */
export const DEFAULT_DATABASE_POOL_SIZE = 20;

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
  TEMPORAL_ALLOW_SIGNAL_APPROVALS: bool.default(true),
  TEMPORAL_TLS_CERT: z.string().min(1).optional(),
  TEMPORAL_TLS_KEY: z.string().min(1).optional(),
  TEMPORAL_TLS_CA: z.string().min(1).optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  RECONCILE_INTERVAL_SECONDS: z.coerce.number().int().min(10).max(86_400).default(300),
  TOKEN_SIGNING_KEY: z.string().min(1).optional(),
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
  /** The worker sends each day's signed audit checkpoint to the accounts' webhook endpoints. */
  AUDIT_CHECKPOINT_WEBHOOKS: bool.default(false),
});

/** Every environment variable the service reads; nothing else in the environment affects it. */
export const CONFIG_VARIABLES = Object.keys(envSchema.shape) as ReadonlyArray<keyof typeof envSchema.shape>;

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
    /** The process's PATH, where `dev` looks for a `temporal` binary. */
    searchPath: string | undefined;
    /** Whether operators may approve or deny holds by signal from the Temporal UI or CLI. */
    allowSignalApprovals: boolean;
    /** TLS to the engine (Temporal Cloud): client certificate and key for mTLS, a server CA and name; PEM text or file paths. Undefined: plain connection. */
    tls: { cert: string | undefined; key: string | undefined; ca: string | undefined; serverName: string | undefined } | undefined;
    /** Temporal Cloud API key (implies TLS). */
    apiKey: string | undefined;
    /** How often pending holds are compared with their workflows. */
    reconcileIntervalSeconds: number;
  };
  tokenSigningKey: string | undefined;
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
  /** Keyless requests per minute per client address (failed authentication, public endpoints). */
  unauthenticatedRateLimit: number;
  /** `worker` and `dev` export the Temporal SDK's Prometheus metrics on HOST:this port; undefined: not exported. */
  temporalSdkMetricsPort: number | undefined;
  /** OTLP/HTTP collector base address (spans go to `<endpoint>/v1/traces`); undefined: tracing off. */
  otlpEndpoint: string | undefined;
  /** Absent: a development key kept under DATA_DIR (refused in production); see server-keys.ts. */
  idempotencyEncryptionKey: Buffer | undefined;
  auditHmacKey: Buffer | undefined;
  /** The daily `audit.checkpoint` event to webhook endpoints (a Temporal Schedule the worker keeps). */
  auditCheckpointWebhooks: boolean;
}

/** Raised when the environment holds a bad value; the message names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** The only place that reads process.env. Empty strings count as unset. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
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
      allowSignalApprovals: e.TEMPORAL_ALLOW_SIGNAL_APPROVALS,
      tls:
        e.TEMPORAL_TLS_CERT || e.TEMPORAL_TLS_CA || e.TEMPORAL_TLS_SERVER_NAME
          ? { cert: e.TEMPORAL_TLS_CERT, key: e.TEMPORAL_TLS_KEY, ca: e.TEMPORAL_TLS_CA, serverName: e.TEMPORAL_TLS_SERVER_NAME }
          : undefined,
      apiKey: e.TEMPORAL_API_KEY,
      reconcileIntervalSeconds: e.RECONCILE_INTERVAL_SECONDS,
    },
    tokenSigningKey: e.TOKEN_SIGNING_KEY,
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
    auditCheckpointWebhooks: e.AUDIT_CHECKPOINT_WEBHOOKS,
  };
}

/** `spend-auth mcp` only: where the service is and which key the tool server calls it with. */
export interface McpConfig {
  /** The service's base address including `/v1`, without a trailing slash. */
  baseUrl: string;
  apiKey: string;
}

export const MCP_ENV_VARS = ['SPEND_AUTH_BASE_URL', 'SPEND_AUTH_API_KEY'] as const;
const API_KEY_SHAPE = /^gc_(test|live)_[0-9A-Za-z]{32,128}$/;

/**
 * The base address as SPEC §1 defines it (with `/v1`); a value without `/v1` gets it appended
 * (DECISIONS §12). `http://localhost:3000` → `http://localhost:3000/v1`.
 */
export function normalizeServiceBaseUrl(value: string): string {
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('must be an http:// or https:// URL');
  if (url.search || url.hash || url.username || url.password) throw new TypeError('must not carry credentials, a query or a fragment');
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path.endsWith('/v1') ? path : `${path}/v1`;
  return url.toString().replace(/\/+$/, '');
}

/** Reads and checks the MCP command's two variables; the message names every one at fault. */
export function loadMcpConfig(env: NodeJS.ProcessEnv = process.env): McpConfig {
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
  return { baseUrl, apiKey };
}
