import { createAccount } from '../accounts/accounts.service.js';
import { firstAccount } from '../accounts/accounts.repository.js';
import type { Config } from '../kernel/config.js';
import type { Database } from '../db/connect.js';
import type { Logger } from '../kernel/logger.js';
import type { ServerKeys } from '../server-keys.js';
import { migrateBound } from './migrations.js';

/**
 * `dev`'s database: migrated, and on the embedded database an account to try the service with.
 * Returns what to say about that account, printed with the addresses once the API listens.
 */
export async function prepareDevDatabase(database: Database, config: Pick<Config, 'dataDir'>, serverKeys: ServerKeys, log: Logger): Promise<string[]> {
  const applied = await migrateBound(database.db, serverKeys);
  if (applied.length) log.info({ migrations: applied }, 'migrations applied');
  if (database.kind !== 'embedded') return [];
  const existing = await firstAccount(database.db);
  if (!existing) {
    const created = await createAccount(database.db, { name: 'Development', plan: 'sandbox' });
    // Shown once, on the first start of an empty embedded database: it is never stored in clear.
    return [`Dev account ${created.account.id} created.`, `Admin test key (shown once, keep it): ${created.keys.test}`, 'Sign in to the reviewer dashboard with this key.'];
  }
  return [
    `Dev account ${existing.id} (${existing.name}) in use, created ${existing.created_at.toISOString().slice(0, 10)}; its admin test key was printed on its first start.`,
    `Lost it? Stop the service and run \`npx spend-auth accounts create --name Me --plan sandbox\` for another account, or delete ${config.dataDir} to start over.`,
  ];
}

/** The host name to print in an address a person opens: a wildcard or loopback bind is reached as localhost. */
const browsableHost = (host: string) =>
  ['0.0.0.0', '::', '127.0.0.1', '::1', 'localhost'].includes(host) ? 'localhost' : host.includes(':') ? `[${host}]` : host;

export interface DevBanner {
  devAccount: readonly string[];
  host: string;
  port: number;
  /** The local dev server's UI line (its address and what to look for), when `dev` runs one. */
  temporalUi: string | undefined;
  /** The engine's address, and whether TEMPORAL_ADDRESS gave it. */
  address: string;
  addressGiven: boolean;
}

/** One block after the log lines of start-up, so the key and the addresses are found at a glance. */
export function printDevBanner(b: DevBanner): void {
  const rule = '─'.repeat(72);
  const lines = [
    ...b.devAccount,
    ...(b.devAccount.length ? [''] : []),
    `Reviewer dashboard: http://${browsableHost(b.host)}:${b.port}/dashboard`,
    b.temporalUi
      ? `Temporal UI:        ${b.temporalUi}`
      : b.addressGiven
        ? `Workflow engine:    ${b.address} (TEMPORAL_ADDRESS)`
        : 'Temporal UI:        none (no Temporal CLI: see the paragraph above and README, "Workflow engine")',
  ];
  process.stdout.write(`\n${rule}\n${lines.join('\n')}\n${rule}\n\n`);
}
