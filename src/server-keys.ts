import { createHmac, randomBytes } from 'node:crypto';
import { chainHash } from './audit/audit-chain.js';
import { newestSealedLinks, storedFingerprints, storeFingerprints } from './audit/server-key-binding.repository.js';
import type { DbOrTrx } from './db/database.js';
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

/** The settings whose keys are bound to the database, by the key they name. */
export const BOUND_KEY_SETTINGS = { auditHmac: 'AUDIT_HMAC_KEY', idempotency: 'IDEMPOTENCY_ENCRYPTION_KEY' } as const satisfies Record<keyof ServerKeys, string>;

/** HMAC of a fixed label with the key: equal keys give equal fingerprints, and it reveals nothing of the key. */
export const keyFingerprint = (key: Buffer, setting: string): string =>
  createHmac('sha256', key).update(`spend-auth server key fingerprint\n${setting}`).digest('hex');

/** The one line a process started with another key stops with (exit code 78, as for any bad setting). */
function refusal(settings: string[], why: string): ConfigError {
  const names = settings.join(' and ');
  return new ConfigError(
    `${names}: ${why}; every process on this database (serve, worker, dev, migrate, accounts, usage) needs the same ${settings.length > 1 ? 'keys' : 'key'}: set ${names} to the deployment's ${settings.length > 1 ? 'values' : 'value'} (a key generated under DATA_DIR belongs to that directory)`,
  );
}

/**
 * Binds the server keys to the database (docs/security.md, "Keys bound to their database"). The
 * first process to run on it after migration 019 stores a fingerprint of each key; every later
 * process, whatever its DATA_DIR, must hold the same keys or it stops with one line naming the
 * setting. Before a first audit key is bound to a database that already has audit records, the key
 * must link most of the newest sealed records, so the key of another DATA_DIR is never the one
 * bound. Safe to call before migrating (it then only checks) and again after (it then stores).
 */
export async function bindServerKeys(db: DbOrTrx, keys: ServerKeys): Promise<void> {
  const wanted = new Map(
    (Object.keys(BOUND_KEY_SETTINGS) as Array<keyof ServerKeys>).map((k) => [BOUND_KEY_SETTINGS[k], keyFingerprint(keys[k], BOUND_KEY_SETTINGS[k])]),
  );
  const compare = (stored: Map<string, string>) => {
    const differing = [...wanted].filter(([setting, fp]) => stored.has(setting) && stored.get(setting) !== fp).map(([setting]) => setting);
    if (differing.length) throw refusal(differing, `not the ${differing.length > 1 ? 'keys' : 'key'} this database was first used with (the stored fingerprint differs)`);
  };
  const stored = await storedFingerprints(db);
  compare(stored ?? new Map());
  if (!stored?.has(BOUND_KEY_SETTINGS.auditHmac)) {
    const links = await newestSealedLinks(db);
    const linked = links.filter((r) => r.hash === chainHash(keys.auditHmac, r.prev_hash, r.sequence, r.mac)).length;
    if (links.length > 0 && linked * 2 < links.length) {
      throw refusal([BOUND_KEY_SETTINGS.auditHmac], `not the key that sealed this database's audit records (it links ${linked} of the newest ${links.length})`);
    }
  }
  if (!stored) return;
  await storeFingerprints(db, [...wanted].filter(([setting]) => !stored.has(setting)).map(([setting, fingerprint]) => ({ setting, fingerprint })));
  // A process that started at the same moment with other keys may have stored first: its keys stay.
  compare((await storedFingerprints(db))!);
}
