import { loadConfig } from '../../src/config.js';
import { acquireTemporalCli, TemporalCliUnavailableError } from '../../src/temporal/cli-acquisition.js';
import { makeEmbeddedTemplate } from './embedded-template.js';
import { makePgTemplate, migrateAndBindTestKeys } from './pg-template.js';
import { startSharedTemporal } from './shared-temporal.js';
import { startConformanceCount } from './openapi-conformance-count.js';
import { TEST_SERVER_KEYS_ENV } from './server-keys.js';

/** Against a real server every test file shares one database: migrate it once, before any file runs. */
export default async function setup(): Promise<() => Promise<void>> {
  const reportConformance = startConformanceCount();
  // Inherited by the test processes and every `spend-auth` process they start, so all agree on the keys.
  for (const [name, value] of Object.entries(TEST_SERVER_KEYS_ENV)) process.env[name] ??= value;
  await findTemporalCli();
  const stopTemporal = await startSharedTemporal();
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.log('[tests] DATABASE_URL unset: each test file runs on its own embedded PGlite database');
    const removeTemplate = await makeEmbeddedTemplate();
    return async () => {
      removeTemplate();
      await stopTemporal();
      reportConformance();
    };
  }
  // As `spend-auth migrate` does: the shared database belongs to the test keys every process is
  // given (a database left by an earlier run may hold audit chains a migration re-seals with the key).
  await migrateAndBindTestKeys(url);
  const dropTemplate = await makePgTemplate(url);
  console.log(`[tests] running against PostgreSQL at ${new URL(url).host}`);
  return async () => {
    await dropTemplate();
    await stopTemporal();
    reportConformance();
  };
}

/**
 * The server tests' CLI, found the way `npm start` finds it (TEMPORAL_CLI_PATH, PATH, the cache),
 * but never fetched here: without one the server tests skip (CI provides one). Inherited by every
 * test process.
 */
async function findTemporalCli(): Promise<void> {
  if (process.env.TEMPORAL_ADDRESS?.trim() || process.env.TEMPORAL_TEST_SERVER_PATH?.trim()) return;
  const { temporal } = loadConfig(process.env);
  try {
    const cli = await acquireTemporalCli({ configured: temporal.cliPath, searchPath: temporal.searchPath, cacheDir: temporal.cliCacheDir, steps: ['configured', 'path', 'cache'], report: () => {} });
    if (!process.env.TEMPORAL_CLI_PATH) console.log(`[tests] Temporal CLI: ${cli.path} (${cli.version})`);
    process.env.TEMPORAL_CLI_PATH = cli.path;
  } catch (err) {
    // TEMPORAL_CLI_PATH wrong, or nothing found: the server tests say so (and skip, or fail in CI).
    if (!(err instanceof TemporalCliUnavailableError)) throw err;
  }
}
