import { z } from 'zod';
import { agentSchema } from '../agents/agent.view.js';
import { DECISION_REASON_CODES } from '../decisions/decision.view.js';
import type { PolicyRow } from '../policies/policies.repository.js';
import { currencyField, idOf, instant, livemodeField } from '../kernel/view-fields.js';
import { minorToMajorNumber } from './decimal.js';
import type { VaultRow } from './vaults.repository.js';

/** Decimal major units (USD, at most 2 places): the quick-start surface's amounts. */
const dollars = (description: string) => z.number().nonnegative().describe(description);

/** `POST /agents` answers the /v1 agent object itself. */
export const quickstartAgentSchema = agentSchema.describe('The agent registered on the quick-start surface: the same object as on /v1 (no policy until a vault binds one).');

export const vaultSchema = z
  .object({
    id: idOf('vlt', 'Vault id'),
    object: z.literal('vault'),
    name: z.string().describe('Display name'),
    agent_id: idOf('agt', 'The agent the vault is for'),
    policy_id: idOf('pol', "The vault's policy (also visible on /v1)"),
    daily_limit: dollars('Daily budget in USD; null if the policy has none').nullable(),
    max_single_transaction: dollars('Ceiling on one transaction, in USD'),
    require_approval_above: dollars('Amounts above this are held for review; null = never on amount').nullable(),
    currency: currencyField,
    token_prefix: z.string().describe('The first characters of the vault token, to recognize it'),
    livemode: livemodeField,
    created_at: instant('Creation time'),
  })
  .describe('A vault: a daily-budget policy bound to one agent, used through a `dlt_` token.');
export type VaultView = z.infer<typeof vaultSchema>;

export const vaultWithTokenSchema = vaultSchema
  .extend({ token: z.string().regex(/^dlt_[0-9A-Za-z]+$/).describe('The vault token for POST /authorize: shown this once') })
  .describe('A new vault with its `dlt_` token (returned once, by the create call only).');
export type VaultWithTokenView = z.infer<typeof vaultWithTokenSchema>;

export const quickstartAuthorizationSchema = z
  .object({
    authorized: z.boolean().describe('True only when approved: the caller may charge'),
    status: z.enum(['approved', 'denied', 'pending']).describe('`pending`: held for a reviewer; poll GET /v1/decisions/{transaction_id}'),
    transaction_id: idOf('dec', 'The decision id (usable on /v1)'),
    remaining_balance: dollars('USD left today for this agent'),
    currency: currencyField,
    reason_code: z.enum(DECISION_REASON_CODES).nullable().describe('Why it was denied or held; null when approved'),
    message: z.string().describe('What happened and what the agent can do next'),
    authorization_token: z.string().regex(/^gca_/).optional().describe('Only when approved: the signed `gca_` token'),
  })
  .describe('The quick-start answer to a spend request, in decimal USD.');
export type QuickstartAuthorizationView = z.infer<typeof quickstartAuthorizationSchema>;

const majorOrNull = (minor: number | null) => (minor === null ? null : minorToMajorNumber(minor));

/** The vault record: limits as decimal major units, read from the vault's policy. Never the token hash. */
export function toVaultView(vault: VaultRow, policy: PolicyRow): VaultView {
  return {
    id: vault.id,
    object: 'vault',
    name: vault.name,
    agent_id: vault.agent_id,
    policy_id: vault.policy_id,
    daily_limit: majorOrNull(policy.budget_daily),
    max_single_transaction: minorToMajorNumber(policy.budget_single_max),
    require_approval_above: majorOrNull(policy.require_approval_above),
    currency: policy.currency,
    token_prefix: vault.token_prefix,
    livemode: vault.livemode,
    created_at: vault.created_at.toISOString(),
  };
}
