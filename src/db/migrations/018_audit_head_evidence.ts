import { createHmac } from 'node:crypto';
import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Removing the newest records becomes evident (docs/security.md, "Removed audit records, and keys bound to their database"):
 *
 * - Each chain head carries `head_mac`, an HMAC with AUDIT_HMAC_KEY over its place (account, mode,
 *   sequence, hash). Someone without the key who moves a head back after deleting the records past
 *   it cannot write a MAC for the new place; the sealer then marks the chain (`tampered_at`,
 *   `tampered_sequence`) before writing on, and verification reports it for good.
 * - Triggers keep a head moving forward, and only with a new MAC: no lower sequence, no clearing of
 *   the mark, no DELETE or TRUNCATE (a role that does not own the table cannot disable them).
 * - An index finds a decision's `authorization.decision` record, so verification counts the
 *   decisions that have none in one pass of indexes.
 * - `audit_checkpoint_days`: the daily checkpoint sent to an account's webhook endpoints, once per
 *   account, mode and day.
 *
 * Existing heads get their MAC here, computed with the audit key the migrator hands in (the MACs are
 * frozen below); the key must be the one that sealed the chains, checked against the head records
 * first.
 */
const hmacHex = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest('hex');
const headMac = (key: Buffer, h: { account_id: string; livemode: boolean; sequence: number; head_hash: string }) =>
  hmacHex(key, `head\n${h.account_id}\n${h.livemode}\n${Number(h.sequence)}\n${h.head_hash}`);
const linkHash = (key: Buffer, prevHash: string, sequence: number, mac: string | null) => hmacHex(key, `link\n${prevHash}\n${Number(sequence)}\n${mac ?? ''}`);

/** One statement each: the embedded engine runs a single statement per query. */
const statements = [
  `CREATE FUNCTION audit_chains_forward_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_chains moves forward only (% refused)', TG_OP;
END;
$$`,
  // A head moves forward only, and only with a new MAC: the sealer of the version before this one
  // (still running during a deploy) cannot move a head without signing it, so its records wait
  // for a current sealer instead of leaving heads that would read as tampered. The mark stays.
  // IS NOT FALSE: a condition that came out unknown refuses.
  `CREATE TRIGGER audit_chains_no_rewind BEFORE UPDATE ON audit_chains FOR EACH ROW
     WHEN ((NEW.sequence < OLD.sequence OR NEW.account_id <> OLD.account_id OR NEW.livemode <> OLD.livemode
            OR ((NEW.sequence, NEW.head_hash) IS DISTINCT FROM (OLD.sequence, OLD.head_hash) AND NEW.head_mac IS NOT DISTINCT FROM OLD.head_mac)
            OR (OLD.tampered_at IS NOT NULL AND (NEW.tampered_at, NEW.tampered_sequence) IS DISTINCT FROM (OLD.tampered_at, OLD.tampered_sequence))) IS NOT FALSE)
     EXECUTE FUNCTION audit_chains_forward_only()`,
  `CREATE TRIGGER audit_chains_no_delete BEFORE DELETE ON audit_chains FOR EACH ROW EXECUTE FUNCTION audit_chains_forward_only()`,
  `CREATE TRIGGER audit_chains_no_truncate BEFORE TRUNCATE ON audit_chains FOR EACH STATEMENT EXECUTE FUNCTION audit_chains_forward_only()`,
  // IF NOT EXISTS: a large deployment may have built it beforehand with CREATE INDEX CONCURRENTLY (docs/operations.md).
  `CREATE INDEX IF NOT EXISTS audit_records_decision_idx ON audit_records (account_id, livemode, decision_id) WHERE type = 'authorization.decision'`,
  `CREATE TABLE audit_checkpoint_days (
  account_id text NOT NULL REFERENCES accounts(id),
  livemode boolean NOT NULL,
  day text NOT NULL CHECK (day ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
  sequence bigint NOT NULL,
  head_hash text NOT NULL,
  event_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, livemode, day)
)`,
];

interface HeadRow {
  account_id: string;
  livemode: boolean;
  sequence: number;
  head_hash: string;
  prev_hash: string | null;
  hash: string | null;
  mac: string | null;
}

async function macExistingHeads(db: Kysely<unknown>, auditKey: () => Buffer | undefined): Promise<void> {
  const heads = (
    await sql<HeadRow>`SELECT c.account_id, c.livemode, c.sequence, c.head_hash, r.prev_hash, r.hash, r.mac
      FROM audit_chains c LEFT JOIN audit_records r ON r.account_id = c.account_id AND r.livemode = c.livemode AND r.sequence = c.sequence`.execute(db)
  ).rows;
  if (heads.length === 0) return;
  const key = auditKey();
  if (!key) {
    throw new Error('018_audit_head_evidence signs the existing audit chain heads with AUDIT_HMAC_KEY: run the migration with the key the service uses.');
  }
  const sealed = heads.filter((h) => Number(h.sequence) > 0);
  // The key that sealed the chains links their head records; any other key links none of them.
  if (sealed.length > 0 && !sealed.some((h) => h.prev_hash !== null && h.hash === linkHash(key, h.prev_hash, h.sequence, h.mac))) {
    throw new Error('018_audit_head_evidence: AUDIT_HMAC_KEY is not the key that sealed the existing audit chains; run the migration with the key the service uses.');
  }
  for (const h of heads) {
    await sql`UPDATE audit_chains SET head_mac = ${headMac(key, h)} WHERE account_id = ${h.account_id} AND livemode = ${h.livemode}`.execute(db);
  }
}

async function up(db: Kysely<unknown>, auditKey: () => Buffer | undefined): Promise<void> {
  await sql.raw('ALTER TABLE audit_chains ADD COLUMN head_mac text').execute(db);
  await sql.raw('ALTER TABLE audit_chains ADD COLUMN tampered_at timestamptz').execute(db);
  await sql.raw('ALTER TABLE audit_chains ADD COLUMN tampered_sequence bigint').execute(db);
  await macExistingHeads(db, auditKey);
  // A head without a MAC could only read as tampered: an older sealer's new head is refused instead.
  await sql.raw('ALTER TABLE audit_chains ALTER COLUMN head_mac SET NOT NULL').execute(db);
  for (const statement of statements) await sql.raw(statement).execute(db);
}

async function down(db: Kysely<unknown>): Promise<void> {
  for (const s of [
    'DROP TABLE audit_checkpoint_days',
    'DROP INDEX audit_records_decision_idx',
    'DROP TRIGGER audit_chains_no_truncate ON audit_chains',
    'DROP TRIGGER audit_chains_no_delete ON audit_chains',
    'DROP TRIGGER audit_chains_no_rewind ON audit_chains',
    'DROP FUNCTION audit_chains_forward_only()',
    'ALTER TABLE audit_chains DROP COLUMN tampered_sequence',
    'ALTER TABLE audit_chains DROP COLUMN tampered_at',
    'ALTER TABLE audit_chains DROP COLUMN head_mac',
  ]) await sql.raw(s).execute(db);
}

/** The migration, given where the process keeps its audit key (undefined while none is loaded). */
export function auditHeadEvidenceMigration(auditKey: () => Buffer | undefined): Migration {
  return { up: (db) => up(db, auditKey), down };
}
