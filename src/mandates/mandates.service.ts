/**
 * The mandate resource (DECISIONS §20): issue (admin), list and read (admin, reviewer, the agent's
 * own keys), revoke (admin). Verification is mandate-verify.service.ts.
 */
import { actorOf, ADMIN, ANY_ROLE, requireRole, signedByOf, type Caller } from '../kernel/caller.js';
import type { DbOrTrx } from '../db/database.js';
import { listPage, type Page } from '../db/pagination.js';
import type { Scope } from '../db/scope.js';
import { appendAudit } from '../audit/audit.repository.js';
import { AppError, conflict, invalid, notFound } from '../kernel/errors.js';
import { newId } from '../kernel/ids.js';
import { findAgentInScope } from '../agents/agents.repository.js';
import { findPolicyInScope, type PolicyRow } from '../policies/policies.repository.js';
import { vendorListed } from '../policies/vendor.js';
import { payeeVendor } from './chain.js';
import { buildOpenMandate, issueCredential, type MandateTerms } from './credential.js';
import type { MandateDeps } from './mandate-deps.js';
import { auditRevoked } from './mandate-hooks.js';
import { mandateView, type MandateView } from './mandate.view.js';
import { activeP256Keys, findKeyForMandate, findMandate, insertMandate, listMandates as listMandateRows, revokeMandateRow } from './mandates.repository.js';
import type { CreateMandateInput, ListMandatesQuery } from './mandates.schemas.js';

export { mandateView, type MandateView } from './mandate.view.js';

const scopeOf = (caller: Caller): Scope => ({ accountId: caller.accountId, livemode: caller.livemode });
const clockOf = (deps: MandateDeps) => deps.now ?? deps.authorization.now ?? (() => new Date());

type P256 = { kty: 'EC'; crv: 'P-256'; x: string; y: string };
const P256_ALG = 'ecdsa-p256-sha256';

/** The agent key the mandate binds as `cnf`: the one named (active, P-256, this agent's), or the agent's only active P-256 key. */
async function cnfKey(trx: DbOrTrx, scope: Scope, agentId: string, keyId: string | undefined): Promise<{ id: string; jwk: P256 }> {
  const jwkOf = (jwk: Record<string, string>): P256 => ({ kty: 'EC', crv: 'P-256', x: jwk.x!, y: jwk.y! });
  if (keyId !== undefined) {
    // Locked shared: a concurrent revocation of the key either comes first (refused here) or
    // waits for this mandate and revokes it with the key.
    const key = await findKeyForMandate(trx, scope, keyId, true);
    if (!key || key.agent_id !== agentId || key.status !== 'active' || key.alg !== P256_ALG) {
      throw invalid('The agent_key_id must name an active P-256 key of this agent (POST /v1/agents/:id/keys).', 'agent_key_id');
    }
    return { id: key.id, jwk: jwkOf(key.jwk) };
  }
  const keys = await activeP256Keys(trx, scope, agentId, true);
  if (keys.length === 0) throw invalid('The agent has no active P-256 key to bind the mandate to: register one (POST /v1/agents/:id/keys).', 'agent_key_id');
  if (keys.length > 1) throw invalid(`The agent has ${keys.length} active P-256 keys: name the one to bind with agent_key_id.`, 'agent_key_id');
  return { id: keys[0]!.id, jwk: jwkOf(keys[0]!.jwk) };
}


/** What the policy says of the request: payees off its lists, an amount above its single maximum. */
function checkAgainstPolicy(input: CreateMandateInput, policy: PolicyRow): { amountMax: number } {
  input.payees.forEach((payee, i) => {
    // The vendor its payments will be decided as, derived as verification derives it from the closed mandate's payee.
    const vendor = payeeVendor(payee);
    if (vendor === undefined) throw invalid(`Payee ${i} has no vendor: its website's host is too long and its name has no normal form.`, `payees.${i}`);
    if (vendorListed(vendor, policy.vendor_denylist)) throw invalid(`Payee ${i} is on the policy's vendor denylist.`, `payees.${i}`);
    if (policy.vendor_allowlist.length > 0 && !vendorListed(vendor, policy.vendor_allowlist)) {
      throw invalid(`Payee ${i} is not on the policy's vendor allowlist.`, `payees.${i}`);
    }
  });
  const amountMax = input.amount_max ?? policy.budget_single_max;
  if (amountMax > policy.budget_single_max) throw invalid(`The amount_max must not exceed the policy's budget_single_max (${policy.budget_single_max}).`, 'amount_max');
  if (input.amount_min !== undefined && input.amount_min > amountMax) throw invalid(`The amount_min must not exceed the amount_max (${amountMax}).`, 'amount_min');
  return { amountMax };
}

/**
 * Issues an open Payment Mandate (admin; an agent key → 403: no agent authorizes itself). The
 * agent's row is locked for the issuance, so a concurrent deactivation either comes first
 * (refused here) or revokes this mandate.
 */
export async function createMandate(deps: MandateDeps, caller: Caller, input: CreateMandateInput): Promise<MandateView> {
  requireRole(caller, ADMIN);
  const scope = scopeOf(caller);
  const now = clockOf(deps)();
  const row = await deps.authorization.db.transaction().execute(async (trx) => {
    const agent = await findAgentInScope(trx, scope.accountId, scope.livemode, input.agent_id, true);
    if (!agent) throw notFound('agent', 'agent_id');
    if (agent.status === 'frozen') throw new AppError('agent_frozen', 'The agent is frozen and cannot transact.', 'agent_id');
    if (agent.status === 'deactivated') throw new AppError('agent_deactivated', 'The agent is deactivated and cannot transact.', 'agent_id');
    const policy = agent.policy_id ? await findPolicyInScope(trx, scope.accountId, scope.livemode, agent.policy_id) : undefined;
    if (!policy?.active) throw conflict('The agent has no active policy: a mandate is issued within its policy.', 'agent_id');
    const key = await cnfKey(trx, scope, agent.id, input.agent_key_id);
    const { amountMax } = checkAgainstPolicy(input, policy);

    const id = newId('mdt');
    const iat = Math.floor(now.getTime() / 1000);
    const exp = iat + input.expires_in;
    const terms: MandateTerms = {
      currency: policy.currency,
      amountMax,
      amountMin: input.amount_min,
      payees: input.payees,
      paymentInstruments: input.payment_instruments,
      budget: input.budget,
      recurrence: input.recurrence,
      executionWindow: input.execution_window,
      openCheckoutHash: input.open_checkout_hash,
    };
    const open = buildOpenMandate(terms, key.jwk, iat, exp);
    const credential = await issueCredential(deps.mandateKeys, { iss: deps.authorization.signer.issuer, jti: id, iat, exp }, open);
    const inserted = await insertMandate(trx, {
      id,
      account_id: scope.accountId,
      livemode: scope.livemode,
      agent_id: agent.id,
      agent_key_id: key.id,
      status: 'active',
      credential,
      open_mandate: JSON.stringify(open),
      signing_kid: deps.mandateKeys.current.kid,
      currency: policy.currency,
      category: input.category ?? null,
      single_use: input.recurrence === undefined,
      max_occurrences: input.recurrence?.max_occurrences ?? null,
      budget_minor: input.budget ?? null,
      last_used_at: null,
      expires_at: new Date(exp * 1000),
      revoked_at: null,
      created_at: now,
      metadata: JSON.stringify(input.metadata ?? {}),
    });
    await appendAudit(trx, {
      accountId: scope.accountId,
      livemode: scope.livemode,
      type: 'mandate.created',
      actor: actorOf(caller),
      agentId: agent.id,
      policyId: policy.id,
      category: inserted.category,
      currency: inserted.currency,
      metadata: { mandate_id: id, agent_key_id: key.id },
      signedBy: signedByOf(caller),
    });
    return inserted;
  });
  return mandateView(row, now);
}

const EMPTY_PAGE: Page<MandateView> = { object: 'list', data: [], has_more: false, next_cursor: null };

/** Mandates newest first; an agent key sees its own agent's only. */
export async function listMandates(deps: MandateDeps, caller: Caller, q: ListMandatesQuery): Promise<Page<MandateView>> {
  requireRole(caller, ANY_ROLE);
  let agentId = q.agent_id;
  if (caller.role === 'agent') {
    if (agentId !== undefined && agentId !== caller.agentId) return EMPTY_PAGE;
    agentId = caller.agentId ?? undefined;
  }
  const now = clockOf(deps)();
  return listPage(q, (limit, after) => listMandateRows(deps.authorization.db, scopeOf(caller), { agentId, status: q.status, now }, limit, after), (row) => mandateView(row, now));
}

/** One mandate; another agent's, for an agent key, is as if it did not exist (404). */
export async function getMandate(deps: MandateDeps, caller: Caller, id: string): Promise<MandateView> {
  requireRole(caller, ANY_ROLE);
  const row = await findMandate(deps.authorization.db, scopeOf(caller), id, { agentId: caller.role === 'agent' ? caller.agentId : undefined });
  if (!row) throw notFound('mandate', 'id');
  return mandateView(row, clockOf(deps)());
}

/**
 * Revokes a mandate (admin): it never verifies again, and stays readable (AP2 dispute evidence).
 * Repeatable; only the first revocation is audited. A used or expired mandate has nothing left to
 * revoke: 200, unchanged, no record.
 */
export async function revokeMandate(deps: MandateDeps, caller: Caller, id: string): Promise<MandateView> {
  requireRole(caller, ADMIN);
  const scope = scopeOf(caller);
  const now = clockOf(deps)();
  const row = await deps.authorization.db.transaction().execute(async (trx) => {
    const existing = await findMandate(trx, scope, id, { forUpdate: true });
    if (!existing) throw notFound('mandate', 'id');
    const revoked = await revokeMandateRow(trx, existing.id, now);
    if (!revoked) return existing;
    await auditRevoked(trx, [revoked], actorOf(caller), { signedBy: signedByOf(caller) });
    return (await findMandate(trx, scope, id))!;
  });
  return mandateView(row, now);
}
