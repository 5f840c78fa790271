/**
 * The verify path's own SQL (DECISIONS §20): the mandate as a presentation names it (read unlocked,
 * with its agent key, before the decision's transaction), its row lock and its counters inside that
 * transaction, and the presentations decided once, each with its first answer sealed.
 * Imports the database, and the agent's spend counters it reads with the mandate's lock.
 */
import { sql } from 'kysely';
import type { DbOrTrx, MandatePresentationsTable, MandatesTable, Selectable } from '../db/database.js';
import { inScope, type Scope } from '../db/scope.js';
import { compiledOnce, insertRows } from '../db/statements.js';
import { spendByPeriod, type SpendByPeriod } from '../decisions/spend.repository.js';

export type MandateRow = Selectable<MandatesTable>;
export type PresentationRow = Selectable<MandatePresentationsTable>;

/**
 * What verify reads of a mandate before its transaction: its agent and category, the agent key it
 * is bound to (`cnf`: the key's status and public JWK), and the sealed first answer to the closed
 * mandate `closedDigest`, when it was decided before.
 */
export type MandateWithKey = Pick<MandateRow, 'id' | 'agent_id' | 'category'> & { key_status: 'active' | 'revoked'; key_jwk: Record<string, string>; decided_answer: string | null };

/** Built once, and only the columns verify reads (the credential and open mandate stay in the table): it runs on every presentation. */
const mandateWithKeyQuery = compiledOnce((db: DbOrTrx, id: string, accountId: string, livemode: boolean, closedDigest: string) =>
  db
    .selectFrom('mandates as m')
    .innerJoin('agent_keys as k', 'k.id', 'm.agent_key_id')
    .select(['m.id', 'm.agent_id', 'm.category', 'k.status as key_status', 'k.jwk as key_jwk'])
    .select((eb) =>
      eb.selectFrom('mandate_presentations as p').select('p.response_sealed').where('p.closed_digest', '=', closedDigest).whereRef('p.mandate_id', '=', 'm.id').as('decided_answer'),
    )
    .where('m.id', '=', id)
    .$call(inScope({ accountId, livemode }, 'm')),
);

/**
 * The mandate `id` of `scope`, its agent key and the answer already given to the closed mandate
 * whose signed bytes hash to `closedDigest` (any encoding of its signature), in one
 * statement and without a lock: steps 2–4 need them before the decision's transaction (the lock is
 * taken there, after the agent's).
 */
export async function findMandateWithKey(db: DbOrTrx, scope: Scope, id: string, closedDigest: string): Promise<MandateWithKey | undefined> {
  const { rows } = await db.executeQuery<MandateWithKey>(mandateWithKeyQuery(db, id, scope.accountId, scope.livemode, closedDigest));
  return rows[0];
}

/** The mandate's row, locked until the transaction ends (take the agent's lock first: design Q1). */
export async function lockMandate(trx: DbOrTrx, id: string): Promise<MandateRow | undefined> {
  return trx.selectFrom('mandates').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/** The mandate as steps 6–7 read it under its lock, its agent key's status, and the agent's spend (`spendFromPeriods` reads it). */
export type LockedMandate = Pick<MandateRow, 'status' | 'uses' | 'budget_used' | 'last_used_at'> & {
  key_status: 'active' | 'revoked';
  decided: boolean;
  transaction_approved: boolean;
  spend: SpendByPeriod;
};

/** Built once, and only the columns steps 6–7 read: it runs on every presentation decided. */
const lockedMandateQuery = compiledOnce((db: DbOrTrx, id: string, closedDigest: string, transactionId: string, agentId: string, month: string, day: string) =>
  db
    .selectFrom('mandates as m')
    .innerJoin('agent_keys as k', 'k.id', 'm.agent_key_id')
    .select(['m.status', 'm.uses', 'm.budget_used', 'm.last_used_at', 'k.status as key_status'])
    .select((eb) => [
      // The presentation's row, or failing it the decision record that sealed the closed mandate
      // (DECISIONS §7): a row edited or removed behind the service never lets it be decided again.
      sql<boolean>`(${eb.exists(eb.selectFrom('mandate_presentations as d').select('d.reference').where('d.closed_digest', '=', closedDigest))}
        or exists (select 1 from audit_records r where r.terms ? 'mandate' and r.terms->'mandate'->>'closed_digest' = ${closedDigest}))`.as('decided'),
      sql<boolean>`(${eb.exists(
        eb
          .selectFrom('mandate_presentations as t')
          .select('t.reference')
          .whereRef('t.mandate_id', '=', 'm.id')
          .where('t.transaction_id', '=', transactionId)
          .where('t.outcome', '=', 'approved'),
      )}
        or exists (select 1 from audit_records r where r.terms ? 'mandate' and r.decision = 'approved'
                   and r.terms->'mandate'->>'id' = m.id and r.terms->'mandate'->>'transaction_id' = ${transactionId}))`.as('transaction_approved'),
      spendByPeriod(agentId, month, day).as('spend'),
    ])
    .where('m.id', '=', id)
    .forUpdate('m'),
);

/**
 * The mandate's row, locked, and in the same statement its agent key's status, whether
 * `closedDigest` was decided already, whether `transactionId` was approved under it, and the spend
 * of its agent `agentId` in `periods`.
 * Called under the agent's lock, which every writer of the mandate's presentations and of the
 * agent's spend holds until it commits: what they wrote is in this statement's snapshot.
 */
export async function lockMandateForPresentation(
  trx: DbOrTrx,
  id: string,
  closedDigest: string,
  transactionId: string,
  agentId: string,
  periods: { month: string; day: string },
): Promise<LockedMandate | undefined> {
  const { rows } = await trx.executeQuery<LockedMandate>(lockedMandateQuery(trx, id, closedDigest, transactionId, agentId, periods.month, periods.day));
  return rows[0];
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
