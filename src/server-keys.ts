import { randomBytes } from 'node:crypto';
import { ConfigError, type Config } from './kernel/config.js';
import { devKeyFile } from './kernel/dev-key-file.js';

/** The server's symmetric secrets: only this service can compute or read what they protect. */
export interface ServerKeys {
  /** Encrypts stored idempotent responses (AES-256-GCM). */
  idempotency: Buffer;
  /** Keys the audit chain (HMAC-SHA-256). */
  auditHmac: Buffer;
}

const DEV_FILES = { idempotency: 'idempotency-encryption-key', auditHmac: 'audit-hmac-key' } as const;
const DEV_KEY_BYTES = 32;

/**
 * IDEMPOTENCY_ENCRYPTION_KEY and AUDIT_HMAC_KEY when given; otherwise, outside production, keys
 * generated once and kept under DATA_DIR (as the development signing key is), so stored responses
 * and the audit chain survive restarts.
 */
export async function loadServerKeys(config: Pick<Config, 'idempotencyEncryptionKey' | 'auditHmacKey' | 'dataDir' | 'nodeEnv'>): Promise<ServerKeys> {
  const given = { idempotency: config.idempotencyEncryptionKey, auditHmac: config.auditHmacKey };
  const names = { idempotency: 'IDEMPOTENCY_ENCRYPTION_KEY', auditHmac: 'AUDIT_HMAC_KEY' } as const;
  const missing = (Object.keys(given) as Array<keyof ServerKeys>).filter((k) => !given[k]);
  if (missing.length && config.nodeEnv === 'production') {
    throw new ConfigError(`${missing.map((k) => names[k]).join(' and ')}: required when NODE_ENV=production (a development key is never used in production)`);
  }
  const load = async (k: keyof ServerKeys) =>
    given[k] ?? Buffer.from(await devKeyFile(config.dataDir, DEV_FILES[k], () => randomBytes(DEV_KEY_BYTES).toString('hex')), 'hex');
  return { idempotency: await load('idempotency'), auditHmac: await load('auditHmac') };
}
