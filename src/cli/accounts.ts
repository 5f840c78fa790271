import { createAccount } from '../accounts/accounts.service.js';
import type { Config } from '../kernel/config.js';
import { migrateBound } from '../process/migrations.js';
import type { ServerKeys } from '../server-keys.js';
import { parseUsdRate } from '../usage/pricing.js';
import { COMMANDS, UsageError, type OptionValues } from './commands.js';
import { withDatabase } from './database.js';

const PLANS = ['sandbox', 'starter', 'growth', 'enterprise'] as const;

export interface AccountInput {
  name: string;
  plan: (typeof PLANS)[number];
  rateLimit: number | undefined;
  includedChecks: number | undefined;
  overageRateMicros: number | undefined;
  json: boolean;
}

/** Checked before any configuration or database is touched. */
export function accountInput(values: OptionValues): AccountInput {
  const usage = COMMANDS['accounts create'].usage;
  const str = (name: string) => values[name] as string | undefined;
  const name = str('name');
  if (!name) throw new UsageError('--name is required', usage);
  const plan = str('plan') as (typeof PLANS)[number] | undefined;
  if (!plan || !PLANS.includes(plan)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`, usage);
  let rateLimit: number | undefined;
  if (str('rate-limit') !== undefined) {
    rateLimit = Number(str('rate-limit'));
    if (!Number.isSafeInteger(rateLimit) || rateLimit < 1) throw new UsageError('--rate-limit must be a positive integer', usage);
  }
  let includedChecks: number | undefined;
  const included = str('included-checks');
  if (included !== undefined) {
    includedChecks = /^\d+$/.test(included) ? Number(included) : NaN;
    if (!Number.isSafeInteger(includedChecks)) throw new UsageError('--included-checks must be a non-negative integer', usage);
  }
  let overageRateMicros: number | undefined;
  const rate = str('overage-rate');
  if (rate !== undefined) {
    overageRateMicros = parseUsdRate(rate);
    if (overageRateMicros === undefined) throw new UsageError('--overage-rate must be a USD amount per check with at most 4 decimal places, e.g. 0.0005', usage);
  }
  return { name, plan, rateLimit, includedChecks, overageRateMicros, json: values.json === true };
}

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
