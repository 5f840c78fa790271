import { sql } from 'kysely';
import type { DbOrTrx, Selectable, VaultsTable } from '../db/database.js';
import { inScope } from '../db/scope.js';

export type VaultRow = Selectable<VaultsTable>;

export async function insertVault(db: DbOrTrx, row: VaultRow): Promise<VaultRow> {
  return db.insertInto('vaults').values(row).returningAll().executeTakeFirstOrThrow();
}

/** The agent's usable vault, if any (at most one: a unique partial index guarantees it). */
export async function findActiveVaultOfAgent(db: DbOrTrx, agentId: string): Promise<VaultRow | undefined> {
  return db.selectFrom('vaults').selectAll().where('agent_id', '=', agentId).where('revoked_at', 'is', null).executeTakeFirst();
}

export async function revokeVault(db: DbOrTrx, id: string, at: Date): Promise<void> {
  await db.updateTable('vaults').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).execute();
}

/** A usable vault of the account and mode whose token has this hash. */
export async function findActiveVaultByTokenHash(
  db: DbOrTrx,
  scope: { accountId: string; livemode: boolean },
  tokenHash: string,
): Promise<VaultRow | undefined> {
  return db
    .selectFrom('vaults')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .$call(inScope(scope))
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/**
 * Whose signature a quick-start `POST /authorize` with this vault token needs (DECISIONS §19): the
 * vault's agent, and whether that agent's current policy requires signed requests. Read afresh on
 * every such request; undefined for a token of no usable vault of the account and mode.
 */
export async function findVaultSignatureSubject(
  db: DbOrTrx,
  scope: { accountId: string; livemode: boolean },
  tokenHash: string,
): Promise<{ agent_id: string; require_signed_requests: boolean } | undefined> {
  return db
    .selectFrom('vaults')
    .innerJoin('agents', 'agents.id', 'vaults.agent_id')
    .leftJoin('policies', (join) => join.onRef('policies.id', '=', 'agents.policy_id').on('policies.deleted_at', 'is', null))
    .select('vaults.agent_id')
    .select(sql<boolean>`coalesce(policies.require_signed_requests, false)`.as('require_signed_requests'))
    .where('vaults.token_hash', '=', tokenHash)
    .where('vaults.account_id', '=', scope.accountId)
    .where('vaults.livemode', '=', scope.livemode)
    .where('vaults.revoked_at', 'is', null)
    .executeTakeFirst();
}
