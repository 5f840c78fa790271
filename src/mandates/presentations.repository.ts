/**
 * The verify path's own SQL (DECISIONS §20): the mandate as a presentation names it (read unlocked,
 * with its agent key, before the decision's transaction), its row lock and its counters inside that
 * transaction, and the presentations decided once, each with its first answer sealed.
 * Imports the database only.
 */
import { sql } from 'kysely';
import type { DbOrTrx, MandatePresentationsTable, MandatesTable, Selectable } from '../db/database.js';
import { inScope, type Scope } from '../db/scope.js';
import { compiledOnce, insertRows } from '../db/statements.js';

export type MandateRow = Selectable<MandatesTable>;
export type PresentationRow = Selectable<MandatePresentationsTable>;

/**
 * A mandate with the agent key it is bound to (`cnf`): the key's status and public JWK; and the
 * sealed first answer to the closed mandate `closedDigest`, when it was decided before.
 */
export type MandateWithKey = MandateRow & { key_status: 'active' | 'revoked'; key_jwk: Record<string, string>; decided_answer: string | null };

/**
 * The mandate `id` of `scope`, its agent key and the answer already given to the closed mandate
 * whose signed bytes hash to `closedDigest` (any encoding of its signature), in one
 * statement and without a lock: steps 2–4 need them before the decision's transaction (the lock is
 * taken there, after the agent's).
 */
export async function findMandateWithKey(db: DbOrTrx, scope: Scope, id: string, closedDigest: string): Promise<MandateWithKey | undefined> {
  const row = await db
    .selectFrom('mandates as m')
    .innerJoin('agent_keys as k', 'k.id', 'm.agent_key_id')
    .selectAll('m')
    .select(['k.status as key_status', 'k.jwk as key_jwk'])
    .select((eb) =>
      eb.selectFrom('mandate_presentations as p').select('p.response_sealed').where('p.closed_digest', '=', closedDigest).whereRef('p.mandate_id', '=', 'm.id').as('decided_answer'),
    )
    .where('m.id', '=', id)
    .$call(inScope(scope, 'm'))
    .executeTakeFirst();
  return row as MandateWithKey | undefined;
}

/** The mandate's row, locked until the transaction ends (take the agent's lock first: design Q1). */
export async function lockMandate(trx: DbOrTrx, id: string): Promise<MandateRow | undefined> {
  return trx.selectFrom('mandates').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/**
 * The mandate's row, locked, and in the same statement whether `closedDigest` was decided already and
 * whether `transactionId` was approved under it. Called under the agent's lock, which every writer
 * of the mandate's presentations holds until it commits: what they wrote is in this snapshot.
 */
export async function lockMandateForPresentation(trx: DbOrTrx, id: string, closedDigest: string, transactionId: string) {
  return trx
    .selectFrom('mandates as m')
    .selectAll('m')
    .select((eb) => [
      eb.exists(eb.selectFrom('mandate_presentations as d').select('d.reference').where('d.closed_digest', '=', closedDigest)).as('decided'),
      eb
        .exists(
          eb
            .selectFrom('mandate_presentations as t')
            .select('t.reference')
            .whereRef('t.mandate_id', '=', 'm.id')
            .where('t.transaction_id', '=', transactionId)
            .where('t.outcome', '=', 'approved'),
        )
        .as('transaction_approved'),
    ])
    .where('m.id', '=', id)
    .forUpdate('m')
    .executeTakeFirst();
}

/** The presentation of the closed mandate `closedDigest` decided before in `scope`, if any. */
export async function findPresentation(db: DbOrTrx, scope: Scope, closedDigest: string): Promise<PresentationRow | undefined> {
  return db.selectFrom('mandate_presentations').selectAll().where('closed_digest', '=', closedDigest).$call(inScope(scope)).executeTakeFirst();
}

/**
 * One approved use of a mandate whose row lock the caller holds: `uses` + 1, `budget_used` +
 * `amount`, `last_used_at`; a single-use mandate, or one reaching its `max_occurrences`, is used up.
 * A statement for `executeTogether` (parameters only).
 */
export const countMandateUse = compiledOnce((db: DbOrTrx, id: string, amount: number, now: Date, used: 'used') =>
  db
    .updateTable('mandates')
    .set({
      uses: sql`uses + 1`,
      budget_used: sql`budget_used + ${amount}`,
      last_used_at: now,
      status: sql`CASE WHEN single_use OR uses + 1 >= coalesce(max_occurrences, uses + 2) THEN ${used} ELSE status END`,
    })
    .where('id', '=', id),
);

/** The row of a decided presentation: its first answer, sealed (it may hold a `gca_` token). */
export function presentationInsert(row: PresentationRow) {
  return insertRows('mandate_presentations', [row]);
}
