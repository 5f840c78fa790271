import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { z } from 'zod';
import { invalid } from '../errors.js';
import { isStorableText } from '../storable-text.js';

export const DEFAULT_LIST_LIMIT = 20;
export const MAX_LIST_LIMIT = 100;

export interface Page<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** The schema of a page of `item`s, for the OpenAPI document (`AgentList`, …). */
export const listOf = <T extends z.ZodType>(item: T, what: string) =>
  z
    .object({
      object: z.literal('list'),
      data: z.array(item).describe('Newest first'),
      has_more: z.boolean().describe('True when another page follows'),
      next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page'),
    })
    .describe(`A page of ${what}, newest first (keyset-paginated).`);

/** Cursors are opaque to clients: base64url of the last row's key. */
export const encodeCursor = (key: string | number): string =>
  Buffer.from(`c1:${key}`, 'utf8').toString('base64url');

export function decodeCursor(cursor: string, param = 'cursor'): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  // A forged cursor may decode to text PostgreSQL cannot hold (NUL): it is not one of ours either.
  if (!text.startsWith('c1:') || text.length < 4 || text.length > 200 || !isStorableText(text)) {
    throw invalid('The cursor is not one this service returned.', param);
  }
  return text.slice(3);
}

/**
 * Keyset condition for lists ordered by (created_at DESC, id DESC): rows strictly after the cursor row.
 * Ties on created_at are broken by id, so a page never repeats or skips a row.
 */
export function afterRow(table: string, cursorId: string, scope: { accountId: string; livemode: boolean }): RawBuilder<SqlBool> {
  // The cursor row must be the caller's own: a foreign id positions nothing (an empty page).
  return sql<SqlBool>`(${sql.ref(`${table}.created_at`)}, ${sql.ref(`${table}.id`)}) <
    (SELECT c.created_at, c.id FROM ${sql.table(table)} c
      WHERE c.id = ${cursorId} AND c.account_id = ${scope.accountId} AND c.livemode = ${scope.livemode})`;
}

/** `rows` holds up to limit + 1 rows; the extra one only says there is more. */
export function toPage<R, T>(rows: R[], limit: number, map: (r: R) => T, key: (r: R) => string | number): Page<T> {
  const hasMore = rows.length > limit;
  const pageRows = rows.slice(0, limit);
  const last = pageRows.at(-1);
  return {
    object: 'list',
    data: pageRows.map(map),
    has_more: hasMore,
    next_cursor: hasMore && last !== undefined ? encodeCursor(key(last)) : null,
  };
}
