import type { Config } from '../kernel/config.js';
import { connectDatabase, type Database } from '../db/connect.js';
import { bindServerKeys, type ServerKeys } from '../server-keys.js';

/**
 * Runs `fn` on a connection to the configured database, closed afterwards whatever happens, once
 * the server keys are known to be the ones the database was first used with (refused otherwise,
 * before anything is written).
 */
export async function withDatabase<T>(config: Config, serverKeys: ServerKeys, fn: (d: Database) => Promise<T>): Promise<T> {
  const database = await connectDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize });
  try {
    await bindServerKeys(database.db, serverKeys);
    return await fn(database);
  } finally {
    await database.close();
  }
}
