import { sql } from 'kysely';
import type { Db } from './database.js';

/**
 * How a transaction whose COMMIT got no answer ended. A lookup of its rows cannot tell: a failed
 * lookup is no answer at all, and a COMMIT still on its way finds them missing and commits after.
 * `txid_status` of the transaction's own id (`txid_current()`, read inside it before COMMIT) does:
 * PostgreSQL and the embedded PGlite (PostgreSQL 17 in WebAssembly) both keep it.
 */
export type CommitOutcome = 'committed' | 'aborted' | 'unknown';

export interface AskSettings {
  /** First pause between two questions; doubled after each, up to `maxDelayMs`. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** Past this, `unknown`: the caller must not act as if it knew either way. */
  deadlineMs: number;
}

/**
 * Below the 60 s after which an Idempotency-Key claim counts as abandoned (idempotency.repository.ts),
 * so a client's retry never takes over the key of a batch whose outcome is still being asked.
 */
export const IN_DOUBT_ASK: AskSettings = { firstDelayMs: 25, maxDelayMs: 1_000, deadlineMs: 30_000 };

/**
 * Asks the database, on a fresh connection, until it says whether transaction `txid` committed:
 * `in progress` (its COMMIT not yet done) and a failed question are asked again after a pause.
 * `unknown` only when the deadline passes without an answer, or for an id too old to be known.
 */
export async function commitOutcome(db: Db, txid: number, ask: AskSettings = IN_DOUBT_ASK): Promise<CommitOutcome> {
  const deadline = Date.now() + ask.deadlineMs;
  for (let delay = ask.firstDelayMs; ; delay = Math.min(delay * 2, ask.maxDelayMs)) {
    try {
      const { rows } = await sql<{ status: 'committed' | 'aborted' | 'in progress' | null }>`SELECT txid_status(${txid}::bigint) AS status`.execute(db);
      const status = rows[0]?.status ?? null;
      if (status === 'committed' || status === 'aborted') return status;
      if (status === null) return 'unknown';
    } catch {
      // No answer is not an answer: ask again.
    }
    if (Date.now() + delay > deadline) return 'unknown';
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
