import { sql } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { insertRows } from '../db/statements.js';

/** Topics the relay knows how to carry out after commit. */
export type OutboxTopic = 'held_decision' | 'held_resolved' | 'event' | 'webhook_delivery';

/** Written inside the caller's transaction, so the follow-up exists exactly when the change does. */
export async function enqueueOutbox(trx: DbOrTrx, topic: OutboxTopic, refId: string, accountId: string, now = new Date()) {
  await trx.executeQuery(outboxInsert([{ topic, refId }], accountId, now));
}

/** The insert `enqueueOutbox` runs, for one or more rows, for callers that write it together with other rows. */
export function outboxInsert(items: readonly { topic: OutboxTopic; refId: string }[], accountId: string, now: Date) {
  return insertRows('outbox', outboxRows(items, accountId, now).map((row) => ({ ...row, payload: JSON.stringify(row.payload) })));
}

/** The rows `outboxInsert` writes, with the payload as a JSON value (for rows written as one JSON parameter). */
export function outboxRows(items: readonly { topic: OutboxTopic; refId: string }[], accountId: string, now: Date) {
  return items.map(({ topic, refId }) => ({ topic, ref_id: refId, account_id: accountId, payload: {}, created_at: now, next_attempt_at: now, last_error: null, processed_at: null }));
}

export interface OutboxRow {
  id: number;
  topic: OutboxTopic;
  ref_id: string;
  payload: Record<string, unknown>;
  attempts: number;
  /** Failures of the row's own, toward dead-lettering. */
  failures: number;
  created_at: Date;
}

/** How long a claimed row is hidden from other relays; a relay that dies mid-batch loses nothing. */
export const OUTBOX_LEASE_MS = 60_000;

/**
 * Claims due rows of the given topics with a lease (SKIP LOCKED, so several relays can run).
 * The claim commits at once; rows are marked done or rescheduled one by one afterwards.
 */
export async function claimDueOutbox(db: DbOrTrx, topics: OutboxTopic[], limit: number, now: Date, accountId?: string): Promise<OutboxRow[]> {
  const res = await sql<OutboxRow>`
    UPDATE outbox SET next_attempt_at = ${new Date(now.getTime() + OUTBOX_LEASE_MS)}
    WHERE id IN (
      SELECT id FROM outbox
      WHERE processed_at IS NULL AND dead_lettered_at IS NULL AND next_attempt_at <= ${now} AND topic IN (${sql.join(topics)})
        ${accountId ? sql`AND account_id = ${accountId}` : sql``}
      ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING id, topic, ref_id, payload, attempts, failures, created_at`.execute(db);
  return res.rows.map((r) => ({ ...r, id: Number(r.id), attempts: Number(r.attempts), failures: Number(r.failures) })).sort((a, b) => a.id - b.id);
}

export async function markOutboxDone(db: DbOrTrx, id: number, now: Date): Promise<void> {
  await db.updateTable('outbox').set({ processed_at: now, last_error: null }).where('id', '=', id).execute();
}

/** Marks rows done in one statement, each with the moment it was carried out. */
export async function markOutboxRowsDone(db: DbOrTrx, rows: readonly { id: number; at: Date }[]): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    UPDATE outbox o SET processed_at = d.at, last_error = NULL
    FROM unnest(${rows.map((r) => r.id)}::bigint[], ${rows.map((r) => r.at.toISOString())}::timestamptz[]) AS d(id, at)
    WHERE o.id = d.id`.execute(db);
}

export async function rescheduleOutbox(db: DbOrTrx, id: number, attempts: number, nextAttemptAt: Date, error: string, failures?: number): Promise<void> {
  await db
    .updateTable('outbox')
    .set({ attempts, next_attempt_at: nextAttemptAt, last_error: error.slice(0, 1000), ...(failures === undefined ? {} : { failures }) })
    .where('id', '=', id)
    .execute();
}

/** Gives up on a row: it is no longer claimed, and stays (with its last error) for an operator. */
export async function deadLetterOutbox(db: DbOrTrx, id: number, failures: number, error: string, now: Date): Promise<void> {
  await db.updateTable('outbox').set({ failures, dead_lettered_at: now, last_error: error.slice(0, 1000) }).where('id', '=', id).execute();
}

/** Hands claimed rows back at once (a batch cut short), without counting an attempt. */
export async function releaseOutbox(db: DbOrTrx, ids: number[], now: Date): Promise<void> {
  if (ids.length) await db.updateTable('outbox').set({ next_attempt_at: now }).where('id', 'in', ids).execute();
}

/** Dead-lettered rows (not yet resolved by an operator). */
export async function countDeadLetters(db: DbOrTrx): Promise<number> {
  const row = await db.selectFrom('outbox').select((eb) => eb.fn.countAll<number>().as('n')).where('dead_lettered_at', 'is not', null).where('processed_at', 'is', null).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Unprocessed rows and the age of the oldest: the relay's lag (dead letters are counted apart). */
export async function outboxLag(db: DbOrTrx, now: Date, topics?: OutboxTopic[], accountId?: string): Promise<{ pending: number; oldest_age_seconds: number }> {
  let q = db
    .selectFrom('outbox')
    .select((eb) => [eb.fn.countAll<number>().as('pending'), eb.fn.min('created_at').as('oldest')])
    .where('processed_at', 'is', null)
    .where('dead_lettered_at', 'is', null);
  if (topics) q = q.where('topic', 'in', topics);
  if (accountId) q = q.where('account_id', '=', accountId);
  const row = await q.executeTakeFirstOrThrow();
  const oldest = row.oldest ? new Date(row.oldest as unknown as string) : undefined;
  return { pending: Number(row.pending), oldest_age_seconds: oldest ? Math.max(0, Math.round((now.getTime() - oldest.getTime()) / 1000)) : 0 };
}
