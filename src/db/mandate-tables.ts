import type { ColumnType } from 'kysely';

/** The tables of AP2 mandates (migration 027; DECISIONS §20). */

/** Where a decision made by a mandate presentation came from (`decisions.mandate`). */
export interface MandateRef {
  id: string;
  /** base64url SHA-256 of the closed mandate's JWT. */
  reference: string;
  transaction_id: string;
}

export type MandateStatus = 'active' | 'used' | 'revoked';

export interface MandatesTable {
  id: string;
  account_id: string;
  livemode: boolean;
  agent_id: string;
  /** The P-256 agent key (§19) bound as the mandate's `cnf`. */
  agent_key_id: string;
  /** Stored states; an active mandate past `expires_at` reads as `expired`. */
  status: MandateStatus;
  /** The SD-JWT as issued, every disclosure included, ending `~`. */
  credential: string;
  /** The disclosed open mandate, resolved (no digests). Written as JSON text. */
  open_mandate: ColumnType<Record<string, unknown>, string, never>;
  /** The mandate signing key's kid that signed it. */
  signing_kid: string;
  /** The policy's currency at issuance: the amount range's and the budget's. */
  currency: string;
  category: string | null;
  /** No recurrence: used after its first approval. */
  single_use: boolean;
  /** Copies of the signed recurrence and budget, for SQL and the ledger check. */
  max_occurrences: number | null;
  budget_minor: ColumnType<number | null, number | null, never>;
  uses: ColumnType<number, number | undefined, number>;
  budget_used: ColumnType<number, number | undefined, number>;
  last_used_at: Date | null;
  expires_at: Date;
  revoked_at: Date | null;
  created_at: Date;
  metadata: ColumnType<Record<string, unknown>, string | undefined, never>;
}

/** A closed mandate decided once: its first answer, sealed (it may hold a `gca_` token). */
export interface MandatePresentationsTable {
  reference: string;
  /** base64url SHA-256 of the closed JWT's `header.payload`: the same signed bytes under any signature encoding. */
  closed_digest: string;
  account_id: string;
  livemode: boolean;
  mandate_id: string;
  transaction_id: string;
  decision_id: string;
  outcome: 'approved' | 'denied';
  response_sealed: string;
  created_at: Date;
}
