/**
 * The server's encryption key (IDEMPOTENCY_ENCRYPTION_KEY), set once per process before anything
 * reads a sealed webhook secret, as the audit key is (audit-key.ts): the worker's deliveries open
 * endpoint secrets with a key derived from it, and migration 025 seals the secrets written before
 * it. The API is handed the same key through its dependencies.
 */
let serverKey: Buffer | undefined;

export function useEncryptionKey(key: Buffer): void {
  serverKey = key;
}

export function encryptionKey(): Buffer {
  if (!serverKey) throw new Error('The encryption key (IDEMPOTENCY_ENCRYPTION_KEY) was not loaded before a sealed secret was used.');
  return serverKey;
}

/** The loaded key, or undefined before one is loaded (a migration that may run without it). */
export const loadedEncryptionKey = (): Buffer | undefined => serverKey;
