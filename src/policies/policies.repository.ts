import type { ApprovalRule, AutoFreeze, Selectable, DbOrTrx, PoliciesTable, VelocityLimit } from '../db/database.js';
import { afterRow } from '../db/pagination.js';
import { inScope } from '../db/scope.js';

export type PolicyRow = Selectable<PoliciesTable>;
export type PolicyWrite = Partial<
  Omit<PolicyRow, 'id' | 'account_id' | 'livemode' | 'created_at' | 'vendor_allowlist' | 'vendor_denylist' | 'categories_allowed' | 'velocity_limits' | 'auto_freeze' | 'approval_rules'>
> & {
  vendor_allowlist?: string[];
  vendor_denylist?: string[];
  categories_allowed?: string[];
  velocity_limits?: VelocityLimit[];
  auto_freeze?: AutoFreeze | null;
  approval_rules?: ApprovalRule[];
};

const JSON_COLUMNS = ['vendor_allowlist', 'vendor_denylist', 'categories_allowed', 'velocity_limits', 'auto_freeze', 'approval_rules'] as const;

/** jsonb columns go in as JSON text. */
function toColumns(write: PolicyWrite): Record<string, unknown> {
  const out: Record<string, unknown> = { ...write };
  for (const c of JSON_COLUMNS) if (write[c] !== undefined) out[c] = JSON.stringify(write[c]);
  return out;
}

export async function insertPolicy(
  db: DbOrTrx,
  base: { id: string; account_id: string; livemode: boolean; created_at: Date; updated_at: Date; name: string; budget_monthly: number; budget_single_max: number },
  write: PolicyWrite,
): Promise<PolicyRow> {
  return db
    .insertInto('policies')
    .values({ ...toColumns(write), ...base } as never)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updatePolicy(db: DbOrTrx, id: string, write: PolicyWrite): Promise<PolicyRow> {
  return db
    .updateTable('policies')
    .set(toColumns(write) as never)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A policy by id, deleted or not, whatever its account: the one a decision of the account applied. */
export async function findPolicyById(db: DbOrTrx, id: string): Promise<PolicyRow | undefined> {
  return db.selectFrom('policies').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A live (not deleted) policy of the account and mode; `forUpdate` locks it for the transaction. */
export async function findPolicyInScope(db: DbOrTrx, accountId: string, livemode: boolean, id: string, forUpdate = false) {
  let q = db
    .selectFrom('policies')
    .selectAll()
    .where('id', '=', id)
    .$call(inScope({ accountId, livemode }))
    .where('deleted_at', 'is', null);
  if (forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function listPolicies(
  db: DbOrTrx,
  scope: { accountId: string; livemode: boolean; active?: boolean | undefined },
  limit: number,
  cursorId?: string,
) {
  let q = db
    .selectFrom('policies')
    .selectAll()
    .$call(inScope(scope))
    .where('deleted_at', 'is', null);
  if (scope.active !== undefined) q = q.where('active', '=', scope.active);
  if (cursorId) q = q.where(afterRow('policies', cursorId, scope));
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export async function countBoundAgents(db: DbOrTrx, policyId: string): Promise<number> {
  const row = await db
    .selectFrom('agents')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('policy_id', '=', policyId)
    .where('status', '<>', 'deactivated')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
