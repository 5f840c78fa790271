import { useAuditHmacKey } from '../../src/kernel/audit-key.js';
import { useEncryptionKey } from '../../src/kernel/encryption-key.js';

/**
 * One set of server keys for every test process and every `spend-auth` process a test starts: on a
 * shared PostgreSQL database any process's audit sealer may seal another test file's records.
 */
export const TEST_IDEMPOTENCY_KEY = Buffer.alloc(32, 0x5a);
export const TEST_AUDIT_HMAC_KEY = Buffer.alloc(32, 0xa5);

/** The environment a spawned `spend-auth` process needs to agree with this one. */
export const TEST_SERVER_KEYS_ENV = {
  IDEMPOTENCY_ENCRYPTION_KEY: TEST_IDEMPOTENCY_KEY.toString('hex'),
  AUDIT_HMAC_KEY: TEST_AUDIT_HMAC_KEY.toString('hex'),
};

/** The process-wide keys, as `spend-auth` sets them at start: the audit key, and the encryption key webhook deliveries and migration 025 read. */
export function useTestAuditKey(): void {
  useAuditHmacKey(TEST_AUDIT_HMAC_KEY);
  useEncryptionKey(TEST_IDEMPOTENCY_KEY);
}
