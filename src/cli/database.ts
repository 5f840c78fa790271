import type { Config } from '../kernel/config.js';
import { connectDatabase, type Database } from '../db/connect.js';

/** Runs `fn` on a connection to the configured database, closed afterwards whatever happens. */
export async function withDatabase<T>(config: Config, fn: (d: Database) => Promise<T>): Promise<T> {
  const database = await connectDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize });
  try {
    return await fn(database);
  } finally {
    await database.close();
  }
}
