import { actorOf, ADMIN, requireRole, STAFF, type Caller } from '../kernel/caller.js';
import type { AgentStatus, Db, DbOrTrx } from '../db/database.js';
import { listPage } from '../db/pagination.js';
import { appendAudit } from '../audit/audit.repository.js';
import { conflict, invalid, notFound } from '../kernel/errors.js';
import { newId } from '../kernel/ids.js';
import { emitEvent } from '../events/events.repository.js';
import { findPolicyInScope } from '../policies/policies.repository.js';
import { findAgentInScope, insertAgent, listAgents as listAgentRows, updateAgent as updateAgentRow, type AgentRow } from './agents.repository.js';
import type { CreateAgentInput, UpdateAgentInput } from './agents.schemas.js';
import { toAgentView, type AgentView } from './agent.view.js';

export { toAgentView, type AgentView } from './agent.view.js';

/** Hooks other features attach to agent transitions, run inside the same transaction. */
export interface AgentHooks {
  /** Called when an agent stops being able to transact (frozen or deactivated). */
  onAgentStopped?: (trx: DbOrTrx, agent: AgentRow, reason: 'agent_frozen' | 'agent_deactivated', actor: { type: 'api_key' | 'reviewer' | 'operator' | 'system'; id: string | null }) => Promise<void>;
}

async function requirePolicy(trx: DbOrTrx, caller: Caller, policyId: string) {
  // Locked so a concurrent DELETE of the policy cannot slip between the check and the bind.
  const policy = await findPolicyInScope(trx, caller.accountId, caller.livemode, policyId, true);
  if (!policy) throw notFound('policy', 'policy_id');
  return policy;
}

/** Inserts a new active agent and its `agent.created` record in the caller's transaction (both surfaces use it). */
export async function registerAgent(
  trx: DbOrTrx,
  caller: Caller,
  fields: { name: string; agent_type: string | null; policy_id: string | null; metadata: Record<string, unknown> },
  auditMetadata: Record<string, unknown> = {},
): Promise<AgentRow> {
  const now = new Date();
  const row = await insertAgent(trx, {
    id: newId('agt'),
    account_id: caller.accountId,
    livemode: caller.livemode,
    ...fields,
    status: 'active',
    kyc_status: 'pending',
    created_at: now,
    updated_at: now,
  });
  await appendAudit(trx, {
    accountId: caller.accountId,
    livemode: caller.livemode,
    type: 'agent.created',
    actor: actorOf(caller),
    agentId: row.id,
    policyId: row.policy_id,
    metadata: { name: row.name, ...auditMetadata },
  });
  return row;
}

export async function createAgent(db: Db, caller: Caller, input: CreateAgentInput): Promise<AgentView> {
  requireRole(caller, ADMIN);
  return db.transaction().execute(async (trx) => {
    await requirePolicy(trx, caller, input.policy_id);
    const row = await registerAgent(trx, caller, { name: input.name, agent_type: null, policy_id: input.policy_id, metadata: input.metadata ?? {} });
    return toAgentView(row);
  });
}

/** Agent keys may read only their own agent. */
export async function getAgent(db: Db, caller: Caller, id: string): Promise<AgentView> {
  if (caller.role === 'agent' && caller.agentId !== id) throw notFound('agent', 'id');
  const row = await findAgentInScope(db, caller.accountId, caller.livemode, id);
  if (!row) throw notFound('agent', 'id');
  return toAgentView(row);
}

export async function listAgents(
  db: Db,
  caller: Caller,
  q: { limit: number; cursor?: string | undefined; status?: AgentStatus | undefined; policy_id?: string | undefined },
) {
  requireRole(caller, STAFF);
  const scope = { accountId: caller.accountId, livemode: caller.livemode, status: q.status, policyId: q.policy_id };
  return listPage(q, (limit, after) => listAgentRows(db, scope, limit, after), toAgentView);
}

function mergeMetadata(current: Record<string, unknown>, patch: Record<string, unknown>) {
  const merged: Record<string, unknown> = { ...current };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete merged[k];
    else merged[k] = v;
  }
  return merged;
}

export const MAX_METADATA_KEYS = 50;

export async function updateAgent(db: Db, caller: Caller, id: string, input: UpdateAgentInput, hooks: AgentHooks = {}): Promise<AgentView> {
  requireRole(caller, ADMIN);
  return db.transaction().execute(async (trx) => {
    const before = await findAgentInScope(trx, caller.accountId, caller.livemode, id, true);
    if (!before) throw notFound('agent', 'id');
    if (before.status === 'deactivated') throw conflict('The agent is deactivated; it can no longer be updated.', 'id');
    if (input.policy_id !== undefined) await requirePolicy(trx, caller, input.policy_id);
    const metadata = input.metadata ? mergeMetadata(before.metadata, input.metadata) : undefined;
    if (metadata && Object.keys(metadata).length > MAX_METADATA_KEYS) {
      throw invalid(`metadata would hold more than ${MAX_METADATA_KEYS} keys.`, 'metadata');
    }
    const { status, ...fields } = input;
    let row = before;
    // A PATCH that only moves status is a freeze or unfreeze: audited as that, not as an update too.
    if (Object.values(fields).some((v) => v !== undefined)) {
      row = await updateAgentRow(trx, id, { ...fields, ...(metadata ? { metadata } : {}) });
      await appendAudit(trx, {
        accountId: caller.accountId,
        livemode: caller.livemode,
        type: 'agent.updated',
        actor: actorOf(caller),
        agentId: id,
        policyId: row.policy_id,
        metadata: { changes: { ...fields } },
      });
    }
    if (status && status !== before.status) {
      row = await transition(trx, caller, row, status === 'frozen' ? 'frozen' : 'active', hooks);
    }
    return toAgentView(row);
  });
}

type Transition = 'frozen' | 'active' | 'deactivated';
const AUDIT_TYPE: Record<Transition, string> = {
  frozen: 'agent.frozen',
  active: 'agent.unfrozen',
  deactivated: 'agent.deactivated',
};

type Actor = { type: 'api_key' | 'reviewer' | 'operator' | 'system'; id: string | null };

/**
 * Changes an agent's status inside the caller's transaction (the agent row locked): the update,
 * its audit record, the `agent.frozen` event, and the hook that resolves pending holds.
 */
export async function transitionAgent(trx: DbOrTrx, agent: AgentRow, to: Transition, actor: Actor, hooks: AgentHooks, reason?: string) {
  const row = await updateAgentRow(trx, agent.id, { status: to });
  await appendAudit(trx, {
    accountId: agent.account_id,
    livemode: agent.livemode,
    type: AUDIT_TYPE[to],
    actor,
    agentId: agent.id,
    policyId: agent.policy_id,
    reason: reason ?? null,
  });
  if (to === 'frozen') {
    await emitEvent(trx, { accountId: agent.account_id, livemode: agent.livemode, type: 'agent.frozen', data: toAgentView(row) });
  }
  if (to !== 'active') await hooks.onAgentStopped?.(trx, row, to === 'frozen' ? 'agent_frozen' : 'agent_deactivated', actor);
  return row;
}

const transition = (trx: DbOrTrx, caller: Caller, agent: AgentRow, to: Transition, hooks: AgentHooks) =>
  transitionAgent(trx, agent, to, actorOf(caller), hooks);

/** Freeze, unfreeze and deactivate are repeatable: a second call changes and audits nothing. */
export async function setAgentStatus(db: Db, caller: Caller, id: string, to: Transition, hooks: AgentHooks = {}): Promise<AgentView> {
  requireRole(caller, to === 'deactivated' ? ADMIN : STAFF);
  return db.transaction().execute(async (trx) => {
    const agent = await findAgentInScope(trx, caller.accountId, caller.livemode, id, true);
    if (!agent) throw notFound('agent', 'id');
    if (agent.status === to) return toAgentView(agent);
    if (agent.status === 'deactivated') throw conflict('The agent is deactivated; its status can no longer change.', 'id');
    return toAgentView(await transition(trx, caller, agent, to, hooks));
  });
}
