import { derivedCipher, type ResponseCipher } from '../idempotency/response-cipher.js';

/**
 * Webhook endpoint secrets are stored sealed exactly as rail connections' signing secrets are
 * (rail-connections/signing-secret.ts): AES-256-GCM under a key derived (HKDF-SHA-256, a label of
 * their own) from the server's encryption key, the endpoint as authenticated data, so a sealed
 * secret copied onto another endpoint does not open. The secret before a rotation is kept sealed
 * the same way, with the same scope. Migration 025 seals the secrets written in clear before it
 * with a frozen copy of this: change neither alone.
 */
export const ENDPOINT_SECRET_LABEL = 'spend-auth webhook endpoint secret';

export function endpointSecretCipher(serverKey: Buffer): ResponseCipher {
  return derivedCipher(serverKey, ENDPOINT_SECRET_LABEL);
}

/** The authenticated data a sealed secret is bound to: its own endpoint. */
export const endpointSecretScope = (row: { id: string; account_id: string }): string => `webhook_endpoint:${row.account_id}:${row.id}`;
