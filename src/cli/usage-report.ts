import { pino } from 'pino';
import type { Config } from '../kernel/config.js';
import { createLogger } from '../kernel/logger.js';
import { requireMigrated } from '../process/migrations.js';
import type { ServerKeys } from '../server-keys.js';
import { withDatabase } from './database.js';

export async function usageCommand(config: Config, serverKeys: ServerKeys, month: string, json: boolean): Promise<void> {
  const { createUsageReporter } = await import('../usage/usage-report.service.js');
  const { runUsageReport } = await import('../usage/usage-report.runner.js');
  const log = createLogger(config.logLevel, 'spend-auth', pino.destination({ fd: 2, sync: true }));
  const summary = await withDatabase(config, serverKeys, async ({ db }) => {
    await requireMigrated(db);
    return runUsageReport({ month, reporter: createUsageReporter({ db, billingMeter: config.billingMeter, log }) });
  });
  if (json) {
    process.stdout.write(`${JSON.stringify(summary)}\n`);
  } else {
    process.stdout.write(
      `Usage report ${month}: ${summary.accounts} account(s) to report; ${summary.accepted} accepted, ${summary.skipped} skipped, ${summary.failed.length} failed.\n`,
    );
    for (const f of summary.failed) process.stdout.write(`  ${f.accountId}: ${f.error}${f.permanent ? ' (refused; recorded as failed)' : ' (still failing; run again later)'}\n`);
  }
  if (summary.failed.length > 0) process.exitCode = 1;
}
