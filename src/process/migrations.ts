import type { Db } from '../db/database.js';
import { pendingMigrations } from '../db/migrate.js';

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
