import type { AccountsTable, DbOrTrx, Selectable } from '../db/database.js';

export type AccountRow = Selectable<AccountsTable>;

export async function insertAccount(db: DbOrTrx, row: AccountRow): Promise<AccountRow> {
  return db.insertInto('accounts').values(row).returningAll().executeTakeFirstOrThrow();
}

/** The oldest account: on the embedded database of `dev`, the development account. */
export async function firstAccount(db: DbOrTrx): Promise<{ id: string; name: string; created_at: Date } | undefined> {
  return db.selectFrom('accounts').select(['id', 'name', 'created_at']).orderBy('created_at').orderBy('id').limit(1).executeTakeFirst();
}
