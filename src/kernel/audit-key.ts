/**
 * The server's audit key, set once per process before anything writes or verifies audit records.
 * Process-wide on purpose: records are written inside the transactions of a dozen services and
 * workflow activities, and each must MAC what it writes with the same key.
 */
let serverKey: Buffer | undefined;

export function useAuditHmacKey(key: Buffer): void {
  serverKey = key;
}

export function auditHmacKey(): Buffer {
  if (!serverKey) throw new Error('The audit HMAC key (AUDIT_HMAC_KEY) was not loaded before the audit log was used.');
  return serverKey;
}

export const isAuditHmacKeyLoaded = (): boolean => serverKey !== undefined;

/** The loaded key, or undefined before one is loaded (a migration that may run without it). */
export const loadedAuditHmacKey = (): Buffer | undefined => serverKey;
