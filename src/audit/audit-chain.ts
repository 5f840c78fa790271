import { createHmac } from 'node:crypto';

export const GENESIS_HASH = '0'.repeat(64);

/** The fields of a record the chain covers: its content (under `mac`) and its place (under `hash`). */
export interface ChainedFields {
  id: string;
  account_id: string;
  livemode: boolean;
  sequence: number;
  type: string;
  actor_type: 'api_key' | 'reviewer' | 'operator' | 'system';
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
  /** Thumbprint of the agent key that signed the request (DECISIONS §19); null or absent: unsigned. */
  signed_by?: string | null | undefined;
  /** A decision record's sealed terms (DecisionTerms); null or absent: none (every other record, and those written before). */
  terms?: object | null | undefined;
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

const hmacHex = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest('hex');

/** The content a record's MAC covers: every field the service writes, in a fixed order. */
function canonicalContent(record: Omit<ChainedFields, 'sequence'>): string {
  return canonicalJson({
    id: record.id,
    account_id: record.account_id,
    livemode: record.livemode,
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
    // Only when set: canonicalJson drops undefined, so a record without a signer (every record
    // written before signatures) keeps the MAC it was written with.
    signed_by: record.signed_by ?? undefined,
    // The same for a decision's terms: records written before them keep their MAC.
    terms: record.terms ?? undefined,
  });
}

/**
 * mac = HMAC(key, canonical record), computed by the service when it writes the record. The sealer
 * links whatever rows it finds but never computes this: a row written by anyone without the key
 * carries no valid MAC and fails verification, wherever the sealer puts it.
 */
export const recordMac = (key: Buffer, record: Omit<ChainedFields, 'sequence'>): string => hmacHex(key, `record\n${canonicalContent(record)}`);

/** hash = HMAC(key, prev_hash || sequence || mac): the record's place in its chain. */
export const chainHash = (key: Buffer, prevHash: string, sequence: number, mac: string | null): string =>
  hmacHex(key, `link\n${prevHash}\n${Number(sequence)}\n${mac ?? ''}`);

/**
 * head_mac = HMAC(key, account || mode || sequence || head_hash): only the sealer, holding the key,
 * can move a chain's head. A head moved back by hand (after deleting the records past it) carries
 * a MAC of another place and is found out (migration 018).
 */
export const headMac = (key: Buffer, head: { account_id: string; livemode: boolean; sequence: number; head_hash: string }): string =>
  hmacHex(key, `head\n${head.account_id}\n${head.livemode}\n${Number(head.sequence)}\n${head.head_hash}`);

export interface ChainCheck {
  valid: boolean;
  records: number;
  /** Hash of the last record that verifies (the genesis hash when none does). */
  head_hash: string;
  /** The first record that does not verify, when invalid (the last record when only the stored head disagrees). */
  first_invalid: { id: string; sequence: number } | null;
  /** Sequence of `first_invalid`, kept for existing clients. */
  first_invalid_sequence: number | null;
}

/** The chain head as stored, with what the caller found out about it. */
export interface StoredHead {
  sequence: number;
  head_hash: string;
  /** False when its head_mac is not the key's MAC of its place; undefined: not checked. */
  authentic?: boolean;
  /** Set once the sealer found the head moved without the key (audit_chains.tampered_at). */
  tampered?: boolean;
}

type VerifiableRow = Omit<ChainedFields, 'sequence'> & { sequence: number | null; prev_hash: string | null; hash: string | null; mac: string | null };

/** Incremental verifier: feed records in sequence order. */
export class ChainVerifier {
  private prev = GENESIS_HASH;
  private verifiedHead = GENESIS_HASH;
  private expectedSequence = 1;
  private count = 0;
  private last: { id: string; sequence: number } | null = null;
  private firstInvalid: { id: string; sequence: number } | null = null;
  /** The verified record at `tamperedSequence`, named as the first invalid one: the records after it were removed. */
  private cutAt: { id: string; sequence: number } | null = null;

  constructor(
    private readonly key: Buffer,
    /** The sequence a head moved without the key pointed at (audit_chains.tampered_sequence). */
    private readonly tamperedSequence?: number,
  ) {}

  push(record: VerifiableRow): void {
    this.count += 1;
    this.last = { id: record.id, sequence: Number(record.sequence) };
    if (this.firstInvalid !== null) return;
    const ok =
      Number(record.sequence) === this.expectedSequence &&
      record.prev_hash === this.prev &&
      record.mac !== null &&
      record.mac === recordMac(this.key, record) &&
      record.hash === chainHash(this.key, this.prev, this.expectedSequence, record.mac);
    if (!ok) {
      this.firstInvalid = { id: record.id, sequence: Number(record.sequence) };
      return;
    }
    if (this.tamperedSequence === this.expectedSequence) this.cutAt = { id: record.id, sequence: this.expectedSequence };
    this.prev = record.hash!;
    this.verifiedHead = this.prev;
    this.expectedSequence += 1;
  }

  /** Sequence of the last record that verifies (0 when none does): the place `head_hash` names. */
  get verifiedSequence(): number {
    return this.expectedSequence - 1;
  }

  /**
   * `storedHead` is the chain head the database recorded at the last append. `authentic: false`
   * (its MAC is not the key's) or `tampered` (the sealer found it so before: records past
   * `tamperedSequence` were removed) makes the chain invalid even where every record verifies.
   */
  result(storedHead: StoredHead | undefined): ChainCheck {
    let firstInvalid = this.firstInvalid;
    const headMoved = storedHead !== undefined && (storedHead.authentic === false || storedHead.tampered === true);
    // Every record verifies but the stored head disagrees: records were removed from the end.
    if (!firstInvalid && (storedHead ? headMoved || storedHead.sequence !== this.count || storedHead.head_hash !== this.prev : this.count !== 0)) {
      firstInvalid = this.cutAt ?? this.last;
      if (firstInvalid === null) return { valid: false, records: 0, head_hash: GENESIS_HASH, first_invalid: null, first_invalid_sequence: storedHead?.sequence || null };
    }
    return {
      valid: firstInvalid === null,
      records: this.count,
      head_hash: this.verifiedHead,
      first_invalid: firstInvalid,
      first_invalid_sequence: firstInvalid?.sequence ?? null,
    };
  }
}
