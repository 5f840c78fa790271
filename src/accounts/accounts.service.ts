import type { Db, Plan } from '../db/database.js';
import { appendAudit } from '../audit/audit.repository.js';
import { insertAccount } from './accounts.repository.js';
import { invalid } from '../kernel/errors.js';
import { newId } from '../kernel/ids.js';
import { generateApiKey } from '../keys/api-key.js';
import { insertApiKey } from '../keys/keys.repository.js';
import { toApiKeyView } from '../keys/keys.service.js';
import { formatUsd, RATE_DECIMALS } from '../usage/pricing.js';

export interface CreateAccountInput {
  name: string;
  plan: Plan;
  /** Requests per minute; only enterprise accounts carry their own number. */
  rateLimit?: number | undefined;
  /** Enterprise only: checks included per month. */
  includedChecks?: number | undefined;
  /** Enterprise only: price per check beyond the included ones, in micro-dollars. */
  overageRateMicros?: number | undefined;
}

export interface CreatedAccount {
  account: {
    id: string;
    object: 'account';
    name: string;
    plan: Plan;
    rate_limit: number | null;
    /** Enterprise terms of its own, else null (the plan's apply). */
    included_checks: number | null;
    overage_rate: string | null;
    created_at: string;
  };
  keys: { test: string; live?: string };
}

/** Creates an account and its first admin keys (no live key on the sandbox plan). Operator-only: the CLI calls it. */
export async function createAccount(db: Db, input: CreateAccountInput): Promise<CreatedAccount> {
  if (input.rateLimit !== undefined && input.plan !== 'enterprise') {
    throw invalid('Only enterprise accounts take their own rate limit.', 'rate-limit');
  }
  if (input.includedChecks !== undefined && input.plan !== 'enterprise') {
    throw invalid('Only enterprise accounts take their own included checks.', 'included-checks');
  }
  if (input.overageRateMicros !== undefined && input.plan !== 'enterprise') {
    throw invalid('Only enterprise accounts take their own overage rate.', 'overage-rate');
  }
  return db.transaction().execute(async (trx) => {
    const account = await insertAccount(trx, {
      id: newId('acct'),
      name: input.name,
      plan: input.plan,
      rate_limit: input.rateLimit ?? null,
      included_checks: input.includedChecks ?? null,
      overage_rate_micros: input.overageRateMicros ?? null,
      created_at: new Date(),
    });
    const modes = input.plan === 'sandbox' ? [false] : [false, true];
    const keys: Record<string, string> = {};
    for (const livemode of modes) {
      const key = generateApiKey(livemode);
      const row = await insertApiKey(trx, {
        id: newId('key'),
        account_id: account.id,
        livemode,
        name: 'Initial admin key',
        role: 'admin',
        agent_id: null,
        key_hash: key.hash,
        key_prefix: key.prefix,
        created_at: new Date(),
        created_by: null,
        created_via: 'command_line',
      });
      await appendAudit(trx, {
        accountId: account.id,
        livemode,
        type: 'api_key.created',
        actor: { type: 'system', id: null },
        metadata: { api_key_id: toApiKeyView(row).id, role: 'admin', name: row.name },
      });
      keys[livemode ? 'live' : 'test'] = key.raw;
    }
    return {
      account: {
        id: account.id,
        object: 'account',
        name: account.name,
        plan: account.plan,
        rate_limit: account.rate_limit,
        included_checks: account.included_checks,
        overage_rate: account.overage_rate_micros === null ? null : formatUsd(BigInt(account.overage_rate_micros), RATE_DECIMALS),
        created_at: account.created_at.toISOString(),
      },
      keys: keys as CreatedAccount['keys'],
    };
  });
}
