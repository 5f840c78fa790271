import { sql, type RawBuilder } from 'kysely';
import type { AgentKeyDirectoriesTable, DbOrTrx, Selectable } from '../db/database.js';
import type { Scope } from '../db/scope.js';
import { newId } from '../kernel/ids.js';
import type { DirectoryListing } from './key-directory.js';

export type KeyDirectoryRow = Selectable<AgentKeyDirectoriesTable>;

/** A text[] parameter written the same way on PostgreSQL and the embedded engine (as JSON, unpacked by the server). */
const textArray = (values: readonly string[]): RawBuilder<string[]> => sql<string[]>`ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`;

const expiry = (fetchedAt: Date, listing: DirectoryListing) => new Date(fetchedAt.getTime() + listing.maxAgeSeconds * 1000);

/**
 * Stores a listing just fetched at a key's creation: one row per account, mode and origin, so one
 * tenant's directory never shares a listing (or its failures) with another's. Returns its id.
 */
export async function upsertDirectory(db: DbOrTrx, scope: Scope, origin: string, listing: DirectoryListing, fetchedAt: Date): Promise<string> {
  const row = await db
    .insertInto('agent_key_directories')
    .values({
      id: newId('akd'),
      account_id: scope.accountId,
      livemode: scope.livemode,
      origin,
      thumbprints: textArray(listing.thumbprints),
      fetched_at: fetchedAt,
      expires_at: expiry(fetchedAt, listing),
      last_attempt_at: fetchedAt,
      last_error: null,
      created_at: fetchedAt,
    })
    .onConflict((oc) =>
      oc.columns(['account_id', 'livemode', 'origin']).doUpdateSet((eb) => ({
        thumbprints: eb.ref('excluded.thumbprints'),
        fetched_at: eb.ref('excluded.fetched_at'),
        expires_at: eb.ref('excluded.expires_at'),
        last_attempt_at: eb.ref('excluded.last_attempt_at'),
        last_error: null,
      })),
    )
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * Claims up to `limit` directories whose listing ran out and that still have an active key: each
 * is leased for `leaseMs` (its expires_at moved on), so no other process fetches it meanwhile,
 * and rows another process is claiming are skipped, not waited for.
 */
export async function claimDueDirectories(db: DbOrTrx, now: Date, limit: number, leaseMs: number): Promise<KeyDirectoryRow[]> {
  const { rows } = await sql<KeyDirectoryRow>`
    UPDATE agent_key_directories SET expires_at = ${new Date(now.getTime() + leaseMs)}, last_attempt_at = ${now}
    WHERE id IN (
      SELECT d.id FROM agent_key_directories d
      WHERE d.expires_at <= ${now}
        AND EXISTS (SELECT 1 FROM agent_keys k WHERE k.directory_id = d.id AND k.status = 'active')
      ORDER BY d.expires_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED)
    RETURNING *`.execute(db);
  return rows;
}

/**
 * Stores a refetched listing, unless a newer one was stored since the claim (a key created
 * meanwhile fetched the directory again): an older listing never overwrites it.
 */
export async function recordDirectoryListing(db: DbOrTrx, claimed: Pick<KeyDirectoryRow, 'id' | 'fetched_at'>, listing: DirectoryListing, fetchedAt: Date): Promise<void> {
  await db
    .updateTable('agent_key_directories')
    .set({ thumbprints: textArray(listing.thumbprints), fetched_at: fetchedAt, expires_at: expiry(fetchedAt, listing), last_error: null })
    .where('id', '=', claimed.id)
    .where('fetched_at', '=', claimed.fetched_at)
    .execute();
}

/** A failed refetch keeps the last listing; only the rule it broke is noted (the lease already set the next try). */
export async function recordDirectoryFailure(db: DbOrTrx, id: string, rule: string): Promise<void> {
  await db.updateTable('agent_key_directories').set({ last_error: rule.slice(0, 500) }).where('id', '=', id).execute();
}
