import { derivedCipher, type ResponseCipher } from '../idempotency/response-cipher.js';

/**
 * Signing secrets of rail connections are stored sealed with AES-256-GCM under a key derived
 * (HKDF-SHA-256) from the server's encryption key, with the connection id as authenticated data:
 * a sealed secret copied onto another connection does not open.
 */
export function signingSecretCipher(serverKey: Buffer): ResponseCipher {
  return derivedCipher(serverKey, 'spend-auth rail connection signing secret');
}

/** The authenticated data a sealed secret is bound to: its own connection. */
export const secretScope = (row: { id: string; account_id: string }) => `rail_connection:${row.account_id}:${row.id}`;
