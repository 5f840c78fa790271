import { actorOf, ADMIN, requireRole, STAFF, type Caller } from '../kernel/caller.js';
import type { Db } from '../db/database.js';
import { listPage } from '../db/pagination.js';
import { appendAudit } from '../audit/audit.repository.js';
import { conflict, invalid, notFound } from '../kernel/errors.js';
import { newId } from '../kernel/ids.js';
import {
  countBoundAgents,
  findPolicyInScope,
  insertPolicy,
  listPolicies as listPolicyRows,
  updatePolicy as updatePolicyRow,
} from './policies.repository.js';
import { escalationPastTimeout, type CreatePolicyInput, type UpdatePolicyInput } from './policies.schemas.js';
import { toPolicyView, type DeletedPolicyView, type PolicyView } from './policy.view.js';

export { toPolicyView, type PolicyView } from './policy.view.js';

export async function createPolicy(db: Db, caller: Caller, input: CreatePolicyInput): Promise<PolicyView> {
  requireRole(caller, ADMIN);
  return db.transaction().execute(async (trx) => {
    const now = new Date();
    const { name, budget_monthly, budget_single_max, ...rest } = input;
    const row = await insertPolicy(
      trx,
      { id: newId('pol'), account_id: caller.accountId, livemode: caller.livemode, created_at: now, updated_at: now, name, budget_monthly, budget_single_max },
      rest,
    );
    await appendAudit(trx, {
      accountId: caller.accountId,
      livemode: caller.livemode,
      type: 'policy.created',
      actor: actorOf(caller),
      policyId: row.id,
      metadata: { policy: toPolicyView(row) },
    });
    return toPolicyView(row);
  });
}

export async function getPolicy(db: Db, caller: Caller, id: string): Promise<PolicyView> {
  requireRole(caller, STAFF);
  const row = await findPolicyInScope(db, caller.accountId, caller.livemode, id);
  if (!row) throw notFound('policy', 'id');
  return toPolicyView(row);
}

export async function listPolicies(db: Db, caller: Caller, q: { limit: number; cursor?: string | undefined; active?: boolean | undefined }) {
  requireRole(caller, STAFF);
  const scope = { accountId: caller.accountId, livemode: caller.livemode, active: q.active };
  return listPage(q, (limit, after) => listPolicyRows(db, scope, limit, after), toPolicyView);
}

export async function updatePolicy(db: Db, caller: Caller, id: string, input: UpdatePolicyInput): Promise<PolicyView> {
  requireRole(caller, ADMIN);
  return db.transaction().execute(async (trx) => {
    const before = await findPolicyInScope(trx, caller.accountId, caller.livemode, id, true);
    if (!before) throw notFound('policy', 'id');
    const escalateAfter = input.escalate_after_seconds !== undefined ? input.escalate_after_seconds : before.escalate_after_seconds;
    if (escalationPastTimeout(escalateAfter, input.approval_timeout_seconds ?? before.approval_timeout_seconds)) {
      const param = input.escalate_after_seconds !== undefined ? 'escalate_after_seconds' : 'approval_timeout_seconds';
      throw invalid(`Invalid ${param}: escalate_after_seconds (${escalateAfter}) must not exceed approval_timeout_seconds.`, param);
    }
    const row = await updatePolicyRow(trx, id, { ...input, updated_at: new Date() });
    await appendAudit(trx, {
      accountId: caller.accountId,
      livemode: caller.livemode,
      type: 'policy.updated',
      actor: actorOf(caller),
      policyId: row.id,
      metadata: { changes: input },
    });
    return toPolicyView(row);
  });
}

/** Soft delete: decisions and deactivated agents keep pointing at the policy they used. */
export async function deletePolicy(db: Db, caller: Caller, id: string) {
  requireRole(caller, ADMIN);
  return db.transaction().execute(async (trx) => {
    const before = await findPolicyInScope(trx, caller.accountId, caller.livemode, id, true);
    if (!before) throw notFound('policy', 'id');
    const bound = await countBoundAgents(trx, id);
    if (bound > 0) {
      throw conflict(`The policy is bound to ${bound} agent(s) that are not deactivated; rebind or deactivate them first.`, 'id');
    }
    await updatePolicyRow(trx, id, { deleted_at: new Date(), updated_at: new Date() });
    await appendAudit(trx, {
      accountId: caller.accountId,
      livemode: caller.livemode,
      type: 'policy.deleted',
      actor: actorOf(caller),
      policyId: id,
    });
    return { id, object: 'policy', deleted: true } satisfies DeletedPolicyView;
  });
}
