import { randomBase62, sha256Hex } from '../kernel/ids.js';

export const VAULT_TOKEN_PREFIX = 'dlt_';
export const VAULT_TOKEN_RANDOM_LENGTH = 40;
const VAULT_TOKEN_PATTERN = /^dlt_[0-9A-Za-z]{32,128}$/;

/** A fresh vault token: the raw value goes to the caller once; only its hash and prefix are kept. */
export function generateVaultToken(): { raw: string; hash: string; prefix: string } {
  const raw = `${VAULT_TOKEN_PREFIX}${randomBase62(VAULT_TOKEN_RANDOM_LENGTH)}`;
  return { raw, hash: hashVaultToken(raw), prefix: vaultTokenPrefix(raw) };
}

export const hashVaultToken = (raw: string): string => sha256Hex(raw);

/** Enough to recognise a token in a record, never enough to use it. */
export const vaultTokenPrefix = (raw: string): string => `${raw.slice(0, 8)}…${raw.slice(-4)}`;

export const isVaultTokenShaped = (raw: string): boolean => VAULT_TOKEN_PATTERN.test(raw);
