import type { Db, DbOrTrx } from '../db/database.js';
import { auditHmacKey } from '../kernel/audit-key.js';
import type { SigningKeys } from '../tokens/signing-keys.js';
import { ChainVerifier, GENESIS_HASH, headMac, type ChainCheck } from './audit-chain.js';
import { openCheckpoint, signCheckpoint } from './audit-checkpoint.js';
import { auditChainPage, chainHead, listAudit, sealChain, type AuditFilter, type AuditRow, type ChainCut } from './audit.repository.js';
import { countDecisionsWithoutRecord, countRecordsWithoutDecision, recordHashAt } from './audit-verify.repository.js';
import { checkLedger, type LedgerMismatch } from './ledger-check.repository.js';

const VERIFY_BATCH = 1_000;

/** Reads seal first, so every committed record is listed with its sequence and hash. */
export async function listAuditRecords(db: Db, filter: Omit<AuditFilter, 'limit'> & { limit: number }) {
  await sealChain(db, filter.accountId, filter.livemode);
  const rows = await listAudit(db, { ...filter, limit: filter.limit + 1 });
  const hasMore = rows.length > filter.limit;
  const page = rows.slice(0, filter.limit);
  return { rows: page, hasMore, lastSequence: page.at(-1)?.sequence ?? undefined };
}

/** Recomputes every MAC and link of the chain in the caller's snapshot, and checks its stored head. */
async function checkChain(trx: DbOrTrx, accountId: string, livemode: boolean): Promise<{ check: ChainCheck; verifiedSequence: number }> {
  const key = auditHmacKey();
  const head = await chainHead(trx, accountId, livemode);
  const tampered = head?.tampered_at != null;
  const verifier = new ChainVerifier(key, tampered ? Number(head!.tampered_sequence) : undefined);
  let after = 0;
  for (;;) {
    const batch: AuditRow[] = await auditChainPage(trx, accountId, livemode, after, VERIFY_BATCH);
    for (const row of batch) verifier.push(row);
    if (batch.length < VERIFY_BATCH) break;
    after = Number(batch.at(-1)!.sequence);
  }
  const stored = head && {
    sequence: Number(head.sequence),
    head_hash: head.head_hash,
    authentic: head.head_mac === headMac(key, { account_id: accountId, livemode, sequence: Number(head.sequence), head_hash: head.head_hash }),
    tampered,
  };
  return { check: verifier.result(stored), verifiedSequence: verifier.verifiedSequence };
}

const inSnapshot = <T>(db: Db, fn: (trx: DbOrTrx) => Promise<T>) => db.transaction().setIsolationLevel('repeatable read').execute(fn);

/**
 * Seals what is committed, then recomputes the whole chain of one account and mode inside one
 * snapshot: each record's MAC over its content and its link to the one before.
 */
export async function verifyAuditChain(db: Db, accountId: string, livemode: boolean, onCut?: (cut: ChainCut) => void): Promise<ChainCheck> {
  await sealChain(db, accountId, livemode, onCut);
  return (await inSnapshot(db, (trx) => checkChain(trx, accountId, livemode))).check;
}

/** The answer of GET /v1/audit-logs/verify (docs/api.md, "Audit log"). */
export interface AuditVerification extends ChainCheck {
  /** Decisions of the account and mode without their `authorization.decision` record. */
  decisions_without_record: number;
  /** Sealed decision records whose decision row is gone. */
  records_without_decision: number;
  /** Decisions that differ from their records, spend counters that differ from the decisions' sum, and mandate counters that differ from their approvals. */
  ledger_mismatches: number;
  /** Up to 10 of them. */
  ledger_mismatch_examples: LedgerMismatch[];
  /** A signed statement of the verified head, for the customer to keep. */
  checkpoint: string;
  /** Whether the record a given checkpoint names is still there with its hash; null without one. */
  checkpoint_check: 'matched' | 'mismatched' | null;
}

/**
 * Verifies the chain, counts decisions whose record is missing, checks that the books balance
 * (decisions against their records, spend and mandate counters against the decisions) and checks a checkpoint
 * the caller kept, all in one snapshot, and signs a checkpoint of the head that verified. A checkpoint that is
 * not this service's for this account and mode is refused (400) before anything is read.
 */
export async function verifyAuditLog(
  deps: { db: Db; keys: SigningKeys; now?: () => Date; onCut?: (cut: ChainCut) => void },
  scope: { accountId: string; livemode: boolean },
  checkpoint?: string,
): Promise<AuditVerification> {
  const { accountId, livemode } = scope;
  const kept = checkpoint === undefined ? undefined : await openCheckpoint(deps.keys, checkpoint, scope);
  await sealChain(deps.db, accountId, livemode, deps.onCut);
  const found = await inSnapshot(deps.db, async (trx) => ({
    ...(await checkChain(trx, accountId, livemode)),
    missing: await countDecisionsWithoutRecord(trx, accountId, livemode),
    orphans: await countRecordsWithoutDecision(trx, accountId, livemode),
    ledger: await checkLedger(trx, accountId, livemode),
    keptHash: kept && kept.sequence > 0 ? await recordHashAt(trx, accountId, livemode, kept.sequence) : GENESIS_HASH,
  }));
  const checkpointCheck = kept ? (found.keptHash === kept.head_hash ? 'matched' : 'mismatched') : null;
  return {
    ...found.check,
    valid: found.check.valid && found.missing === 0 && found.orphans === 0 && found.ledger.mismatches === 0 && checkpointCheck !== 'mismatched',
    decisions_without_record: found.missing,
    records_without_decision: found.orphans,
    ledger_mismatches: found.ledger.mismatches,
    ledger_mismatch_examples: found.ledger.examples,
    checkpoint: await signCheckpoint(deps.keys, { aud: accountId, livemode, sequence: found.verifiedSequence, head_hash: found.check.head_hash }, deps.now?.() ?? new Date()),
    checkpoint_check: checkpointCheck,
  };
}
