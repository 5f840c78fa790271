import { sql } from 'kysely';
import type { DbOrTrx, Selectable } from '../db/database.js';
import type { RailCardCapturesTable } from '../db/rail-tables.js';

export type CardCaptureRow = Selectable<RailCardCapturesTable>;

/** A decision-less capture by its key, locked (the agent's row lock is held already). */
export async function lockCardCapture(db: DbOrTrx, connectionId: string, key: string): Promise<CardCaptureRow | undefined> {
  return db.selectFrom('rail_card_captures').selectAll().where('connection_id', '=', connectionId).where('capture_key', '=', key).forUpdate().executeTakeFirst();
}

export async function upsertCardCapture(db: DbOrTrx, row: Omit<CardCaptureRow, 'created_at' | 'updated_at'>, now: Date): Promise<CardCaptureRow> {
  return db
    .insertInto('rail_card_captures')
    .values({ ...row, created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['connection_id', 'capture_key']).doUpdateSet({ counted_amount: row.counted_amount, updated_at: now }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The currency of an authorization's settled transactions (the first one's). */
export async function settlementCurrency(db: DbOrTrx, connectionId: string, authorizationId: string): Promise<string | undefined> {
  const row = await db.selectFrom('rail_transactions').select('currency').where('connection_id', '=', connectionId).where('authorization_id', '=', authorizationId).orderBy('created_at').limit(1).executeTakeFirst();
  return row?.currency;
}

/** The agent an earlier swipe of `cardId` on this connection named: its latest decision's. */
export async function agentOfCard(db: DbOrTrx, connectionId: string, cardId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('decisions')
    .select('agent_id')
    .where('rail_connection_id', '=', connectionId)
    .where(sql<string>`metadata->>'stripe_card'`, '=', cardId)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.agent_id;
}

/** An agent of this account and mode, locked (every spend change of an agent holds its row lock). */
export async function lockAgentIn(db: DbOrTrx, agentId: string, accountId: string, livemode: boolean): Promise<boolean> {
  const row = await db.selectFrom('agents').select('id').where('id', '=', agentId).where('account_id', '=', accountId).where('livemode', '=', livemode).forUpdate().executeTakeFirst();
  return row !== undefined;
}
