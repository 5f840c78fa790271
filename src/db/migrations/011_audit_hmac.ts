import { createHash, createHmac } from 'node:crypto';
import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The audit chain becomes keyed (docs/api.md, "Audit log"): each record carries `mac`, an HMAC of
 * its content with the server's AUDIT_HMAC_KEY written with the record, and `hash` becomes an HMAC
 * link. Anyone could recompute the old SHA-256 chain, so a row inserted by hand was sealed and
 * verified.
 *
 * Existing chains are re-sealed once, here: a chain is re-sealed record by record only as far as
 * its old SHA-256 chain verifies, so the new key never vouches for a record the old chain did not.
 * Records still unsealed get their MAC and are sealed by the sealer as usual. The append-only
 * trigger allows this one rewrite only while the migration runs.
 */

/*
 * The chain's record and link as this migration writes them, frozen here (a migration imports
 * nothing live): the audit chain's code may change later; what this migration wrote may not.
 */
const GENESIS_HASH = '0'.repeat(64);

interface ChainedFields {
  id: string;
  account_id: string;
  livemode: boolean;
  sequence: number;
  type: string;
  actor_type: 'api_key' | 'reviewer' | 'operator' | 'system';
  actor_id: string | null;
  agent_id: string | null;
  decision_id: string | null;
  decision: string | null;
  amount: number | null;
  currency: string | null;
  vendor: string | null;
  category: string | null;
  policy_id: string | null;
  reason: string | null;
  metadata: Record<string, unknown>;
  created_at: Date;
}

/** JSON with object keys sorted at every depth. */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value as Record<string, unknown>)
    .sort()
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

const hmacHex = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest('hex');

/** Every field the service writes (canonicalJson sorts them). */
const contentOf = (r: Omit<ChainedFields, 'sequence'>) => ({
  id: r.id,
  account_id: r.account_id,
  livemode: r.livemode,
  type: r.type,
  actor_type: r.actor_type,
  actor_id: r.actor_id,
  agent_id: r.agent_id,
  decision_id: r.decision_id,
  decision: r.decision,
  amount: r.amount === null ? null : Number(r.amount),
  currency: r.currency,
  vendor: r.vendor,
  category: r.category,
  policy_id: r.policy_id,
  reason: r.reason,
  metadata: r.metadata,
  created_at: r.created_at.toISOString(),
});

/** The MAC covers the content; the link covers the place. */
const recordMac = (key: Buffer, record: Omit<ChainedFields, 'sequence'>): string => hmacHex(key, `record\n${canonicalJson(contentOf(record))}`);
const chainHash = (key: Buffer, prevHash: string, sequence: number, mac: string | null): string => hmacHex(key, `link\n${prevHash}\n${Number(sequence)}\n${mac ?? ''}`);

const CONTENT = `id, account_id, livemode, type, actor_type, actor_id, agent_id, decision_id, decision, amount, currency, vendor, category, policy_id, reason, metadata, created_at`;
const same = (cols: string) => `(${cols.split(', ').map((c) => `OLD.${c}`).join(', ')}) IS NOT DISTINCT FROM (${cols.split(', ').map((c) => `NEW.${c}`).join(', ')})`;

const guard = (allowed: string) => `CREATE OR REPLACE FUNCTION audit_records_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND (${allowed}) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'audit_records is append-only (% refused)', TG_OP;
END;
$$`;

/** The one change allowed from now on: sealing an unsealed record, once, touching nothing else (its MAC included). */
const SEALING_ONLY = guard(
  `OLD.hash IS NULL AND OLD.sequence IS NULL AND NEW.hash IS NOT NULL AND NEW.sequence IS NOT NULL AND ${same(`${CONTENT}, mac`)}`,
);
/** During the re-seal only: a record without a MAC gets one and a new link, its content and place unchanged. */
const RESEAL_WINDOW = guard(`OLD.mac IS NULL AND ${same(`${CONTENT}, sequence`)}`);

const BATCH = 1_000;

type Row = Omit<ChainedFields, 'sequence'> & { sequence: number | null; prev_hash: string | null; hash: string | null };

/** The chain as it was before this migration, frozen here: hash = sha256(prev_hash || canonical record). */
function legacyHash(prev: string, r: Row): string {
  return createHash('sha256')
    .update(prev + canonicalJson({ ...contentOf(r), sequence: Number(r.sequence) }))
    .digest('hex');
}

async function applyBatch(db: Kysely<unknown>, rows: Array<{ id: string; mac: string; prev_hash: string | null; hash: string | null }>) {
  if (rows.length === 0) return;
  await sql`
    UPDATE audit_records AS r SET mac = v.mac, prev_hash = v.prev_hash, hash = v.hash
    FROM (VALUES ${sql.join(rows.map((x) => sql`(${x.id}, ${x.mac}, ${x.prev_hash}, ${x.hash})`))}) AS v(id, mac, prev_hash, hash)
    WHERE r.id = v.id`.execute(db);
}

async function resealChain(db: Kysely<unknown>, key: Buffer, accountId: string, livemode: boolean): Promise<void> {
  let legacyPrev = GENESIS_HASH;
  let prev = GENESIS_HASH;
  let expected = 1;
  for (;;) {
    const rows = (
      await sql<Row>`SELECT * FROM audit_records WHERE account_id = ${accountId} AND livemode = ${livemode} AND sequence >= ${expected}
        ORDER BY sequence LIMIT ${BATCH}`.execute(db)
    ).rows;
    const updates: Array<{ id: string; mac: string; prev_hash: string; hash: string }> = [];
    let broken = false;
    for (const r of rows) {
      if (Number(r.sequence) !== expected || r.prev_hash !== legacyPrev || r.hash !== legacyHash(legacyPrev, r)) {
        broken = true;
        break;
      }
      const mac = recordMac(key, r);
      const hash = chainHash(key, prev, expected, mac);
      updates.push({ id: r.id, mac, prev_hash: prev, hash });
      legacyPrev = r.hash;
      prev = hash;
      expected += 1;
    }
    await applyBatch(db, updates);
    if (broken) return; // The rest keeps its old links and fails verification from the first that did not verify.
    if (rows.length < BATCH) break;
  }
  await sql`UPDATE audit_chains SET head_hash = ${prev} WHERE account_id = ${accountId} AND livemode = ${livemode}
    AND head_hash = ${legacyPrev} AND sequence = ${expected - 1}`.execute(db);
}

async function up(db: Kysely<unknown>, auditKey: () => Buffer | undefined): Promise<void> {
  await sql.raw('ALTER TABLE audit_records ADD COLUMN mac text').execute(db);
  const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM audit_records`.execute(db);
  if (Number(rows[0]!.n) > 0) {
    const key = auditKey();
    if (!key) {
      throw new Error('011_audit_hmac re-seals the existing audit chains with AUDIT_HMAC_KEY: run the migration with the key the service will use.');
    }
    await sql.raw(RESEAL_WINDOW).execute(db);
    const chains = (await sql<{ account_id: string; livemode: boolean }>`SELECT DISTINCT account_id, livemode FROM audit_records WHERE sequence IS NOT NULL`.execute(db)).rows;
    for (const c of chains) await resealChain(db, key, c.account_id, c.livemode);
    // Written by the service before the key existed and not yet sealed: they get the MAC they would have been written with.
    for (;;) {
      const unsealed = (await sql<Row>`SELECT * FROM audit_records WHERE hash IS NULL AND mac IS NULL LIMIT ${BATCH}`.execute(db)).rows;
      await applyBatch(db, unsealed.map((r) => ({ id: r.id, mac: recordMac(key, r), prev_hash: null, hash: null })));
      if (unsealed.length < BATCH) break;
    }
  }
  await sql.raw(SEALING_ONLY).execute(db);
}

async function down(): Promise<void> {
  throw new Error('011_audit_hmac cannot be reverted: the old chain was not keyed');
}

/** The migration, given where the process keeps its audit key (undefined while none is loaded). */
export function auditHmacMigration(auditKey: () => Buffer | undefined): Migration {
  return { up: (db) => up(db, auditKey), down };
}
