/**
 * The commands' arguments, checked before any configuration or database is touched. Kept apart from
 * the commands themselves so that refusing an argument loads none of the service (main.ts imports a
 * command's module only once its arguments are good).
 */
import { parseUsdRate } from '../usage/pricing.js';
import { isMonth, monthEnd } from '../usage/month.js';
import { COMMANDS, UsageError, type OptionValues } from './commands.js';

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

/** Checked before any configuration or database is touched. */
export function reportMonth(values: OptionValues): string {
  const usage = COMMANDS['usage report'].usage;
  const month = values.month as string | undefined;
  if (!month || !isMonth(month)) throw new UsageError('--month must be a month as YYYY-MM', usage);
  if (new Date() < monthEnd(month)) throw new UsageError(`--month ${month} has not ended yet: only a whole month is reported`, usage);
  return month;
}
