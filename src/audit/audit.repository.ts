import { CompiledQuery, sql } from 'kysely';
import type { Selectable, AuditRecordsTable, Db, DbOrTrx, DecisionsTable, DecisionTerms } from '../db/database.js';
import { newId } from '../kernel/ids.js';
import { insertRows } from '../db/statements.js';
import { preparedSql } from '../db/prepared.js';
import { chainHash, GENESIS_HASH, headMac, recordMac } from './audit-chain.js';
import { auditHmacKey } from '../kernel/audit-key.js';
import { inScope } from '../db/scope.js';

export type AuditRow = Selectable<AuditRecordsTable>;
/** A record as written, before the database numbers it; its MAC is computed as it is inserted. */
export type NewAuditRow = Omit<AuditRow, 'insert_order' | 'mac'>;

export interface AuditInput {
  accountId: string;
  livemode: boolean;
  type: string;
  actor: { type: 'api_key' | 'reviewer' | 'operator' | 'system'; id: string | null };
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
  /** Thumbprint of the agent key that signed the request (DECISIONS §19); `signedByOf(caller)`. */
  signedBy?: string | null;
  /** A decision record's terms (DECISIONS §7), sealed with it. */
  terms?: DecisionTerms | null;
}

/** The fields of an audit record that describe a decision, as the decision row holds them. */
export function decisionAuditFields(row: Selectable<DecisionsTable>) {
  return {
    accountId: row.account_id,
    livemode: row.livemode,
    agentId: row.agent_id,
    decisionId: row.id,
    decision: row.decision,
    amount: row.amount,
    currency: row.currency,
    vendor: row.vendor,
    category: row.category,
    policyId: row.policy_id,
  } satisfies Partial<AuditInput>;
}

/**
 * Writes one record, unsealed, in the caller's transaction: it commits (or not) with the change it
 * describes, and takes no lock. `sealChain` later gives it its sequence and hash.
 */
export async function appendAudit(trx: DbOrTrx, input: AuditInput): Promise<NewAuditRow> {
  const row = auditRecord(input);
  await auditInsert(trx, row).execute();
  return row;
}

/** The unsealed record `appendAudit` writes, for callers that write it together with other rows. */
export function auditRecord(input: AuditInput): NewAuditRow {
  return {
    id: newId('aud'),
    account_id: input.accountId,
    livemode: input.livemode,
    sequence: null,
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
    // Always set, null or not: rows written together share the first row's column list.
    signed_by: input.signedBy ?? null,
    terms: input.terms ?? null,
    prev_hash: null,
    hash: null,
  };
}

/** The insert carries the record's MAC: only a process holding the audit key can write a record that verifies. */
export function auditInsert(db: DbOrTrx, row: NewAuditRow) {
  return db.insertInto('audit_records').values(auditValues(row));
}

/** The same insert as a statement built once per shape, for the authorize path. */
export const auditInsertStatement = (row: NewAuditRow) => insertRows('audit_records', [auditValues(row)]);

/**
 * One row's values. An unsigned record leaves `signed_by` out, and one without terms `terms` (the
 * columns' default is null): the statement then also writes to a database migrated before 026 or
 * 030, as the key-binding checks do on older schemas. Rows written together (`auditJsonValues`) keep it, so they share one column list.
 */
const auditValues = (row: NewAuditRow) => {
  const { signed_by, terms, ...rest } = row;
  return {
    ...rest,
    ...(signed_by === null ? {} : { signed_by }),
    ...(terms === null ? {} : { terms: JSON.stringify(terms) }),
    metadata: JSON.stringify(row.metadata),
    mac: recordMac(auditHmacKey(), row),
  };
};

/** The same values with the metadata as a JSON value, for rows written as one JSON parameter. */
export const auditJsonValues = (row: NewAuditRow) => ({ ...row, mac: recordMac(auditHmacKey(), row) });

export const SEAL_BATCH = 1_000;

const SEAL_UPDATE = preparedSql(
  `UPDATE audit_records AS r SET sequence = v.sequence, prev_hash = v.prev_hash, hash = v.hash
   FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[]) AS v(id, sequence, prev_hash, hash)
   WHERE r.id = v.id`,
);

/** A chain head found moved by someone without the audit key (the records past it removed, or the head row deleted). */
export interface ChainCut {
  accountId: string;
  livemode: boolean;
  /** Where the moved head pointed. */
  sequence: number;
  headHash: string;
  /** False when the chain was already marked tampered before (a second cut). */
  firstTime: boolean;
}

/**
 * Seals the committed, unsealed records of one chain, oldest first, continuing from its head.
 * The head row is locked, so concurrent sealers of one chain take turns; only committed records
 * are visible, so a transaction still in flight is simply sealed by a later round. A head moved
 * without the key is marked tampered (for good) before anything is written after it.
 */
export async function sealChain(db: Db, accountId: string, livemode: boolean, onCut?: (cut: ChainCut) => void): Promise<number> {
  let sealed = 0;
  for (;;) {
    const n = await db.transaction().execute(async (trx) => {
      const key = auditHmacKey();
      let { sequence, head_hash: prev } = await lockAuthenticHead(trx, key, accountId, livemode, onCut);
      // Only what linking needs: the MAC already covers the content, which the sealer never reads.
      const pending = await trx
        .selectFrom('audit_records')
        .select(['id', 'mac'])
        .$call(inScope({ accountId, livemode }))
        .where('hash', 'is', null)
        .orderBy('insert_order')
        .limit(SEAL_BATCH)
        .execute();
      if (pending.length === 0) return 0;
      // A row someone wrote past the head by hand must not wedge sealing (a unique violation on
      // every round): continue after it. Verification reports it; the sealer never vouches for it.
      const beyond = await trx
        .selectFrom('audit_records')
        .select(['sequence', 'hash'])
        .$call(inScope({ accountId, livemode }))
        .where('sequence', '>', sequence)
        .orderBy('sequence', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (beyond) {
        sequence = Number(beyond.sequence);
        prev = beyond.hash ?? prev;
      }
      const sealedRows = pending.map((r) => {
        sequence += 1;
        const hash = chainHash(key, prev, sequence, r.mac);
        const out = { id: r.id, sequence, prev_hash: prev, hash };
        prev = hash;
        return out;
      });
      // One statement text for any batch size (four arrays), so it is prepared once per connection.
      await trx.executeQuery(
        CompiledQuery.raw(SEAL_UPDATE, [sealedRows.map((x) => x.id), sealedRows.map((x) => x.sequence), sealedRows.map((x) => x.prev_hash), sealedRows.map((x) => x.hash)]),
      );
      await trx
        .updateTable('audit_chains')
        .set({ sequence, head_hash: prev, head_mac: headMac(key, { account_id: accountId, livemode, sequence, head_hash: prev }) })
        .$call(inScope({ accountId, livemode }))
        .execute();
      return pending.length;
    });
    sealed += n;
    if (n < SEAL_BATCH) return sealed;
  }
}

/**
 * The chain's head, locked, created at the genesis hash for a new chain. A head whose MAC is not
 * the key's MAC of its place, or a genesis head of a chain that already has sealed records (its
 * row deleted), was moved without the key: the chain is marked tampered at that place (once; the
 * mark stays) and its head signed there, so records written from now on still chain and verify
 * up to the mark, and verification reports the chain invalid for good.
 */
async function lockAuthenticHead(trx: DbOrTrx, key: Buffer, accountId: string, livemode: boolean, onCut?: (cut: ChainCut) => void) {
  const lock = () =>
    trx.selectFrom('audit_chains').select(['sequence', 'head_hash', 'head_mac', 'tampered_at']).$call(inScope({ accountId, livemode })).forUpdate().executeTakeFirst();
  let head = await lock();
  if (!head) {
    const genesis = { account_id: accountId, livemode, sequence: 0, head_hash: GENESIS_HASH };
    await trx
      .insertInto('audit_chains')
      .values({ ...genesis, head_mac: headMac(key, genesis) })
      .onConflict((oc) => oc.columns(['account_id', 'livemode']).doNothing())
      .execute();
    head = (await lock())!;
  }
  const place = { account_id: accountId, livemode, sequence: Number(head.sequence), head_hash: head.head_hash };
  const mac = headMac(key, place);
  // A genesis head already marked is not found again each time the chain is sealed.
  const moved = head.head_mac !== mac || (place.sequence === 0 && head.tampered_at === null && (await hasSealedRecords(trx, accountId, livemode)));
  if (moved) {
    const firstTime = head.tampered_at === null;
    await trx
      .updateTable('audit_chains')
      .set({ head_mac: mac, ...(firstTime ? { tampered_at: new Date(), tampered_sequence: place.sequence } : {}) })
      .$call(inScope({ accountId, livemode }))
      .execute();
    onCut?.({ accountId, livemode, sequence: place.sequence, headHash: place.head_hash, firstTime });
  }
  return place;
}

const hasSealedRecords = async (db: DbOrTrx, accountId: string, livemode: boolean) =>
  (await db.selectFrom('audit_records').select('id').$call(inScope({ accountId, livemode })).where('sequence', 'is not', null).limit(1).executeTakeFirst()) !== undefined;

/**
 * The chains that have unsealed records, one index probe each: a skip scan of the unsealed-records
 * index, chain after chain. (A plain DISTINCT may be planned as a scan of the whole table, which
 * grows with every record ever written and runs several times a second.)
 */
export const CHAINS_WITH_UNSEALED = sql<{ account_id: string; livemode: boolean }>`
  WITH RECURSIVE chains AS (
    (SELECT account_id, livemode FROM audit_records WHERE hash IS NULL ORDER BY account_id, livemode LIMIT 1)
    UNION ALL
    SELECT n.account_id, n.livemode FROM chains c CROSS JOIN LATERAL (
      SELECT r.account_id, r.livemode FROM audit_records r
      WHERE r.hash IS NULL AND (r.account_id, r.livemode) > (c.account_id, c.livemode)
      ORDER BY r.account_id, r.livemode LIMIT 1) n
  )
  SELECT account_id, livemode FROM chains`;

/** Records committed and not yet sealed, and the age of the oldest (the sealer's lag). */
export async function unsealedLag(db: DbOrTrx, now: Date): Promise<{ records: number; oldest_age_seconds: number }> {
  const row = await db
    .selectFrom('audit_records')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('created_at').as('oldest')])
    .where('hash', 'is', null)
    .executeTakeFirstOrThrow();
  const oldest = row.oldest ? new Date(row.oldest as unknown as string) : undefined;
  return { records: Number(row.n), oldest_age_seconds: oldest ? Math.max(0, Math.round((now.getTime() - oldest.getTime()) / 1000)) : 0 };
}

/** Seals every chain that has unsealed records; the background sealer calls this. */
export async function sealAllChains(db: Db, onCut?: (cut: ChainCut) => void): Promise<number> {
  const chains = (await CHAINS_WITH_UNSEALED.execute(db)).rows;
  let sealed = 0;
  for (const c of chains) sealed += await sealChain(db, c.account_id, c.livemode, onCut);
  return sealed;
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
    .$call(inScope(f));
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
    .$call(inScope({ accountId, livemode }))
    .where('sequence', '>', afterSequence)
    .orderBy('sequence', 'asc')
    .limit(limit)
    .execute();
}

export async function chainHead(db: DbOrTrx, accountId: string, livemode: boolean) {
  return db
    .selectFrom('audit_chains')
    .select(['sequence', 'head_hash', 'head_mac', 'tampered_at', 'tampered_sequence'])
    .$call(inScope({ accountId, livemode }))
    .executeTakeFirst();
}
