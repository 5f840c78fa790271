import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, type Config } from './config.js';

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
 * The content of `file` under `dataDir`, written with `fresh()` on first use (mode 0600). When
 * another process creates it first, its content is used, so processes sharing DATA_DIR agree.
 */
export async function devKeyFile(dataDir: string, file: string, fresh: () => string | Promise<string>): Promise<string> {
  const full = path.join(dataDir, file);
  if (fs.existsSync(full)) return fs.readFileSync(full, 'utf8');
  const content = await fresh();
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    fs.writeFileSync(full, content, { mode: 0o600, flag: 'wx' });
    return content;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return fs.readFileSync(full, 'utf8');
  }
}

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
