import { createAccount } from '../accounts/accounts.service.js';
import type { Config } from '../kernel/config.js';
import { migrateBound } from '../process/migrations.js';
import type { ServerKeys } from '../server-keys.js';
import type { AccountInput } from './arguments.js';
import { withDatabase } from './database.js';

export async function accountsCommand(config: Config, serverKeys: ServerKeys, input: AccountInput): Promise<void> {
  const { json, ...account } = input;
  const created = await withDatabase(config, serverKeys, async ({ db }) => {
    await migrateBound(db, serverKeys);
    return createAccount(db, account);
  });
  if (json) {
    process.stdout.write(`${JSON.stringify(created)}\n`);
  } else {
    process.stdout.write(`Account ${created.account.id} (${created.account.plan})\n`);
    process.stdout.write(`Admin test key: ${created.keys.test}\n`);
    if (created.keys.live) process.stdout.write(`Admin live key: ${created.keys.live}\n`);
  }
}
