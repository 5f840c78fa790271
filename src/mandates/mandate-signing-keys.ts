/**
 * MANDATE_SIGNING_KEY (DECISIONS §20): the P-256 key that signs the mandates we issue and the
 * receipts we answer with (ES256, as AP2's SDK verifies), published in the JWKS beside the `gca_`
 * token keys. A JWK Set rotates: the first key signs, all verify. Outside production a key is
 * generated once under DATA_DIR; production refuses to start without one (as TOKEN_SIGNING_KEY).
 */
import type { JWK } from 'jose';
import type { MandateKeys } from './mandate-deps.js';

export async function loadMandateKeys(_opts: { mandateSigningKey: string | undefined; dataDir: string; nodeEnv: string }): Promise<MandateKeys> {
  throw new Error('loadMandateKeys: not built yet');
}

/** Mandate keys from private P-256 JWKs (the first signs). */
export function mandateKeysFromJwks(_privateJwks: JWK[]): MandateKeys {
  throw new Error('mandateKeysFromJwks: not built yet');
}

/** A new private P-256 JWK with its thumbprint as `kid`. */
export async function generateMandatePrivateJwk(): Promise<JWK> {
  throw new Error('generateMandatePrivateJwk: not built yet');
}
