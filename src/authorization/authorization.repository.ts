import { sql } from 'kysely';
import type { DbOrTrx, DecisionsTable, PoliciesTable, Selectable } from '../db/database.js';
import { inScope } from '../db/scope.js';
import type { DecisionRow } from '../decisions/decision.view.js';
import { spendByPeriod, spendFromPeriods } from '../decisions/spend.repository.js';
import { railMatchable } from '../decisions/decisions.repository.js';
import { compiledOnce, insertRows } from '../db/statements.js';

/** A policy as read alongside its agent: its rules; the timestamps are left out. */
export type BoundPolicy = Omit<Selectable<PoliciesTable>, 'created_at' | 'updated_at' | 'deleted_at'>;

/** The agent and its bound, not deleted policy (as `bound_policy`), in one statement. */
function agentWithPolicy(db: DbOrTrx, accountId: string, livemode: boolean, agentId: string) {
  return db
    .selectFrom('agents as a')
    .leftJoin('policies as p', (j) => j.onRef('p.id', '=', 'a.policy_id').on('p.deleted_at', 'is', null))
    .selectAll('a')
    .select(sql<BoundPolicy | null>`CASE WHEN p.id IS NULL THEN NULL ELSE to_jsonb(p) - ARRAY['created_at', 'updated_at', 'deleted_at'] END`.as('bound_policy'))
    .where('a.id', '=', agentId)
    .$call(inScope({ accountId, livemode }, 'a'));
}

type AgentWithPolicyRow = Awaited<ReturnType<ReturnType<typeof agentWithPolicy>['executeTakeFirstOrThrow']>>;
/** Built once: it runs on every decision of the locked path. */
const lockAgentQuery = compiledOnce((db: DbOrTrx, accountId: string, livemode: boolean, agentId: string) => agentWithPolicy(db, accountId, livemode, agentId).forUpdate('a'));

/**
 * Locks the agent's row (every spend change of one agent takes this lock first) and reads its
 * policy in the same round trip. Anything that changes under the lock, like spend, must be read by
 * a later statement: this one's snapshot is taken before the lock is granted.
 */
export async function lockAgentWithPolicy(trx: DbOrTrx, accountId: string, livemode: boolean, agentId: string) {
  const { rows } = await trx.executeQuery<AgentWithPolicyRow>(lockAgentQuery(trx, accountId, livemode, agentId));
  const row = rows[0];
  if (!row) return undefined;
  const { bound_policy: policy, ...agent } = row;
  return { agent, policy: policy ?? undefined };
}

const agentStateBuilder = (db: DbOrTrx, accountId: string, livemode: boolean, agentId: string, month: string, day: string) =>
  agentWithPolicy(db, accountId, livemode, agentId).select(spendByPeriod(sql.ref<string>('a.id'), month, day).as('spend'));
type AgentStateRow = Awaited<ReturnType<ReturnType<typeof agentStateBuilder>['executeTakeFirstOrThrow']>>;
/** Built once: it runs on every authorization. */
const agentStateQuery = compiledOnce(agentStateBuilder);

/**
 * The agent, its bound policy and its spend in `periods`, as of one snapshot and without a lock:
 * for a decision whose write is conditional on `agentUnchanged`.
 */
export async function readAgentState(db: DbOrTrx, accountId: string, livemode: boolean, agentId: string, periods: { month: string; day: string }) {
  const { rows } = await db.executeQuery<AgentStateRow>(agentStateQuery(db, accountId, livemode, agentId, periods.month, periods.day));
  const row = rows[0];
  if (!row) return undefined;
  const { bound_policy: policy, spend: byPeriod, ...agent } = row;
  const spend = spendFromPeriods(periods, byPeriod);
  return { agent, policy: policy ?? undefined, spend };
}

/**
 * Counts a decision of the agent, on the condition that nothing a decision depends on changed since
 * `seen` was read: no other decision, no status change, no other policy. Returns the agent's id when
 * it held (a precondition for `executeTogether`).
 */
export function agentUnchanged(db: DbOrTrx, seen: { id: string; decision_seq: number; policy_id: string | null }) {
  return seen.policy_id === null ? unchangedWithoutPolicy(db, seen.id, seen.decision_seq) : unchangedWithPolicy(db, seen.id, seen.decision_seq, seen.policy_id);
}

const unchangedWithoutPolicy = compiledOnce((db: DbOrTrx, id: string, seq: number) =>
  countDecision(db, id).where('decision_seq', '=', seq).where('status', '=', 'active').where('policy_id', 'is', null).returning('id'),
);
const unchangedWithPolicy = compiledOnce((db: DbOrTrx, id: string, seq: number, policyId: string) =>
  countDecision(db, id).where('decision_seq', '=', seq).where('status', '=', 'active').where('policy_id', '=', policyId).returning('id'),
);

/** Counts a decision of an agent whose row lock the caller holds. */
export function countDecision(db: DbOrTrx, agentId: string) {
  return db
    .updateTable('agents')
    .set((eb) => ({ decision_seq: eb('decision_seq', '+', 1) }))
    .where('id', '=', agentId);
}

export function decisionInsert(row: DecisionRow) {
  return insertRows('decisions', [{ ...row, metadata: JSON.stringify(row.metadata), approvals: JSON.stringify(row.approvals), signature: row.signature && JSON.stringify(row.signature), capture_signature: row.capture_signature && JSON.stringify(row.capture_signature), mandate: row.mandate && JSON.stringify(row.mandate) }]);
}

/**
 * Approved decisions and pending holds of the agent inside each rolling window ending at `now`.
 * No upper bound on `created_at`: a decision committed before this read counts even when stamped
 * after `now` (another batch's or process's clock, read later than the reader's), or it would
 * escape the limit. The same holds for the duplicate and auto-freeze counts below.
 */
export async function velocityState(db: DbOrTrx, agentId: string, windowsSeconds: readonly number[], now: Date): Promise<{ count: number; amount: number }[]> {
  if (windowsSeconds.length === 0) return [];
  const since = windowsSeconds.map((w) => new Date(now.getTime() - w * 1000));
  const oldest = new Date(Math.min(...since.map((d) => d.getTime())));
  const columns = since.map(
    (d, i) => sql`count(*) FILTER (WHERE created_at > ${d}) AS ${sql.ref(`c${i}`)}, coalesce(sum(amount) FILTER (WHERE created_at > ${d}), 0) AS ${sql.ref(`a${i}`)}`,
  );
  const res = await sql<Record<string, number>>`
    SELECT ${sql.join(columns)} FROM decisions
    WHERE agent_id = ${agentId} AND created_at > ${oldest} AND status IN ('approved', 'pending')`.execute(db);
  const row = res.rows[0] ?? {};
  return since.map((_, i) => ({ count: Number(row[`c${i}`] ?? 0), amount: Number(row[`a${i}`] ?? 0) }));
}

/** Approved or pending requests of the agent with this amount and currency inside the window (vendor compared by the caller). */
export async function recentLookalikes(db: DbOrTrx, agentId: string, r: { amount: number; currency: string }, windowSeconds: number, now: Date) {
  return db
    .selectFrom('decisions')
    .select(['id', 'vendor'])
    .where('agent_id', '=', agentId)
    .where('amount', '=', r.amount)
    .where('currency', '=', r.currency)
    .where('status', 'in', ['approved', 'pending'])
    .where('created_at', '>', new Date(now.getTime() - windowSeconds * 1000))
    .execute();
}

export async function deniedCount(db: DbOrTrx, agentId: string, windowSeconds: number, now: Date): Promise<number> {
  const row = await db
    .selectFrom('decisions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('agent_id', '=', agentId)
    .where('decision', '=', 'denied')
    .where('created_at', '>', new Date(now.getTime() - windowSeconds * 1000))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export type { DecisionsTable };

/** How many covering approvals a rail's match looks at (vendors are compared by the caller). */
export const MAX_MATCH_CANDIDATES = 100;

/**
 * The agent's approvals a rail request could take (docs/rails/stripe-issuing.md, rule 1):
 * uncaptured, in `currency`, of at least `amount`, inside their capture window, token unused;
 * the smallest first, then the oldest; with whether a reviewer approved each (it was held). Read under the agent's row lock, so two requests never
 * both see one as free.
 */
export async function coveringApprovals(db: DbOrTrx, agentId: string, r: { currency: string; amount: number }, now: Date) {
  return db
    .selectFrom('decisions')
    .select(['id', 'vendor', 'original_decision'])
    .where('agent_id', '=', agentId)
    .where('currency', '=', r.currency)
    .where('amount', '>=', r.amount)
    .where(railMatchable(now))
    .orderBy('amount')
    .orderBy('created_at')
    .orderBy('id')
    .limit(MAX_MATCH_CANDIDATES)
    .execute();
}
