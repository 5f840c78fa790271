import { actorOf, ADMIN, requireRole, type Caller } from '../kernel/caller.js';
import type { Db, DbOrTrx } from '../db/database.js';
import { appendAudit } from '../audit/audit.repository.js';
import { findAgentInScope, updateAgent as updateAgentRow } from '../agents/agents.repository.js';
import { registerAgent, toAgentView, type AgentView } from '../agents/agents.service.js';
import { authorize } from '../authorization/authorization.service.js';
import type { AuthorizationDeps } from '../authorization/authorization.deps.js';
import { periodsOf, readSpend } from '../decisions/spend.repository.js';
import type { AuthorizeInput } from '../authorization/authorize.schemas.js';
import type { DecisionView } from '../decisions/decision.view.js';
import { AppError, conflict, notFound } from '../kernel/errors.js';
import type { IdempotencyHandle } from '../kernel/idempotency.js';
import { newId } from '../kernel/ids.js';
import { findPolicyById, insertPolicy, type PolicyRow } from '../policies/policies.repository.js';
import { toPolicyView } from '../policies/policies.service.js';
import { formatMinorUnits, minorToMajorNumber } from './decimal.js';
import type { QuickstartAgentInput, QuickstartAuthorizeInput, VaultInput } from './quickstart.schemas.js';
import { toVaultView, type QuickstartAuthorizationView, type VaultWithTokenView } from './quickstart.view.js';
import { generateVaultToken, hashVaultToken, isVaultTokenShaped } from './vault-token.js';
import { findActiveVaultByTokenHash, findActiveVaultOfAgent, insertVault, revokeVault } from './vaults.repository.js';

/** Amounts on the quick-start surface are US dollars. */
export const QUICKSTART_CURRENCY = 'USD';

/**
 * A vault's policy also gets a monthly budget (the /v1 policy requires one). 31 daily limits can
 * never be reached before the daily limit stops spending, so only the daily limit ever binds.
 */
export const VAULT_MONTHLY_BUDGET_DAYS = 31;

/** `POST /agents`: an agent with no policy yet (a vault binds one). The same object as on /v1. */
export async function createQuickstartAgent(db: Db, caller: Caller, input: QuickstartAgentInput): Promise<AgentView> {
  requireRole(caller, ADMIN);
  return db.transaction().execute(async (trx) => {
    const row = await registerAgent(
      trx,
      caller,
      { name: input.name, agent_type: input.agent_type ?? null, policy_id: null, metadata: {} },
      { agent_type: input.agent_type ?? null, surface: 'quickstart' },
    );
    return toAgentView(row);
  });
}

export { toVaultView, type VaultView } from './quickstart.view.js';

/**
 * `POST /vaults`: a policy (daily budget, single-transaction max, optional approval threshold)
 * bound to the agent, and a `dlt_` token returned once. An agent has at most one usable vault:
 * a new one replaces the previous vault, whose token stops working. All in one transaction,
 * audited as the /v1 services audit the same changes.
 */
export async function createVault(db: Db, caller: Caller, input: VaultInput): Promise<VaultWithTokenView> {
  requireRole(caller, ADMIN);
  return db.transaction().execute(async (trx) => {
    // Locked: concurrent vaults for one agent, and authorizations, wait for this binding.
    const agent = await findAgentInScope(trx, caller.accountId, caller.livemode, input.agent_id, true);
    if (!agent) throw notFound('agent', 'agent_id');
    if (agent.status === 'deactivated') throw conflict('The agent is deactivated; it can no longer get a vault.', 'agent_id');

    const now = new Date();
    const actor = actorOf(caller);
    const scope = { accountId: caller.accountId, livemode: caller.livemode, actor };
    const vaultId = newId('vlt');
    const policy = await insertPolicy(
      trx,
      {
        id: newId('pol'),
        account_id: caller.accountId,
        livemode: caller.livemode,
        created_at: now,
        updated_at: now,
        name: input.name,
        budget_monthly: Math.min(input.daily_limit * VAULT_MONTHLY_BUDGET_DAYS, Number.MAX_SAFE_INTEGER),
        budget_single_max: input.max_single_transaction,
      },
      { currency: QUICKSTART_CURRENCY, budget_daily: input.daily_limit, require_approval_above: input.require_approval_above },
    );
    await appendAudit(trx, { ...scope, type: 'policy.created', policyId: policy.id, metadata: { policy: toPolicyView(policy), vault_id: vaultId } });

    const previous = await findActiveVaultOfAgent(trx, agent.id);
    if (previous) {
      await revokeVault(trx, previous.id, now);
      await appendAudit(trx, {
        ...scope,
        type: 'vault.revoked',
        agentId: agent.id,
        policyId: previous.policy_id,
        metadata: { vault_id: previous.id, replaced_by: vaultId },
      });
    }

    await updateAgentRow(trx, agent.id, { policy_id: policy.id });
    await appendAudit(trx, {
      ...scope,
      type: 'agent.updated',
      agentId: agent.id,
      policyId: policy.id,
      metadata: { changes: { policy_id: policy.id }, vault_id: vaultId },
    });

    const token = generateVaultToken();
    const vault = await insertVault(trx, {
      id: vaultId,
      account_id: caller.accountId,
      livemode: caller.livemode,
      agent_id: agent.id,
      policy_id: policy.id,
      name: input.name,
      token_hash: token.hash,
      token_prefix: token.prefix,
      created_at: now,
      revoked_at: null,
    });
    await appendAudit(trx, {
      ...scope,
      type: 'vault.created',
      agentId: agent.id,
      policyId: policy.id,
      metadata: { vault_id: vault.id, name: vault.name, token_prefix: vault.token_prefix, replaced_vault_id: previous?.id ?? null },
    });
    return { ...toVaultView(vault, policy), token: token.raw };
  });
}

export type QuickstartStatus = 'approved' | 'denied' | 'pending';

export type QuickstartAuthorization = QuickstartAuthorizationView;

const STATUS_OF: Record<DecisionView['decision'], QuickstartStatus> = { approved: 'approved', denied: 'denied', held: 'pending' };
const usd = (minor: number) => `${formatMinorUnits(minor)} ${QUICKSTART_CURRENCY}`;

/** What the agent can act on: why a request was refused, or that a human must decide first. */
function messageFor(view: DecisionView, policy: PolicyRow | undefined, remaining: number): string {
  const amount = view.amount;
  if (view.decision === 'approved') {
    return `Approved: you may charge ${usd(amount)} at ${view.vendor}. ${usd(remaining)} left today.`;
  }
  if (view.decision === 'held') {
    const threshold = policy?.require_approval_above ?? null;
    const why =
      view.reason_code === 'approval_required' && threshold !== null && amount > threshold
        ? `${usd(amount)} is above this vault's approval threshold of ${usd(threshold)}.`
        : view.reason;
    return (
      `Pending: ${why} The request awaits human review; do not charge yet. ` +
      `Poll GET /v1/decisions/${view.decision_id}?wait=30 until its status is approved or denied.`
    );
  }
  if (view.reason_code === 'budget_exceeded' && policy) {
    if (amount > policy.budget_single_max) {
      return `Denied: ${usd(amount)} is above this vault's single-transaction maximum of ${usd(policy.budget_single_max)}. Ask for at most that amount.`;
    }
    if (policy.budget_daily !== null) {
      return `Denied: ${usd(amount)} would exceed this vault's daily limit of ${usd(policy.budget_daily)}; ${usd(remaining)} is left today (the day ends at 00:00 UTC).`;
    }
  }
  return `Denied: ${view.reason}`;
}

/**
 * Left today for the decision's agent: the daily budget minus today's approved spend and today's
 * reservations (pending holds), never negative, and never more than what the monthly budget leaves.
 */
async function remainingToday(db: DbOrTrx, view: DecisionView, policy: PolicyRow | undefined): Promise<number> {
  if (!policy) return 0;
  const spend = await readSpend(db, view.agent_id, periodsOf(new Date(view.timestamp)));
  const month = policy.budget_monthly - spend.month.approved - spend.month.reserved;
  const day = policy.budget_daily === null ? month : policy.budget_daily - spend.day.approved - spend.day.reserved;
  return Math.max(0, Math.min(day, month));
}

async function toQuickstartAuthorization(db: DbOrTrx, view: DecisionView): Promise<QuickstartAuthorization> {
  const policy = view.policy_applied ? await findPolicyById(db, view.policy_applied) : undefined;
  const remaining = await remainingToday(db, view, policy);
  const approved = view.decision === 'approved';
  return {
    authorized: approved,
    status: STATUS_OF[view.decision],
    transaction_id: view.decision_id,
    remaining_balance: minorToMajorNumber(remaining),
    currency: QUICKSTART_CURRENCY,
    reason_code: view.reason_code,
    message: messageFor(view, policy, remaining),
    ...(approved && 'authorization_token' in view && view.authorization_token ? { authorization_token: view.authorization_token } : {}),
  };
}

/**
 * `POST /authorize` with a `dlt_` vault token: the vault's agent asks for `amount` at the merchant.
 * Decided by the one authorize service of /v1 (same rules, audit, events, outbox, idempotency);
 * only the answer is shaped differently. With an Idempotency-Key the shaped answer is what is
 * stored, in the decision's transaction, so a replay returns it byte for byte.
 */
export async function authorizeWithVault(
  deps: AuthorizationDeps,
  caller: Caller,
  input: QuickstartAuthorizeInput,
  idem?: IdempotencyHandle<DbOrTrx>,
  arrivedAt?: number,
): Promise<QuickstartAuthorization> {
  requireRole(caller, ADMIN);
  const vault = isVaultTokenShaped(input.token)
    ? await findActiveVaultByTokenHash(deps.db, caller, hashVaultToken(input.token))
    : undefined;
  if (!vault) throw new AppError('unauthorized', 'Unknown or revoked vault token.', 'token');

  const request: AuthorizeInput = {
    agent_id: vault.agent_id,
    amount: input.amount,
    currency: QUICKSTART_CURRENCY,
    vendor: input.merchant_name,
    category: input.merchant_category,
    metadata: { vault_id: vault.id },
  };
  let shaped: QuickstartAuthorization | undefined;
  const handle: IdempotencyHandle<DbOrTrx> | undefined = idem && {
    key: idem.key,
    complete: async (trx, status, body) => {
      shaped = await toQuickstartAuthorization(trx, JSON.parse(body) as DecisionView);
      await idem.complete(trx, status, JSON.stringify(shaped));
    },
  };
  const view = await authorize(deps, caller, request, handle, arrivedAt);
  return shaped ?? toQuickstartAuthorization(deps.db, view);
}
