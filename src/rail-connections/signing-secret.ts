import { hkdfSync } from 'node:crypto';
import { responseCipher, type ResponseCipher } from '../idempotency/response-cipher.js';

/**
 * Signing secrets of rail connections are stored sealed with AES-256-GCM under a key derived
 * (HKDF-SHA-256) from the server's encryption key, with the connection id as authenticated data:
 * a sealed secret copied onto another connection does not open.
 */
export function signingSecretCipher(serverKey: Buffer): ResponseCipher {
  const key = Buffer.from(hkdfSync('sha256', serverKey, Buffer.alloc(0), 'spend-auth rail connection signing secret', 32));
  return responseCipher(key);
}
