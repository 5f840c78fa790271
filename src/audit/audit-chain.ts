import { sha256Hex } from '../ids.js';

export const GENESIS_HASH = '0'.repeat(64);

/** The fields a record's hash covers, in a fixed order. */
export interface ChainedFields {
  id: string;
  account_id: string;
  livemode: boolean;
  sequence: number;
  type: string;
  actor_type: 'api_key' | 'reviewer' | 'system';
  actor_id: string | null;
  agent_id: string | null;
  decision_id: string | null;
  decision: string | null;
  amount: number | null;
  currency: string | null;
  vendor: string | null;
  category: string | null;
  policy_id: string | null;
  reason: string | null;
  metadata: Record<string, unknown>;
  created_at: Date;
}

/** JSON with object keys sorted at every depth, so equal values always serialize equally. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value as Record<string, unknown>)
    .sort()
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

/** hash = sha256(prev_hash || canonical record) */
export function chainHash(prevHash: string, record: ChainedFields): string {
  const canonical = canonicalJson({
    id: record.id,
    account_id: record.account_id,
    livemode: record.livemode,
    sequence: Number(record.sequence),
    type: record.type,
    actor_type: record.actor_type,
    actor_id: record.actor_id,
    agent_id: record.agent_id,
    decision_id: record.decision_id,
    decision: record.decision,
    amount: record.amount === null ? null : Number(record.amount),
    currency: record.currency,
    vendor: record.vendor,
    category: record.category,
    policy_id: record.policy_id,
    reason: record.reason,
    metadata: record.metadata,
    created_at: record.created_at.toISOString(),
  });
  return sha256Hex(prevHash + canonical);
}

export interface ChainCheck {
  valid: boolean;
  records: number;
  head_hash: string;
  /** Sequence of the first record that does not verify, when invalid. */
  first_invalid_sequence: number | null;
}

/** Incremental verifier: feed records in sequence order. */
export class ChainVerifier {
  private prev = GENESIS_HASH;
  private expectedSequence = 1;
  private count = 0;
  private firstInvalid: number | null = null;

  push(record: Omit<ChainedFields, 'sequence'> & { sequence: number | null; prev_hash: string | null; hash: string | null }): void {
    this.count += 1;
    if (this.firstInvalid !== null) return;
    const ok =
      Number(record.sequence) === this.expectedSequence &&
      record.prev_hash === this.prev &&
      record.hash !== null &&
      chainHash(this.prev, { ...record, sequence: Number(record.sequence) }) === record.hash;
    if (!ok) this.firstInvalid = Number(record.sequence);
    this.prev = record.hash ?? this.prev;
    this.expectedSequence += 1;
  }

  /** `storedHead` is the chain head the database recorded at the last append. */
  result(storedHead: { sequence: number; head_hash: string } | undefined): ChainCheck {
    let valid = this.firstInvalid === null;
    if (valid && storedHead) {
      valid = storedHead.sequence === this.count && storedHead.head_hash === this.prev;
    } else if (valid && !storedHead) {
      valid = this.count === 0;
    }
    return {
      valid,
      records: this.count,
      head_hash: this.prev,
      first_invalid_sequence: valid ? null : (this.firstInvalid ?? this.count),
    };
  }
}
