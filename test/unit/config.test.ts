import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, test } from 'vitest';
import { CONFIG_VARIABLES, loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/kernel/config.js';

/** Throws unless loadConfig rejects env with a ConfigError; returns that error. */
function configError(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('where dev keeps the Temporal CLI it fetches', () => {
  test.each([
    [{ HOME: '/home/ann' }, '/home/ann/.cache/spend-auth/temporal-cli'],
    [{ HOME: '/home/ann', XDG_CACHE_HOME: '/var/cache/ann' }, '/var/cache/ann/spend-auth/temporal-cli'],
  ])('%o → %s', (env, dir) => {
    expect(loadConfig(env).temporal.cliCacheDir).toBe(dir);
  });
});

describe('loadConfig defaults', () => {
  it('fills every default from an empty environment', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.host).toBeUndefined();
    expect(config.databaseUrl).toBeUndefined();
    expect(config.dataDir).toBe(path.resolve('./.data'));
    expect(path.isAbsolute(config.dataDir)).toBe(true);
    expect(config.temporal).toEqual({
      address: 'localhost:7233',
      namespace: 'default',
      taskQueue: 'spend-authorization',
      addressGiven: false,
      cliPath: undefined,
      searchPath: undefined,
      // No HOME in the environment: the user's home from the system (process.env is not read).
      cliCacheDir: path.join(os.userInfo().homedir, '.cache', 'spend-auth', 'temporal-cli'),
      allowSignalApprovals: 'test',
      tls: undefined,
      apiKey: undefined,
      reconcileIntervalSeconds: 300,
    });
    expect(config.tokenSigningKey).toBeUndefined();
    expect(config.publicBaseUrl).toBeUndefined();
    expect(config.webhookAllowPrivateUrls).toBe(false);
    expect(config.billingMeter).toEqual({ url: undefined, apiKey: undefined });
    expect(config.logLevel).toBe('info');
    expect(config.logFormat).toBeUndefined();
    expect(config.nodeEnv).toBe('development');
    expect(config.metricsPort).toBe(9464);
    expect(config.apiWorkers).toBe(1);
    expect(config.databasePoolSize).toBeUndefined();
    expect(config.unauthenticatedRateLimit).toBe(100);
    expect(config.temporalSdkMetricsPort).toBeUndefined();
    expect(config.otlpEndpoint).toBeUndefined();
  });

  it('does not read process.env when an environment is given', () => {
    const saved = process.env.PORT;
    process.env.PORT = '4321';
    try {
      expect(loadConfig({}).port).toBe(3000);
    } finally {
      if (saved === undefined) delete process.env.PORT;
      else process.env.PORT = saved;
    }
  });

  it('treats empty strings as unset', () => {
    const empty = Object.fromEntries(
      [
        'PORT',
        'HOST',
        'DATABASE_URL',
        'DATA_DIR',
        'TEMPORAL_ADDRESS',
        'TEMPORAL_NAMESPACE',
        'TEMPORAL_TASK_QUEUE',
        'TOKEN_SIGNING_KEY',
        'PUBLIC_BASE_URL',
        'WEBHOOK_ALLOW_PRIVATE_URLS',
        'BILLING_METER_URL',
        'BILLING_METER_API_KEY',
        'LOG_LEVEL',
        'LOG_FORMAT',
        'NODE_ENV',
        'METRICS_PORT',
        'TEMPORAL_SDK_METRICS_PORT',
        'OTEL_EXPORTER_OTLP_ENDPOINT',
        'IDEMPOTENCY_ENCRYPTION_KEY',
        'AUDIT_HMAC_KEY',
        'AUDIT_CHECKPOINT_WEBHOOKS',
      ].map((k) => [k, '']),
    );
    expect(loadConfig(empty)).toEqual(loadConfig({}));
  });

  it('ignores variables it does not know', () => {
    expect(loadConfig({ SOMETHING_ELSE: 'x', HOME: '/root' })).toEqual(loadConfig({}));
  });
});

describe('loadConfig with values', () => {
  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '10.0.0.5',
      DATABASE_URL: 'postgres://u:p@db.internal:5432/spend',
      DATA_DIR: '/var/lib/spend-auth',
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_NAMESPACE: 'payments',
      TEMPORAL_TASK_QUEUE: 'q1',
      TEMPORAL_CLI_PATH: '/opt/temporal/bin/temporal',
      TEMPORAL_ALLOW_SIGNAL_APPROVALS: 'false',
      TEMPORAL_TLS_CERT: '/etc/temporal/client.pem',
      TEMPORAL_TLS_KEY: '/etc/temporal/client.key',
      TEMPORAL_TLS_CA: '/etc/temporal/ca.pem',
      TEMPORAL_TLS_SERVER_NAME: 'payments.tmprl.cloud',
      TEMPORAL_API_KEY: 'tcak_123',
      RECONCILE_INTERVAL_SECONDS: '60',
      TOKEN_SIGNING_KEY: '{"kty":"OKP"}',
      PUBLIC_BASE_URL: 'https://api.example.com/v1',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      BILLING_METER_URL: 'https://meter.example.com/events',
      BILLING_METER_API_KEY: 'mk_123',
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'pretty',
      NODE_ENV: 'production',
      METRICS_PORT: '9100',
      DATABASE_POOL_SIZE: '12',
      UNAUTHENTICATED_RATE_LIMIT: '500',
      TEMPORAL_SDK_METRICS_PORT: '9465',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318',
      IDEMPOTENCY_ENCRYPTION_KEY: '11'.repeat(32),
      AUDIT_HMAC_KEY: Buffer.alloc(48, 2).toString('base64'),
      RAIL_DECISION_DEADLINE_MS: '1200',
      MAX_QUEUE_MS: '750',
      AUDIT_CHECKPOINT_WEBHOOKS: 'true',
      AUTHORIZE_BATCH_SIZE: '16',
      AUTHORIZE_BATCH_LINGER_MS: '1',
      AUTHORIZE_BATCH_IN_FLIGHT: '4',
      FAILPOINT_KILL_AFTER_BATCH_COMMIT: '3',
    });
    expect(config).toEqual({
      port: 8080,
      host: '10.0.0.5',
      databaseUrl: 'postgres://u:p@db.internal:5432/spend',
      dataDir: '/var/lib/spend-auth',
      temporal: { address: 'temporal:7233', namespace: 'payments', taskQueue: 'q1', addressGiven: true, cliPath: '/opt/temporal/bin/temporal', searchPath: undefined, cliCacheDir: path.join(os.userInfo().homedir, '.cache', 'spend-auth', 'temporal-cli'), allowSignalApprovals: 'off',
        tls: { cert: '/etc/temporal/client.pem', key: '/etc/temporal/client.key', ca: '/etc/temporal/ca.pem', serverName: 'payments.tmprl.cloud' },
        apiKey: 'tcak_123',
        reconcileIntervalSeconds: 60,
      },
      tokenSigningKey: '{"kty":"OKP"}',
      publicBaseUrl: 'https://api.example.com/v1',
      webhookAllowPrivateUrls: true,
      billingMeter: { url: 'https://meter.example.com/events', apiKey: 'mk_123' },
      logLevel: 'debug',
      logFormat: 'pretty',
      nodeEnv: 'production',
      metricsPort: 9100,
      apiWorkers: 1,
      databasePoolSize: 12,
      unauthenticatedRateLimit: 500,
      temporalSdkMetricsPort: 9465,
      otlpEndpoint: 'http://otel-collector:4318',
      idempotencyEncryptionKey: Buffer.alloc(32, 0x11),
      auditHmacKey: Buffer.alloc(48, 2),
      railDecisionDeadlineMs: 1_200,
      maxQueueMs: 750,
      auditCheckpointWebhooks: true,
      authorizeBatch: { size: 16, lingerMs: 1, inFlight: 4 },
      failpointKillAfterBatchCommit: 3,
    });
  });

  it('groups decisions by default: batches of 64, closed on the next event-loop turn, two in flight', () => {
    expect(loadConfig({}).authorizeBatch).toEqual({ size: 64, lingerMs: 0, inFlight: 2 });
    expect(loadConfig({}).failpointKillAfterBatchCommit).toBeUndefined();
  });

  it.each([
    ['AUTHORIZE_BATCH_SIZE', '0'],
    ['AUTHORIZE_BATCH_SIZE', '257'],
    ['AUTHORIZE_BATCH_LINGER_MS', '2'],
    ['AUTHORIZE_BATCH_LINGER_MS', '0.5'],
    ['AUTHORIZE_BATCH_IN_FLIGHT', '0'],
    ['FAILPOINT_KILL_AFTER_BATCH_COMMIT', '0'],
  ])('refuses %s=%s, naming it', (name, value) => {
    expect(configError({ [name]: value }).message).toContain(name);
  });

  it.each([
    ['IDEMPOTENCY_ENCRYPTION_KEY', 'aa'.repeat(31)],
    ['IDEMPOTENCY_ENCRYPTION_KEY', 'aa'.repeat(33)],
    ['AUDIT_HMAC_KEY', 'not a key!'],
    ['AUDIT_HMAC_KEY', 'bb'.repeat(16)],
  ])('refuses a %s of the wrong length or encoding, naming it without echoing the value', (name, value) => {
    const err = configError({ [name]: value });
    expect(err.message).toContain(name);
    expect(err.message).not.toContain(value);
  });

  it.each(['2500', '0', '1.5'])('refuses a RAIL_DECISION_DEADLINE_MS of %s (100–1900 ms: Stripe waits 2 s)', (value) => {
    expect(configError({ RAIL_DECISION_DEADLINE_MS: value }).message).toContain('RAIL_DECISION_DEADLINE_MS');
  });

  it('resolves a relative DATA_DIR against the working directory', () => {
    expect(loadConfig({ DATA_DIR: 'some/dir' }).dataDir).toBe(path.resolve('some/dir'));
  });

  it('accepts postgresql:// as well as postgres://', () => {
    expect(loadConfig({ DATABASE_URL: 'postgresql://localhost/x' }).databaseUrl).toBe('postgresql://localhost/x');
  });

  test.each([
    ['true', true],
    ['1', true],
    ['false', false],
    ['0', false],
  ])('WEBHOOK_ALLOW_PRIVATE_URLS=%s is %s', (value, expected) => {
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_URLS: value }).webhookAllowPrivateUrls).toBe(expected);
  });

  test.each([
    ['false', 'off'],
    ['0', 'off'],
    ['true', 'test'],
    ['1', 'test'],
    ['test', 'test'],
    ['live', 'live'],
  ])('TEMPORAL_ALLOW_SIGNAL_APPROVALS=%s is %s (approvals straight to the engine: off, test-mode holds only, live too)', (value, expected) => {
    expect(loadConfig({ TEMPORAL_ALLOW_SIGNAL_APPROVALS: value }).temporal.allowSignalApprovals).toBe(expected);
  });

  test.each(['0', '1', '65535'])('PORT=%s is accepted', (value) => {
    expect(loadConfig({ PORT: value }).port).toBe(Number(value));
  });

  test.each(['development', 'production', 'test'])('NODE_ENV=%s is accepted', (value) => {
    expect(loadConfig({ NODE_ENV: value }).nodeEnv).toBe(value);
  });
});

describe('loadConfig rejects bad values with a ConfigError naming the variable', () => {
  test.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '3000.5'],
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'localhost:5432'],
    ['WEBHOOK_ALLOW_PRIVATE_URLS', 'maybe'],
    ['WEBHOOK_ALLOW_PRIVATE_URLS', 'yes'],
    ['TEMPORAL_ALLOW_SIGNAL_APPROVALS', 'yes'],
    ['TEMPORAL_ALLOW_SIGNAL_APPROVALS', 'LIVE'],
    ['LOG_LEVEL', 'loud'],
    ['LOG_FORMAT', 'text'],
    ['NODE_ENV', 'staging'],
    ['PUBLIC_BASE_URL', 'not a url'],
    ['BILLING_METER_URL', 'x'],
    ['METRICS_PORT', 'nine'],
    ['METRICS_PORT', '65536'],
    ['TEMPORAL_SDK_METRICS_PORT', '0'],
    ['TEMPORAL_SDK_METRICS_PORT', 'nine'],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'collector:4318'],
    ['UNAUTHENTICATED_RATE_LIMIT', '0'],
    ['UNAUTHENTICATED_RATE_LIMIT', 'many'],
    ['DATABASE_POOL_SIZE', '0'],
    ['DATABASE_POOL_SIZE', '2.5'],
    ['DATABASE_POOL_SIZE', 'lots'],
  ])('%s=%s', (name, value) => {
    const err = configError({ [name]: value });
    expect(err.name).toBe('ConfigError');
    expect(err.message).toContain(name);
  });

  it('names every bad variable at once', () => {
    const err = configError({ PORT: 'abc', LOG_LEVEL: 'loud', NODE_ENV: 'staging' });
    expect(err.message).toContain('PORT');
    expect(err.message).toContain('LOG_LEVEL');
    expect(err.message).toContain('NODE_ENV');
  });

  it('does not echo an unrelated variable', () => {
    const err = configError({ PORT: 'abc', TOKEN_SIGNING_KEY: 'secret-material' });
    expect(err.message).not.toContain('secret-material');
    expect(err.message).not.toContain('TOKEN_SIGNING_KEY');
  });
});

describe('CONFIG_VARIABLES', () => {
  /** A valid value for each variable, unlike its default; typed so a new variable must be added here. */
  const SAMPLE: Record<(typeof CONFIG_VARIABLES)[number], string> = {
    PORT: '8080',
    HOST: '0.0.0.0',
    DATABASE_URL: 'postgres://db/x',
    DATA_DIR: '/srv/data',
    TEMPORAL_ADDRESS: 'temporal:7233',
    TEMPORAL_NAMESPACE: 'payments',
    TEMPORAL_TASK_QUEUE: 'q1',
    TEMPORAL_CLI_PATH: '/opt/temporal',
    TEMPORAL_ALLOW_SIGNAL_APPROVALS: 'false',
    TEMPORAL_TLS_CERT: '/etc/temporal/client.pem',
    TEMPORAL_TLS_KEY: '/etc/temporal/client.key',
    TEMPORAL_TLS_CA: '/etc/temporal/ca.pem',
    TEMPORAL_TLS_SERVER_NAME: 'payments.tmprl.cloud',
    TEMPORAL_API_KEY: 'tcak_123',
    RECONCILE_INTERVAL_SECONDS: '60',
    TOKEN_SIGNING_KEY: '{}',
    MANDATE_SIGNING_KEY: '{"kty":"EC"}',
    PUBLIC_BASE_URL: 'https://api.example.com',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    BILLING_METER_URL: 'https://meter.example.com',
    BILLING_METER_API_KEY: 'mk',
    LOG_LEVEL: 'debug',
    LOG_FORMAT: 'json',
    NODE_ENV: 'test',
    METRICS_PORT: '9100',
    TEMPORAL_SDK_METRICS_PORT: '9465',
    API_WORKERS: '2',
    DATABASE_POOL_SIZE: '3',
    UNAUTHENTICATED_RATE_LIMIT: '500',
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318',
    IDEMPOTENCY_ENCRYPTION_KEY: 'cc'.repeat(32),
    AUDIT_HMAC_KEY: 'dd'.repeat(32),
    RAIL_DECISION_DEADLINE_MS: '1200',
    MAX_QUEUE_MS: '750',
    AUDIT_CHECKPOINT_WEBHOOKS: 'true',
    AUTHORIZE_BATCH_SIZE: '8',
    AUTHORIZE_BATCH_LINGER_MS: '1',
    AUTHORIZE_BATCH_IN_FLIGHT: '3',
    FAILPOINT_KILL_AFTER_BATCH_COMMIT: '5',
  };

  /** Variables valid only in pairs: each is set with its companion, against the companion alone. */
  const COMPANION: Partial<Record<(typeof CONFIG_VARIABLES)[number], Record<string, string>>> = {
    TEMPORAL_TLS_CERT: { TEMPORAL_TLS_CA: '/etc/temporal/ca.pem', TEMPORAL_TLS_KEY: '/etc/temporal/client.key' },
    TEMPORAL_TLS_KEY: { TEMPORAL_TLS_CERT: '/etc/temporal/client.pem' },
  };

  test.each([...CONFIG_VARIABLES])('%s is read: setting it changes the configuration', (name) => {
    const companion = COMPANION[name] ?? {};
    if (name === 'TEMPORAL_TLS_KEY') {
      // The key alone with its certificate is the pair itself: compare with neither.
      expect(loadConfig({ ...companion, [name]: SAMPLE[name] })).not.toEqual(loadConfig({}));
      return;
    }
    expect(loadConfig({ ...companion, [name]: SAMPLE[name] })).not.toEqual(loadConfig(name === 'TEMPORAL_TLS_CERT' ? { TEMPORAL_TLS_CA: '/etc/temporal/ca.pem' } : companion));
  });

  test('TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together: one without the other stops the process', () => {
    expect(() => loadConfig({ TEMPORAL_TLS_CERT: '/c.pem' })).toThrow(/TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY/);
    expect(() => loadConfig({ TEMPORAL_TLS_KEY: '/c.key' })).toThrow(/TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY/);
  });
});
