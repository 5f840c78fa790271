import { sql, type Kysely } from 'kysely';

/**
 * Agents that sign their requests (DECISIONS §19): their public keys, the key directories some of
 * them are tied to, the nonces already seen, the policy flag that makes signing mandatory, and where
 * a signature is recorded (decisions, captures, audit records).
 *
 * - A key's material never changes and a revoked key never comes back: an UPDATE may only move
 *   `status` active → revoked with its `revoked_at`, or `last_used_at`.
 * - One active holder of a thumbprint per account and mode; a revoked one may be registered again.
 * - Nonces are unique per thumbprint across accounts: `Authorization` need not be signed, so a
 *   per-account store would let a captured request be replayed against another account holding
 *   the same public key.
 * - `audit_records.signed_by` is content: the append-only guard (migrations 011 and 017) is
 *   re-created with it in the list of columns a sealing UPDATE may not touch.
 * One statement each: the embedded engine runs a single statement per query.
 */
const CONTENT = `id, account_id, livemode, type, actor_type, actor_id, agent_id, decision_id, decision, amount, currency, vendor, category, policy_id, reason, metadata, created_at, mac, signed_by`;
const same = `(${CONTENT.split(', ').map((c) => `OLD.${c}`).join(', ')}) IS NOT DISTINCT FROM (${CONTENT.split(', ').map((c) => `NEW.${c}`).join(', ')})`;
const SEALING = `OLD.hash IS NULL AND OLD.sequence IS NULL AND NEW.hash IS NOT NULL AND NEW.sequence IS NOT NULL AND ${same}`;

const statements = [
  `CREATE TABLE agent_key_directories (
     id text PRIMARY KEY,
     account_id text NOT NULL REFERENCES accounts(id),
     livemode boolean NOT NULL,
     origin text NOT NULL CHECK (origin ~ '^https://[^/?#]+$'),
     thumbprints text[] NOT NULL,
     fetched_at timestamptz NOT NULL,
     expires_at timestamptz NOT NULL,
     last_attempt_at timestamptz,
     last_error text,
     created_at timestamptz NOT NULL,
     UNIQUE (account_id, livemode, origin)
   )`,
  'CREATE INDEX agent_key_directories_due ON agent_key_directories (expires_at)',
  `CREATE TABLE agent_keys (
     id text PRIMARY KEY,
     account_id text NOT NULL REFERENCES accounts(id),
     livemode boolean NOT NULL,
     agent_id text NOT NULL REFERENCES agents(id),
     name text,
     alg text NOT NULL CHECK (alg IN ('ed25519', 'ecdsa-p256-sha256')),
     jwk jsonb NOT NULL,
     thumbprint text NOT NULL CHECK (thumbprint ~ '^[A-Za-z0-9_-]{43}$'),
     directory_id text REFERENCES agent_key_directories(id),
     status text NOT NULL CHECK (status IN ('active', 'revoked')),
     last_used_at timestamptz,
     revoked_at timestamptz,
     created_at timestamptz NOT NULL,
     CHECK ((status = 'revoked') = (revoked_at IS NOT NULL))
   )`,
  `CREATE UNIQUE INDEX agent_keys_active_thumbprint ON agent_keys (account_id, livemode, thumbprint) WHERE status = 'active'`,
  'CREATE INDEX agent_keys_by_agent ON agent_keys (agent_id, created_at DESC, id DESC)',
  `CREATE FUNCTION agent_keys_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'agent_keys: only status, revoked_at and last_used_at change, and a revoked key stays revoked (% refused)', TG_OP;
END;
$$`,
  `CREATE TRIGGER agent_keys_immutable BEFORE UPDATE ON agent_keys
     FOR EACH ROW WHEN (
       (OLD.id, OLD.account_id, OLD.livemode, OLD.agent_id, OLD.name, OLD.alg, OLD.jwk, OLD.thumbprint, OLD.directory_id, OLD.created_at)
         IS DISTINCT FROM (NEW.id, NEW.account_id, NEW.livemode, NEW.agent_id, NEW.name, NEW.alg, NEW.jwk, NEW.thumbprint, NEW.directory_id, NEW.created_at)
       OR (OLD.status = 'revoked' AND (NEW.status <> 'revoked' OR NEW.revoked_at IS DISTINCT FROM OLD.revoked_at)))
     EXECUTE FUNCTION agent_keys_immutable()`,
  `CREATE TABLE signature_nonces (
     thumbprint text NOT NULL,
     nonce text NOT NULL,
     agent_key_id text NOT NULL,
     expires_at timestamptz NOT NULL,
     PRIMARY KEY (thumbprint, nonce)
   )`,
  'CREATE INDEX signature_nonces_expiry ON signature_nonces (expires_at)',
  'ALTER TABLE policies ADD COLUMN require_signed_requests boolean NOT NULL DEFAULT false',
  'ALTER TABLE decisions ADD COLUMN signature jsonb',
  'ALTER TABLE decisions ADD COLUMN capture_signature jsonb',
  'ALTER TABLE audit_records ADD COLUMN signed_by text',
  `CREATE OR REPLACE FUNCTION audit_records_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND (${SEALING}) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'audit_records is append-only (% refused)', TG_OP;
END;
$$`,
  'DROP TRIGGER audit_records_no_update ON audit_records',
  // IS NOT TRUE: a condition that came out unknown refuses, as the function's IF does.
  `CREATE TRIGGER audit_records_no_update BEFORE UPDATE ON audit_records
     FOR EACH ROW WHEN ((${SEALING}) IS NOT TRUE) EXECUTE FUNCTION audit_records_append_only()`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(): Promise<void> {
  throw new Error('026_agent_keys cannot be reverted: signatures recorded in the audit chain would lose their signer');
}
