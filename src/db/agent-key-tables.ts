import type { ColumnType } from 'kysely';
import type { AgentKeyAlg } from '../kernel/caller.js';

/** The tables of agents that sign their requests (migration 026; DECISIONS §19). */

/** A key directory an agent key is tied to, per account, mode and origin: its last good listing. */
export interface AgentKeyDirectoriesTable {
  id: string;
  account_id: string;
  livemode: boolean;
  /** `https://host[:port]`, nothing else. */
  origin: string;
  /** Thumbprints the last successful fetch listed (entries whose `kid` was not their thumbprint skipped). */
  thumbprints: ColumnType<string[], string[], string[]>;
  fetched_at: Date;
  /** When the listing is fetched again: fetched_at + max-age, clamped. */
  expires_at: Date;
  last_attempt_at: Date | null;
  /** The rule the last failed fetch broke, never an address. */
  last_error: string | null;
  created_at: Date;
}

export interface AgentKeysTable {
  id: string;
  account_id: string;
  livemode: boolean;
  agent_id: string;
  name: string | null;
  alg: AgentKeyAlg;
  /** Exactly {kty, crv, x} (Ed25519) or {kty, crv, x, y} (P-256). Written as JSON text. */
  jwk: ColumnType<Record<string, string>, string, never>;
  /** RFC 7638 SHA-256 thumbprint, base64url: the signature's `keyid`. */
  thumbprint: string;
  directory_id: string | null;
  status: 'active' | 'revoked';
  last_used_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}

/** Nonces seen, per thumbprint, kept until the signature's `expires` + 30 s. */
export interface SignatureNoncesTable {
  thumbprint: string;
  nonce: string;
  agent_key_id: string;
  expires_at: Date;
}
