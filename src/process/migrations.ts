import type { Db } from '../db/database.js';
import { migrateToLatest, pendingMigrations } from '../db/migrate.js';
import { bindServerKeys, type ServerKeys } from '../server-keys.js';

/** The database is behind the code: `spend-auth migrate` first (the CLI exits 2 on it). */
export class PendingMigrationsError extends Error {
  constructor(pending: readonly string[]) {
    super(`The database has pending migrations (${pending.join(', ')}); run \`spend-auth migrate\` first.`);
    this.name = 'PendingMigrationsError';
  }
}

/** Refuses a database with pending migrations: only `dev` and `migrate` apply them. */
export async function requireMigrated(db: Db): Promise<void> {
  const pending = await pendingMigrations(db);
  if (pending.length) throw new PendingMigrationsError(pending);
}

/** Applies pending migrations, then stores the key fingerprints if this is the first run (migration 019). */
export async function migrateBound(db: Db, serverKeys: ServerKeys): Promise<string[]> {
  const applied = await migrateToLatest(db);
  await bindServerKeys(db, serverKeys);
  return applied;
}
