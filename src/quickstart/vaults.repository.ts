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
