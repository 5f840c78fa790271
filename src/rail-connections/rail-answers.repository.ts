import { sql } from 'kysely';
import type { DbOrTrx, RailAuthorizationsTable, Selectable } from '../db/database.js';
import type { Settlement } from './card-life.js';

export type RailAnswerRow = Selectable<RailAuthorizationsTable>;
export type NewRailAnswer = Omit<RailAnswerRow, 'counted_amount' | 'approved_amount' | 'stripe_approved' | 'stripe_status' | 'stripe_amount' | 'stripe_amount_at'> & {
  counted_amount: number;
  approved_amount: number;
};

/** The answer the connection gave to this event, if any: a repeat of the event gets it back. */
export async function findRailAnswer(db: DbOrTrx, connectionId: string, eventId: string): Promise<RailAnswerRow | undefined> {
  return db.selectFrom('rail_authorizations').selectAll().where('connection_id', '=', connectionId).where('request_event_id', '=', eventId).executeTakeFirst();
}

/**
 * In one query: whether the connection is live (not deleted: the cache of connections may be a
 * notification behind), the answer already given to this event (a repeat gets it back), and the
 * answer to the first request of its card authorization (when there is one, this request is an
 * increase).
 */
export async function findEarlierAnswers(
  db: DbOrTrx,
  connectionId: string,
  ids: { authorizationId: string; eventId: string },
): Promise<{ live: boolean; toEvent: RailAnswerRow | undefined; first: RailAnswerRow | undefined }> {
  const rows = await db
    .selectFrom('rail_connections as c')
    .leftJoin('rail_authorizations as r', (join) =>
      join
        .onRef('r.connection_id', '=', 'c.id')
        .on((eb) => eb.or([eb('r.request_event_id', '=', ids.eventId), eb.and([eb('r.authorization_id', '=', ids.authorizationId), eb('r.increment', '=', false)])])),
    )
    .selectAll('r')
    .select('c.deleted_at as connection_deleted_at')
    .where('c.id', '=', connectionId)
    .limit(2)
    .execute();
  // No answer: the one row the left join gives is the connection's, its answer columns null.
  const answers = rows.flatMap(({ connection_deleted_at: _, ...r }) => (r.request_event_id === null ? [] : [r as RailAnswerRow]));
  return {
    live: rows.length > 0 && rows[0]!.connection_deleted_at === null,
    toEvent: answers.find((r) => r.request_event_id === ids.eventId),
    first: answers.find((r) => r.authorization_id === ids.authorizationId && !r.increment),
  };
}

/** The first decision made for a card authorization: its first request's, else the earliest increase's. */
export async function firstDecisionOf(db: DbOrTrx, connectionId: string, authorizationId: string): Promise<string | null> {
  const row = await db
    .selectFrom('rail_authorizations')
    .select('decision_id')
    .where('connection_id', '=', connectionId)
    .where('authorization_id', '=', authorizationId)
    .where('decision_id', 'is not', null)
    .orderBy('increment')
    .orderBy('created_at')
    .orderBy('request_event_id')
    .limit(1)
    .executeTakeFirst();
  return row?.decision_id ?? null;
}

/** Every answer to a card authorization's requests: the first, then its increases in the order answered. */
export async function railAnswersOf(db: DbOrTrx, connectionId: string, authorizationId: string): Promise<RailAnswerRow[]> {
  return db
    .selectFrom('rail_authorizations')
    .selectAll()
    .where('connection_id', '=', connectionId)
    .where('authorization_id', '=', authorizationId)
    .orderBy('increment')
    .orderBy('created_at')
    .orderBy('request_event_id')
    .execute();
}

/**
 * Records an answer. Inside a decision's transaction a second answer to the same event, or a
 * second first request of one authorization, fails the insert (unique keys), which rolls that
 * decision back.
 */
export async function insertRailAnswer(db: DbOrTrx, row: NewRailAnswer): Promise<void> {
  await db
    .insertInto('rail_authorizations')
    .values({ ...row, answer: JSON.stringify(row.answer) })
    .execute();
}

/** Records an answer unless one exists (a timeout answer racing a late decision); true when this one was stored. */
export async function insertRailAnswerIfAbsent(db: DbOrTrx, row: NewRailAnswer): Promise<boolean> {
  const stored = await db
    .insertInto('rail_authorizations')
    .values({ ...row, answer: JSON.stringify(row.answer) })
    .onConflict((oc) => oc.doNothing())
    .returning('authorization_id')
    .executeTakeFirst();
  return stored !== undefined;
}

/** The first request's answer, locked: it keeps the card's later life. */
export async function lockRailAnswer(db: DbOrTrx, connectionId: string, authorizationId: string): Promise<RailAnswerRow | undefined> {
  return db
    .selectFrom('rail_authorizations')
    .selectAll()
    .where('connection_id', '=', connectionId)
    .where('authorization_id', '=', authorizationId)
    .where('increment', '=', false)
    .forUpdate()
    .executeTakeFirst();
}

/** Stores what the rail now says of the authorization, on its first request's answer. */
export async function updateRailAnswer(
  db: DbOrTrx,
  connectionId: string,
  authorizationId: string,
  set: Partial<Pick<RailAnswerRow, 'stripe_approved' | 'stripe_status' | 'stripe_amount' | 'stripe_amount_at' | 'updated_at'>>,
): Promise<void> {
  await db
    .updateTable('rail_authorizations')
    .set(set)
    .where('connection_id', '=', connectionId)
    .where('authorization_id', '=', authorizationId)
    .where('increment', '=', false)
    .execute();
}

/** What one answer's decision counts for its card authorization now. */
export async function setCountedAmount(db: DbOrTrx, connectionId: string, eventId: string, countedAmount: number, now: Date): Promise<void> {
  await db.updateTable('rail_authorizations').set({ counted_amount: countedAmount, updated_at: now }).where('connection_id', '=', connectionId).where('request_event_id', '=', eventId).execute();
}

/**
 * Marks an event processed, in one statement that also checks the connection is live (the cache of
 * connections may be a notification behind): `duplicate` when the connection had already processed
 * it, `gone` when the connection is deleted (nothing is written).
 */
export async function claimRailEvent(db: DbOrTrx, connectionId: string, eventId: string, type: string, now: Date): Promise<'claimed' | 'duplicate' | 'gone'> {
  const { rows } = await sql<{ live: boolean; claimed: boolean }>`
    WITH live AS (SELECT id FROM rail_connections WHERE id = ${connectionId} AND deleted_at IS NULL),
    claimed AS (
      INSERT INTO rail_events (connection_id, event_id, type, received_at)
      SELECT id, ${eventId}::text, ${type}::text, ${now}::timestamptz FROM live
      ON CONFLICT (connection_id, event_id) DO NOTHING
      RETURNING event_id
    )
    SELECT EXISTS (SELECT 1 FROM live) AS live, EXISTS (SELECT 1 FROM claimed) AS claimed`.execute(db);
  const row = rows[0];
  if (!row?.live) return 'gone';
  return row.claimed ? 'claimed' : 'duplicate';
}

export interface RailTransactionFacts {
  id: string;
  authorizationId: string | null;
  type: string;
  /** As the rail reports it: negative for a capture, positive for a refund. */
  amount: number;
  currency: string;
}

/** Records settled transactions, once each however often they are reported. */
export async function recordRailTransactions(db: DbOrTrx, connectionId: string, transactions: readonly RailTransactionFacts[], now: Date): Promise<void> {
  if (transactions.length === 0) return;
  await db
    .insertInto('rail_transactions')
    .values(
      transactions.map((t) => ({
        connection_id: connectionId,
        transaction_id: t.id,
        authorization_id: t.authorizationId,
        type: t.type,
        amount: t.amount,
        currency: t.currency,
        created_at: now,
      })),
    )
    .onConflict((oc) => oc.columns(['connection_id', 'transaction_id']).doNothing())
    .execute();
}

/** The settled transactions of an authorization, by kind: captures (negative) and refunds (positive). */
export async function settlementOf(db: DbOrTrx, connectionId: string, authorizationId: string): Promise<Settlement> {
  const rows = await db
    .selectFrom('rail_transactions')
    .select((eb) => ['type', eb.fn.sum<number>('amount').as('net'), eb.fn.countAll<number>().as('count')])
    .where('connection_id', '=', connectionId)
    .where('authorization_id', '=', authorizationId)
    .groupBy('type')
    .execute();
  const of = (type: string) => rows.find((r) => r.type === type);
  return { captureNet: Number(of('capture')?.net ?? 0), captures: Number(of('capture')?.count ?? 0), refundNet: Number(of('refund')?.net ?? 0) };
}
