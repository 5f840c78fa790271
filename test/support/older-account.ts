import { sql } from 'kysely';
import { createAccount } from '../../src/accounts/accounts.service.js';
import type { Db } from '../../src/db/database.js';

/**
 * An account made by today's code in a database held at an older migration (before 023): its keys
 * are written with the columns 023 adds (`created_by`, `created_via`), so they are added for the
 * insert and dropped after, leaving the older schema as it was. The audit records it writes are
 * those the service of then wrote (no key column is in a record).
 */
export async function createAccountOnOlderSchema(db: Db, input: { name: string; plan: 'growth' }) {
  await sql`ALTER TABLE api_keys ADD COLUMN created_by text, ADD COLUMN created_via text`.execute(db);
  try {
    return await createAccount(db, input);
  } finally {
    await sql`ALTER TABLE api_keys DROP COLUMN created_by, DROP COLUMN created_via`.execute(db);
  }
}
