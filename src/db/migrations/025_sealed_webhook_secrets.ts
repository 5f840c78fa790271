import { createCipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Webhook endpoint secrets are stored sealed, as rail connections' signing secrets are (docs/api.md,
 * "Webhooks"): AES-256-GCM under a key derived with HKDF-SHA-256 from IDEMPOTENCY_ENCRYPTION_KEY,
 * the endpoint as authenticated data. A dump of the database then holds no secret that signs
 * deliveries.
 *
 * - The columns are renamed (`secret` → `secret_sealed`, `previous_secret` → `previous_secret_sealed`),
 *   so code that still reads a clear secret fails instead of signing with ciphertext.
 * - Every existing row, deleted endpoints included, is sealed here with the key the process loaded
 *   at start (the one `migrate` is run with); without one, or with another key than the one bound to
 *   the database (its fingerprint, migration 019), the migration refuses rather than seal secrets
 *   nobody can open.
 * - A CHECK keeps a clear secret from being written again, by any code or by hand.
 */

/*
 * Sealing as the service does it (src/webhooks/endpoint-secret.ts over
 * src/idempotency/response-cipher.ts), frozen here: a migration imports nothing live.
 */
const LABEL = 'spend-auth webhook endpoint secret';
const VERSION = 'v1';

function sealer(serverKey: Buffer): (plain: string, scope: string) => string {
  const key = Buffer.from(hkdfSync('sha256', serverKey, Buffer.alloc(0), LABEL, 32));
  return (plain, scope) => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(scope, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  };
}

const scopeOf = (r: { id: string; account_id: string }) => `webhook_endpoint:${r.account_id}:${r.id}`;

/** The fingerprint migration 019's table keeps (src/server-keys.ts, frozen here). */
const SETTING = 'IDEMPOTENCY_ENCRYPTION_KEY';
const fingerprint = (key: Buffer) => createHmac('sha256', key).update(`spend-auth server key fingerprint\n${SETTING}`).digest('hex');

const BATCH = 1_000;

interface ClearRow {
  id: string;
  account_id: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
}

async function sealExisting(db: Kysely<unknown>, serverKey: Buffer): Promise<void> {
  const bound = (await sql<{ fingerprint: string }>`SELECT fingerprint FROM server_key_fingerprints WHERE setting = ${SETTING}`.execute(db)).rows[0];
  if (bound && bound.fingerprint !== fingerprint(serverKey)) {
    throw new Error(`025_sealed_webhook_secrets: ${SETTING} is not the key this database was first used with (the stored fingerprint differs); run the migration with the deployment's key.`);
  }
  const seal = sealer(serverKey);
  for (;;) {
    const rows = (
      await sql<ClearRow>`SELECT id, account_id, secret_sealed, previous_secret_sealed FROM webhook_endpoints
        WHERE secret_sealed NOT LIKE 'v1.%' ORDER BY id LIMIT ${BATCH}`.execute(db)
    ).rows;
    if (rows.length === 0) return;
    const sealed = rows.map((r) => ({
      id: r.id,
      secret: seal(r.secret_sealed, scopeOf(r)),
      previous: r.previous_secret_sealed === null ? null : seal(r.previous_secret_sealed, scopeOf(r)),
    }));
    await sql`
      UPDATE webhook_endpoints AS e SET secret_sealed = v.secret, previous_secret_sealed = v.previous
      FROM (VALUES ${sql.join(sealed.map((x) => sql`(${x.id}, ${x.secret}, ${x.previous}::text)`))}) AS v(id, secret, previous)
      WHERE e.id = v.id`.execute(db);
    if (rows.length < BATCH) return;
  }
}

async function up(db: Kysely<unknown>, encryptionKey: () => Buffer | undefined): Promise<void> {
  await sql.raw('ALTER TABLE webhook_endpoints RENAME COLUMN secret TO secret_sealed').execute(db);
  await sql.raw('ALTER TABLE webhook_endpoints RENAME COLUMN previous_secret TO previous_secret_sealed').execute(db);
  const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM webhook_endpoints`.execute(db);
  if (Number(rows[0]!.n) > 0) {
    const key = encryptionKey();
    if (!key) {
      throw new Error('025_sealed_webhook_secrets seals the existing webhook secrets with IDEMPOTENCY_ENCRYPTION_KEY: run the migration with the key the service will use.');
    }
    await sealExisting(db, key);
  }
  await sql
    .raw(
      `ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_endpoints_secrets_sealed
         CHECK (secret_sealed LIKE 'v1.%' AND (previous_secret_sealed IS NULL OR previous_secret_sealed LIKE 'v1.%'))`,
    )
    .execute(db);
}

async function down(): Promise<void> {
  throw new Error('025_sealed_webhook_secrets is not reverted: that would write every webhook secret back in clear');
}

/** The migration, given where the process keeps its encryption key (undefined while none is loaded). */
export function sealedWebhookSecretsMigration(encryptionKey: () => Buffer | undefined): Migration {
  return { up: (db) => up(db, encryptionKey), down };
}
