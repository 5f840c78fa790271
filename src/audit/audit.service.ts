import type { Db } from '../db/database.js';
import { ChainVerifier, type ChainCheck } from './audit-chain.js';
import { auditHmacKey } from '../kernel/audit-key.js';
import { auditChainPage, chainHead, listAudit, sealChain, type AuditFilter, type AuditRow } from './audit.repository.js';

const VERIFY_BATCH = 1_000;

/** Reads seal first, so every committed record is listed with its sequence and hash. */
export async function listAuditRecords(db: Db, filter: Omit<AuditFilter, 'limit'> & { limit: number }) {
  await sealChain(db, filter.accountId, filter.livemode);
  const rows = await listAudit(db, { ...filter, limit: filter.limit + 1 });
  const hasMore = rows.length > filter.limit;
  const page = rows.slice(0, filter.limit);
  return { rows: page, hasMore, lastSequence: page.at(-1)?.sequence ?? undefined };
}

/**
 * Seals what is committed, then recomputes the whole chain of one account and mode inside one
 * snapshot: each record's MAC over its content and its link to the one before.
 */
export async function verifyAuditChain(db: Db, accountId: string, livemode: boolean): Promise<ChainCheck> {
  await sealChain(db, accountId, livemode);
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const head = await chainHead(trx, accountId, livemode);
      const verifier = new ChainVerifier(auditHmacKey());
      let after = 0;
      for (;;) {
        const batch: AuditRow[] = await auditChainPage(trx, accountId, livemode, after, VERIFY_BATCH);
        for (const row of batch) verifier.push(row);
        if (batch.length < VERIFY_BATCH) break;
        after = Number(batch.at(-1)!.sequence);
      }
      return verifier.result(head ? { sequence: Number(head.sequence), head_hash: head.head_hash } : undefined);
    });
}
