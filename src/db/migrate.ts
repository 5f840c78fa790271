import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import { loadedAuditHmacKey } from '../kernel/audit-key.js';
import { loadedEncryptionKey } from '../kernel/encryption-key.js';
import type { Db } from './database.js';
import * as m001 from './migrations/001_foundation.js';
import * as m002 from './migrations/002_decisions.js';
import * as m003 from './migrations/003_usage.js';
import * as m005 from './migrations/005_webhooks.js';
import * as m006 from './migrations/006_safety_rules.js';
import * as m007 from './migrations/007_audit_sealing.js';
import * as m008 from './migrations/008_outbox_account.js';
import * as m009 from './migrations/009_authorize_fast_path.js';
import * as m010 from './migrations/010_audit_insert_order.js';
import { auditHmacMigration } from './migrations/011_audit_hmac.js';
import * as m012 from './migrations/012_idempotency_per_key.js';
import * as m013 from './migrations/013_operator_actor.js';
import * as m014 from './migrations/014_outbox_dead_letter.js';
import * as m015 from './migrations/015_capture.js';
import * as m016 from './migrations/016_approval_chains.js';
import * as m017 from './migrations/017_trigger_conditions.js';
import * as m020 from './migrations/020_requester_and_previous_secret.js';
import * as m004 from './migrations/004_quickstart.js';
import * as m022 from './migrations/022_capture_metadata.js';
import * as m021 from './migrations/021_rails_stripe_issuing.js';
import * as m023 from './migrations/023_api_key_created_by.js';
import * as m024 from './migrations/024_rail_increments.js';
import { auditHeadEvidenceMigration } from './migrations/018_audit_head_evidence.js';
import * as m019 from './migrations/019_server_key_fingerprints.js';
import { sealedWebhookSecretsMigration } from './migrations/025_sealed_webhook_secrets.js';
import * as m026 from './migrations/026_agent_keys.js';
import * as m027 from './migrations/027_mandates.js';
import * as m028 from './migrations/028_card_captures.js';
import * as m029 from './migrations/029_idempotency_claims.js';
import * as m030 from './migrations/030_decision_terms.js';

/** Listed statically so migrations work the same from source, from a build and in a bundle. */
const migrations: Record<string, Migration> = {
  '001_foundation': m001,
  '002_decisions': m002,
  '003_usage': m003,
  '005_webhooks': m005,
  '006_safety_rules': m006,
  '007_audit_sealing': m007,
  '008_outbox_account': m008,
  '009_authorize_fast_path': m009,
  '010_audit_insert_order': m010,
  // Re-seals existing chains with the key this process loaded at start.
  '011_audit_hmac': auditHmacMigration(loadedAuditHmacKey),
  '012_idempotency_per_key': m012,
  '013_operator_actor': m013,
  '014_outbox_dead_letter': m014,
  '015_capture': m015,
  '016_approval_chains': m016,
  '017_trigger_conditions': m017,
  '020_requester_and_previous_secret': m020,
  '004_quickstart': m004,
  '022_capture_metadata': m022,
  '021_rails_stripe_issuing': m021,
  '023_api_key_created_by': m023,
  // Signs the existing chain heads with the same key.
  '018_audit_head_evidence': auditHeadEvidenceMigration(loadedAuditHmacKey),
  '019_server_key_fingerprints': m019,
  '024_rail_increments': m024,
  // Seals the webhook secrets written in clear before it with the key this process loaded at start.
  '025_sealed_webhook_secrets': sealedWebhookSecretsMigration(loadedEncryptionKey),
  '026_agent_keys': m026,
  '027_mandates': m027,
  '028_card_captures': m028,
  '029_idempotency_claims': m029,
  '030_decision_terms': m030,
};

class StaticProvider implements MigrationProvider {
  async getMigrations() {
    return migrations;
  }
}

/** Applies every pending migration; returns the names applied. Throws on failure. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider: new StaticProvider() });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Applies pending migrations up to and including `name`: how a test sets up data of an older schema. */
export async function migrateTo(db: Db, name: string): Promise<void> {
  const migrator = new Migrator({ db, provider: new StaticProvider() });
  const { error } = await migrator.migrateTo(name);
  if (error) throw error instanceof Error ? error : new Error(String(error));
}

export async function pendingMigrations(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider: new StaticProvider() });
  const all = await migrator.getMigrations();
  return all.filter((m) => !m.executedAt).map((m) => m.name);
}
