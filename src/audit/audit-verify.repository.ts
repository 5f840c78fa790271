import { sql } from 'kysely';
import { inScope, type Scope } from '../db/scope.js';
import type { DbOrTrx } from '../db/database.js';

/** Decisions read per statement when counting those without a record: each statement stays short on any account. */
export const DECISION_SCAN_BATCH = 10_000;

interface ScanPage {
  n: number;
  missing: number;
  /** The page's last key: created_at as text (microseconds kept) and id. */
  last_created_at: string | null;
  last_id: string | null;
}

/**
 * Decisions of the account and mode that have no `authorization.decision` audit record. A keyset
 * scan of the decisions index (newest first) in pages of `batch`, each page probing the partial
 * index on the records' decision id (migration 018): every statement is bounded, whatever the
 * account's size, and inside the caller's snapshot the pages add up to one consistent count.
 */
export async function countDecisionsWithoutRecord(db: DbOrTrx, accountId: string, livemode: boolean, batch = DECISION_SCAN_BATCH): Promise<number> {
  let missing = 0;
  let after: { createdAt: string; id: string } | undefined;
  for (;;) {
    const page = (
      await sql<ScanPage>`
        WITH page AS MATERIALIZED (
          SELECT id, created_at FROM decisions
          WHERE account_id = ${accountId} AND livemode = ${livemode}
            ${after ? sql`AND (created_at, id) < (${after.createdAt}::timestamptz, ${after.id})` : sql``}
          ORDER BY created_at DESC, id DESC
          LIMIT ${batch})
        SELECT
          (SELECT count(*) FROM page)::int AS n,
          (SELECT count(*) FROM page p WHERE NOT EXISTS (
             SELECT 1 FROM audit_records r
             WHERE r.account_id = ${accountId} AND r.livemode = ${livemode} AND r.type = 'authorization.decision' AND r.decision_id = p.id))::int AS missing,
          last.created_at::text AS last_created_at, last.id AS last_id
        FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT id, created_at FROM page ORDER BY created_at, id LIMIT 1) last ON true`.execute(db)
    ).rows[0]!;
    missing += Number(page.missing);
    if (Number(page.n) < batch || page.last_id === null || page.last_created_at === null) return missing;
    after = { createdAt: page.last_created_at, id: page.last_id };
  }
}

/**
 * Sealed `authorization.decision` records of the account and mode whose decision row is gone (a
 * row deleted behind the API, its counter lowered with it: DECISIONS §7). One anti-join over the
 * records' partial index on decision id and the decisions' primary key.
 */
export async function countRecordsWithoutDecision(db: DbOrTrx, accountId: string, livemode: boolean): Promise<number> {
  const row = (
    await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM audit_records r
      WHERE r.account_id = ${accountId} AND r.livemode = ${livemode} AND r.type = 'authorization.decision' AND r.decision_id IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM decisions d WHERE d.id = r.decision_id)`.execute(db)
  ).rows[0];
  return Number(row?.n ?? 0);
}

/** The hash of the record at `sequence` of the chain, if there is one. */
export async function recordHashAt(db: DbOrTrx, accountId: string, livemode: boolean, sequence: number): Promise<string | null | undefined> {
  const row = await db
    .selectFrom('audit_records')
    .select('hash')
    .$call(inScope({ accountId, livemode }))
    .where('sequence', '=', sequence)
    .executeTakeFirst();
  return row?.hash;
}

/** A chain with records (one account in one mode), as the daily checkpoint job pages through them. */
export type ChainKey = Scope;

/** Chains with at least one sealed record, after `after` in (account, mode) order: a keyset page of the chain heads. */
export async function chainsWithRecords(db: DbOrTrx, limit: number, after?: ChainKey): Promise<ChainKey[]> {
  let q = db.selectFrom('audit_chains').select(['account_id', 'livemode']).where('sequence', '>', 0);
  if (after) q = q.where(sql<boolean>`(account_id, livemode) > (${after.accountId}, ${after.livemode})`);
  const rows = await q.orderBy('account_id').orderBy('livemode').limit(limit).execute();
  return rows.map((r) => ({ accountId: r.account_id, livemode: r.livemode }));
}

/** Claims the day's checkpoint for the chain; false when it was sent already (a retried or repeated run). */
export async function claimCheckpointDay(db: DbOrTrx, chain: ChainKey, day: string, head: { sequence: number; head_hash: string }, eventId: string): Promise<boolean> {
  const row = await db
    .insertInto('audit_checkpoint_days')
    .values({ account_id: chain.accountId, livemode: chain.livemode, day, sequence: head.sequence, head_hash: head.head_hash, event_id: eventId })
    .onConflict((oc) => oc.columns(['account_id', 'livemode', 'day']).doNothing())
    .returning('event_id')
    .executeTakeFirst();
  return row !== undefined;
}
