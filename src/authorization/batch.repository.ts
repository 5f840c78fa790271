import { CompiledQuery, sql } from 'kysely';
import type { AgentSpendTable, DbOrTrx, Selectable } from '../db/database.js';
import { preparedSql } from '../db/prepared.js';
import { compiledOnce } from '../db/statements.js';
import type { StoredResponse } from '../kernel/idempotency.js';
import { spendState } from '../decisions/spend.repository.js';
import { railMatchable } from '../decisions/decisions.repository.js';
import type { DecisionRow } from '../decisions/decision.view.js';
import type { SpendState } from '../policies/evaluate.js';
import type { BoundPolicy } from './authorization.repository.js';

/**
 * The statements of a group commit (docs/operations.md, "Group commit"): a batch of decisions locks
 * and reads its agents once, and writes each table's rows with one statement whose text does not
 * depend on how many rows it carries (the rows go as one JSON parameter), so every batch runs the
 * same few prepared statements.
 */

/**
 * Locks the agents' rows in id order (every batch and every process takes them in one order, so two
 * batches never deadlock) and reads each with its bound, not deleted policy. Only an agent of the
 * account and mode that names it is read or locked: naming another account's agent touches nothing.
 * Also returns the transaction's id (`txid_current()`, in the same round trip), so a COMMIT whose
 * answer is lost can be settled by asking the database (src/db/commit-outcome.ts); undefined when
 * no agent was locked, and then the batch writes nothing.
 */
export async function lockAgentsWithPolicies(trx: DbOrTrx, agents: readonly { id: string; accountId: string; livemode: boolean }[]) {
  const { rows } = await trx.executeQuery<LockedAgentRow>(
    lockAgentsQuery(
      trx,
      agents.map((a) => a.id),
      agents.map((a) => a.accountId),
      agents.map((a) => a.livemode),
    ),
  );
  const txid = rows[0] === undefined ? undefined : Number(rows[0].txid);
  return { agents: new Map(rows.map(({ bound_policy: policy, txid: _, ...agent }) => [agent.id, { agent, policy: policy ?? undefined }])), txid };
}

const lockAgentsBuilder = (db: DbOrTrx, ids: string[], accounts: string[], modes: boolean[]) =>
  db
    .selectFrom('agents as a')
    .leftJoin('policies as p', (j) => j.onRef('p.id', '=', 'a.policy_id').on('p.deleted_at', 'is', null))
    .selectAll('a')
    .select(sql<BoundPolicy | null>`CASE WHEN p.id IS NULL THEN NULL ELSE to_jsonb(p) - ARRAY['created_at', 'updated_at', 'deleted_at'] END`.as('bound_policy'))
    .select(sql<number>`txid_current()`.as('txid'))
    .where(sql<boolean>`(a.id, a.account_id, a.livemode) IN (SELECT * FROM unnest(${ids}::text[], ${accounts}::text[], ${modes}::boolean[]))`)
    .orderBy('a.id')
    .forUpdate('a');
type LockedAgentRow = Awaited<ReturnType<ReturnType<typeof lockAgentsBuilder>['executeTakeFirstOrThrow']>>;
/** Built once: every batch runs it. */
const lockAgentsQuery = compiledOnce(lockAgentsBuilder);

/** The agents' month and day spend; read by its own statement after the lock, so it is the latest committed. */
export async function readSpends(trx: DbOrTrx, agentIds: readonly string[], periods: { month: string; day: string }): Promise<Map<string, SpendState>> {
  const { rows } = await trx.executeQuery<Selectable<AgentSpendTable>>(spendsQuery(trx, [...agentIds], [periods.month, periods.day]));
  return new Map(agentIds.map((id) => [id, spendState(periods, (p) => rows.find((r) => r.agent_id === id && r.period === p))]));
}

const spendsQuery = compiledOnce((db: DbOrTrx, ids: string[], periods: string[]) =>
  db
    .selectFrom('agent_spend')
    .selectAll()
    .where(sql<boolean>`agent_id = any(${ids}::text[])`)
    .where(sql<boolean>`period = any(${periods}::text[])`),
);

/** Rows for one table, each with the same keys; objects and arrays are JSON values of jsonb columns. */
type Rows = readonly Record<string, unknown>[];

const texts = new Map<string, string>();

/** A statement text built once per table, column list and tail. */
function textOf(key: string, build: () => string): string {
  let text = texts.get(key);
  if (text === undefined) {
    text = preparedSql(build());
    texts.set(key, text);
  }
  return text;
}

const columnList = (rows: Rows) => Object.keys(rows[0]!).map((c) => `"${c}"`).join(', ');

/** `INSERT INTO table (columns) SELECT columns FROM json_populate_recordset(...)`: the table's own types parse each value. */
export function insertJsonRows(table: string, rows: Rows, tail = ''): CompiledQuery | undefined {
  if (rows.length === 0) return undefined;
  const columns = columnList(rows);
  const text = textOf(`i\0${table}\0${columns}\0${tail}`, () => `insert into "${table}" (${columns}) select ${columns} from json_populate_recordset(null::"${table}", $1::json)${tail ? ` ${tail}` : ''}`);
  return CompiledQuery.raw(text, [JSON.stringify(rows)]);
}

/** Adds each agent's count of decisions to its `decision_seq` (what other processes' unlocked writes check). */
export function countDecisions(byAgent: ReadonlyMap<string, number>): CompiledQuery | undefined {
  if (byAgent.size === 0) return undefined;
  const text = textOf('count', () => `update "agents" set "decision_seq" = "agents"."decision_seq" + v.n from json_to_recordset($1::json) as v(id text, n integer) where "agents"."id" = v.id`);
  return CompiledQuery.raw(text, [JSON.stringify([...byAgent].map(([id, n]) => ({ id, n })))]);
}

/** Adds to month and day counters, one row per agent and period (a statement may change a row once). */
export function addSpend(rows: readonly { agent_id: string; period: string; approved: number; reserved: number }[]) {
  return insertJsonRows(
    'agent_spend',
    rows,
    'on conflict ("agent_id", "period") do update set "approved" = "agent_spend"."approved" + "excluded"."approved", "reserved" = "agent_spend"."reserved" + "excluded"."reserved"',
  );
}

/**
 * Adds a net decrease (a capture's release) to counters that exist: an insert's CHECK (approved ≥ 0)
 * would refuse the negative row before its conflict turned it into an update.
 */
export function lowerSpend(rows: readonly { agent_id: string; period: string; approved: number; reserved: number }[]): CompiledQuery | undefined {
  if (rows.length === 0) return undefined;
  const text = textOf(
    'lower',
    () => `update "agent_spend" as s set "approved" = s."approved" + v.approved, "reserved" = s."reserved" + v.reserved
      from json_to_recordset($1::json) as v(agent_id text, period text, approved bigint, reserved bigint) where s.agent_id = v.agent_id and s.period = v.period`,
  );
  return CompiledQuery.raw(text, [JSON.stringify(rows)]);
}

/** Adds billable checks, one row per account, month and shard. */
export function addChecks(rows: readonly { account_id: string; month: string; shard: number; checks: number }[]) {
  return insertJsonRows('usage_counters', rows, 'on conflict ("account_id", "month", "shard") do update set "checks" = "usage_counters"."checks" + "excluded"."checks"');
}

/** Stores each request's response under its claimed Idempotency-Key, as `completeKeyStatement` does one. */
export function completeKeys(rows: readonly StoredResponse[]): CompiledQuery | undefined {
  if (rows.length === 0) return undefined;
  const text = textOf(
    'keys',
    // A key another claim holds aborts the batch (SA410, checked in the SET, which only the key's
    // own row reaches): its members are then decided one by one, and that one refused.
    () => `update "idempotency_keys" as k set "status" = case when spend_auth_claim_held(k.claim_id is not distinct from v.claim_id) then $2 end, "response_status" = v.response_status, "response_type" = v.response_type, "response_body" = v.response_body
      from json_populate_recordset(null::"idempotency_keys", $1::json) as v
      where k.account_id = v.account_id and k.livemode = v.livemode and k.api_key_id = v.api_key_id and k.key = v.key and k.status = $3`,
  );
  return CompiledQuery.raw(text, [JSON.stringify(rows), 'completed', 'in_progress']);
}

/** A named savepoint of a batch's transaction: set, released, or rolled back to. */
const savepointNamed = (name: 'batch_member' | 'batch_pass') => ({
  set: (trx: DbOrTrx) => sql`SAVEPOINT ${sql.raw(name)}`.execute(trx),
  release: (trx: DbOrTrx) => sql`RELEASE SAVEPOINT ${sql.raw(name)}`.execute(trx),
  rollback: (trx: DbOrTrx) => sql`ROLLBACK TO SAVEPOINT ${sql.raw(name)}`.execute(trx),
});

/** Savepoints around a batch member decided by statements of its own: its failure undoes only its writes. */
export const savepoint = savepointNamed('batch_member');

/** The savepoint of one pass over a batch: undone when a member is dropped at the write. */
export const batchPass = savepointNamed('batch_pass');

/** One rail request of a batch, as rule 1's match reads for it. */
export interface RailCandidateQuery {
  agentId: string;
  currency: string;
  amount: number;
}

/**
 * For each rail request, the approvals rule 1 could take (as `coveringApprovals` reads them, for
 * one request): its agent's still usable approvals in its currency of at least its amount, the
 * smallest first, then the oldest; `limit` each. One statement for the whole batch, read under
 * the batch's agent locks.
 */
/** What rule 1 reads of an approval it could take: enough to choose it and to count its release (the row itself is read once chosen). */
export type RailCandidate = Pick<DecisionRow, 'id' | 'vendor' | 'original_decision' | 'amount' | 'currency' | 'created_at' | 'capture_expires_at' | 'spend_month' | 'spend_day'>;

export async function readRailCandidates(trx: DbOrTrx, requests: readonly RailCandidateQuery[], now: Date, limit: number): Promise<RailCandidate[][]> {
  if (requests.length === 0) return [];
  const { rows } = await trx.executeQuery<RailCandidate & { request_n: string | number }>(
    railCandidatesQuery(
      trx,
      requests.map((r) => r.agentId),
      requests.map((r) => r.currency),
      requests.map((r) => r.amount),
      now,
      limit,
    ),
  );
  const byRequest: RailCandidate[][] = requests.map(() => []);
  for (const { request_n: n, ...row } of rows) byRequest[Number(n) - 1]!.push(row);
  return byRequest;
}

/** Approvals by id, whole (the ones rule 1 chose in a batch). */
export async function readDecisionsById(trx: DbOrTrx, ids: readonly string[]): Promise<Map<string, DecisionRow>> {
  const { rows } = await trx.executeQuery<DecisionRow>(decisionsByIdQuery(trx, [...ids]));
  return new Map(rows.map((r) => [r.id, r]));
}

const railCandidatesQuery = compiledOnce((db: DbOrTrx, agents: string[], currencies: string[], amounts: number[], now: Date, limit: number) =>
  db
    .selectFrom(sql<{ agent_id: string; currency: string; amount: number; n: number }>`(select * from unnest(${agents}::text[], ${currencies}::text[], ${amounts}::bigint[]) with ordinality as u(agent_id, currency, amount, n))`.as('r'))
    .innerJoinLateral(
      (eb) =>
        eb
          .selectFrom('decisions')
          .select(['id', 'vendor', 'original_decision', 'amount', 'currency', 'created_at', 'capture_expires_at', 'spend_month', 'spend_day'])
          .whereRef('decisions.agent_id', '=', 'r.agent_id')
          .whereRef('decisions.currency', '=', 'r.currency')
          .whereRef('decisions.amount', '>=', 'r.amount')
          .where(railMatchable(now))
          .orderBy('decisions.amount')
          .orderBy('decisions.created_at')
          .orderBy('decisions.id')
          .limit(limit)
          .as('d'),
      (join) => join.onTrue(),
    )
    .selectAll('d')
    .select('r.n as request_n')
    .orderBy('r.n')
    .orderBy('d.amount')
    .orderBy('d.created_at')
    .orderBy('d.id'),
);

const decisionsByIdQuery = compiledOnce((db: DbOrTrx, ids: string[]) => db.selectFrom('decisions').selectAll().where(sql<boolean>`id = any(${ids}::text[])`));

/**
 * Captures approvals a batch's rail requests took (rows as `capturedRow` made them: a rail's
 * capture carries no request signature), each only if
 * still uncaptured with its token unused: run as the batch's precondition with one row expected
 * per capture, so an approval changed behind the batch's back (a token consumed without the
 * agent's lock) fails the batch, which then decides each request again on its own.
 */
export function captureTaken(rows: readonly DecisionRow[]): CompiledQuery | undefined {
  if (rows.length === 0) return undefined;
  const text = textOf(
    'captures',
    () => `update "decisions" as d set "capture_status" = $2, "captured_amount" = v.captured_amount, "captured_at" = v.captured_at, "capture_metadata" = $4::jsonb, "capture_signature" = null,
      "capture_resolved_at" = v.capture_resolved_at, "token_consumed_at" = v.token_consumed_at, "updated_at" = v.updated_at
      from json_populate_recordset(null::"decisions", $1::json) as v
      where d.id = v.id and d.capture_status = $3 and d.token_consumed_at is null returning d.id`,
  );
  const values = rows.map((r) => ({ id: r.id, captured_amount: r.captured_amount, captured_at: r.captured_at, capture_resolved_at: r.capture_resolved_at, token_consumed_at: r.token_consumed_at, updated_at: r.updated_at }));
  return CompiledQuery.raw(text, [JSON.stringify(values), 'captured', 'uncaptured', '{}']);
}
