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
 * In one query: the answer already given to this event (a repeat gets it back), and the answer to
 * the first request of its card authorization (when there is one, this request is an increase).
 */
export async function findEarlierAnswers(
  db: DbOrTrx,
  connectionId: string,
  ids: { authorizationId: string; eventId: string },
): Promise<{ toEvent: RailAnswerRow | undefined; first: RailAnswerRow | undefined }> {
  const rows = await db
    .selectFrom('rail_authorizations')
    .selectAll()
    .where('connection_id', '=', connectionId)
    .where((eb) => eb.or([eb('request_event_id', '=', ids.eventId), eb.and([eb('authorization_id', '=', ids.authorizationId), eb('increment', '=', false)])]))
    .limit(2)
    .execute();
  return {
    toEvent: rows.find((r) => r.request_event_id === ids.eventId),
    first: rows.find((r) => r.authorization_id === ids.authorizationId && !r.increment),
  };
}

/** The answer to the first request of a card authorization (not an increase), if the connection gave one. */
export async function findRailAnswerOf(db: DbOrTrx, connectionId: string, authorizationId: string): Promise<RailAnswerRow | undefined> {
  return db
    .selectFrom('rail_authorizations')
    .selectAll()
    .where('connection_id', '=', connectionId)
    .where('authorization_id', '=', authorizationId)
    .where('increment', '=', false)
    .executeTakeFirst();
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

/** Marks an event processed; false when the connection had already processed it. */
export async function claimRailEvent(db: DbOrTrx, connectionId: string, eventId: string, type: string, now: Date): Promise<boolean> {
  const row = await db
    .insertInto('rail_events')
    .values({ connection_id: connectionId, event_id: eventId, type, received_at: now })
    .onConflict((oc) => oc.columns(['connection_id', 'event_id']).doNothing())
    .returning('event_id')
    .executeTakeFirst();
  return row !== undefined;
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
