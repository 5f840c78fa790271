import { sql } from 'kysely';
import type { Selectable, AuditRecordsTable, DbOrTrx } from '../db/database.js';
import { newId } from '../ids.js';
import { chainHash, GENESIS_HASH, type ChainedFields } from './audit-chain.js';

export type AuditRow = Selectable<AuditRecordsTable>;

export interface AuditInput {
  accountId: string;
  livemode: boolean;
  type: string;
  actor: { type: 'api_key' | 'reviewer' | 'system'; id: string | null };
  agentId?: string | null;
  decisionId?: string | null;
  decision?: string | null;
  amount?: number | null;
  currency?: string | null;
  vendor?: string | null;
  category?: string | null;
  policyId?: string | null;
  reason?: string | null;
  metadata?: Record<string, unknown>;
}

/**
 * Appends one record to the (account, mode) chain. Must run inside the caller's transaction:
 * the upsert locks the chain head row until commit, so appends to one chain are serialized.
 */
export async function appendAudit(trx: DbOrTrx, input: AuditInput): Promise<AuditRow> {
  const head = await sql<{ sequence: number; head_hash: string }>`
    INSERT INTO audit_chains (account_id, livemode, sequence, head_hash)
    VALUES (${input.accountId}, ${input.livemode}, 0, ${GENESIS_HASH})
    ON CONFLICT (account_id, livemode) DO UPDATE SET sequence = audit_chains.sequence
    RETURNING sequence, head_hash`.execute(trx);
  const { sequence: prevSequence, head_hash: prevHash } = head.rows[0]!;

  const fields: ChainedFields = {
    id: newId('aud'),
    account_id: input.accountId,
    livemode: input.livemode,
    sequence: Number(prevSequence) + 1,
    type: input.type,
    actor_type: input.actor.type,
    actor_id: input.actor.id,
    agent_id: input.agentId ?? null,
    decision_id: input.decisionId ?? null,
    decision: input.decision ?? null,
    amount: input.amount ?? null,
    currency: input.currency ?? null,
    vendor: input.vendor ?? null,
    category: input.category ?? null,
    policy_id: input.policyId ?? null,
    reason: input.reason ?? null,
    metadata: input.metadata ?? {},
    created_at: new Date(),
  };
  const hash = chainHash(prevHash, fields);
  const row: AuditRow = { ...fields, prev_hash: prevHash, hash };

  // One round trip: the record and the new chain head.
  await sql`
    WITH rec AS (
      INSERT INTO audit_records (id, account_id, livemode, sequence, type, actor_type, actor_id,
        agent_id, decision_id, decision, amount, currency, vendor, category, policy_id, reason,
        metadata, created_at, prev_hash, hash)
      VALUES (${row.id}, ${row.account_id}, ${row.livemode}, ${row.sequence}, ${row.type},
        ${row.actor_type}, ${row.actor_id}, ${row.agent_id}, ${row.decision_id}, ${row.decision},
        ${row.amount}, ${row.currency}, ${row.vendor}, ${row.category}, ${row.policy_id},
        ${row.reason}, ${JSON.stringify(row.metadata)}::jsonb, ${row.created_at}, ${row.prev_hash},
        ${row.hash})
      RETURNING 1
    )
    UPDATE audit_chains SET sequence = ${row.sequence}, head_hash = ${hash}
    WHERE account_id = ${input.accountId} AND livemode = ${input.livemode}`.execute(trx);
  return row;
}

export interface AuditFilter {
  accountId: string;
  livemode: boolean;
  agentId?: string | undefined;
  decision?: string | undefined;
  type?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  beforeSequence?: number | undefined;
  limit: number;
}

/** Newest first. `decision` selects decision records only. */
export async function listAudit(db: DbOrTrx, f: AuditFilter): Promise<AuditRow[]> {
  let q = db
    .selectFrom('audit_records')
    .selectAll()
    .where('account_id', '=', f.accountId)
    .where('livemode', '=', f.livemode);
  if (f.agentId) q = q.where('agent_id', '=', f.agentId);
  if (f.decision) q = q.where('type', '=', 'authorization.decision').where('decision', '=', f.decision);
  if (f.type) q = q.where('type', '=', f.type);
  if (f.from) q = q.where('created_at', '>=', f.from);
  if (f.to) q = q.where('created_at', '<', f.to);
  if (f.beforeSequence !== undefined) q = q.where('sequence', '<', f.beforeSequence);
  return q.orderBy('sequence', 'desc').limit(f.limit).execute();
}

/** Oldest first, in sequence order, for chain verification. */
export async function auditChainPage(
  db: DbOrTrx,
  accountId: string,
  livemode: boolean,
  afterSequence: number,
  limit: number,
): Promise<AuditRow[]> {
  return db
    .selectFrom('audit_records')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('livemode', '=', livemode)
    .where('sequence', '>', afterSequence)
    .orderBy('sequence', 'asc')
    .limit(limit)
    .execute();
}

export async function chainHead(db: DbOrTrx, accountId: string, livemode: boolean) {
  return db
    .selectFrom('audit_chains')
    .select(['sequence', 'head_hash'])
    .where('account_id', '=', accountId)
    .where('livemode', '=', livemode)
    .executeTakeFirst();
}
