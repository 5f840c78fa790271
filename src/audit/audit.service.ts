import type { Db } from '../db/database.js';
import { ChainVerifier, type ChainCheck } from './audit-chain.js';
import { auditChainPage, chainHead, listAudit, type AuditFilter, type AuditRow } from './audit.repository.js';

const VERIFY_BATCH = 1_000;

export async function listAuditRecords(db: Db, filter: Omit<AuditFilter, 'limit'> & { limit: number }) {
  const rows = await listAudit(db, { ...filter, limit: filter.limit + 1 });
  const hasMore = rows.length > filter.limit;
  const page = rows.slice(0, filter.limit);
  return { rows: page, hasMore, lastSequence: page.at(-1)?.sequence };
}

/** Recomputes the whole chain of one account and mode, in batches, inside one snapshot. */
export async function verifyAuditChain(db: Db, accountId: string, livemode: boolean): Promise<ChainCheck> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const head = await chainHead(trx, accountId, livemode);
      const verifier = new ChainVerifier();
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
