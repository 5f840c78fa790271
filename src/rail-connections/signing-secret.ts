import { derivedCipher, type ResponseCipher } from '../idempotency/response-cipher.js';

/**
 * Signing secrets of rail connections are stored sealed with AES-256-GCM under a key derived
 * (HKDF-SHA-256) from the server's encryption key, with the connection id as authenticated data:
 * a sealed secret copied onto another connection does not open.
 */
export function signingSecretCipher(serverKey: Buffer): ResponseCipher {
  return derivedCipher(serverKey, 'spend-auth rail connection signing secret');
}
