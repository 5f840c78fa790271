import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { z } from 'zod';
import { invalid } from '../kernel/errors.js';
import { isStorableText } from '../kernel/storable-text.js';

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

/**
 * The cursors decodeCursor accepts, as a pattern over the base64url text (the document's `cursor`
 * parameters; decodeCursor still decides): `c1:` (`YzE6`), then 1–197 key bytes, none of them NUL.
 * Each 4-character group holds 3 bytes; its alternatives leave out the neighbouring characters
 * whose bits make a zero byte. A last 2 or 3 characters hold 1 or 2 more bytes.
 */
const ANY = 'A-Za-z0-9_-';
const NOT_A = 'B-Za-z0-9_-';
/** Second characters: `A` (both its neighbours' bits matter), `B`–`P`, `Q`/`g`/`w`, the rest. */
const FIRST_PAIR_LOW0 = `(?:[${NOT_A}]A|[${ANY}][Qgw])`;
const FIRST_PAIR_OTHER = `(?:[${NOT_A}][B-P]|[${ANY}][R-Za-fh-vx-z0-9_-])`;
const S4 = 'AEIMQUYcgkosw048';
const NOT_S4 = 'B-DF-HJ-LN-PR-TV-XZabd-fh-jl-np-rt-vx-z1-35-79_-';
const NOT_S4_NOR_AD = 'F-HJ-LN-PR-TV-XZabd-fh-jl-np-rt-vx-z1-35-79_-';
const GROUP =
  `(?:${FIRST_PAIR_LOW0}(?:[EIMQUYcgkosw048][${NOT_A}]|[${NOT_S4_NOR_AD}][${ANY}])` +
  `|${FIRST_PAIR_OTHER}(?:[${S4}][${NOT_A}]|[${NOT_S4}][${ANY}]))`;
const TAIL = `(?:[${NOT_A}][${ANY}]|A[Q-Za-z0-9_-]|${FIRST_PAIR_LOW0}[E-Za-z0-9_-]|${FIRST_PAIR_OTHER}[${ANY}])`;
export const CURSOR_PATTERN = `^YzE6(?:${GROUP}{1,65}${TAIL}?|${TAIL})$`;

/**
 * The audit log's cursors: `c1:` and a sequence number of 1–14 digits, the first not 0. Three digits
 * make a group `[MNO][DTjz][AEIMQUYcgk][w-z0-5]` (`O` only with `D`/`T`: 8 and 9 end the digits).
 */
const DIGIT_PAIR = '(?:[MN][DTjz]|O[DT])';
const FIRST_DIGIT_PAIR = '(?:M[Tjz]|N[DTjz]|O[DT])';
const DIGITS = (pair: string) => `${pair}[AEIMQUYcgk][w-z0-5]`;
const DIGITS_TAIL = (pair: string, lone: string) => `(?:${pair}[AEIMQUYcgk]|${lone})`;
export const SEQUENCE_CURSOR_PATTERN =
  `^YzE6(?:${DIGITS(FIRST_DIGIT_PAIR)}(?:${DIGITS(DIGIT_PAIR)}){0,3}${DIGITS_TAIL(DIGIT_PAIR, '(?:[MN][AQgw]|O[AQ])')}?` +
  `|${DIGITS_TAIL(FIRST_DIGIT_PAIR, '(?:M[Qgw]|N[AQgw]|O[AQ])')})$`;

const CURSOR_DESCRIPTION = 'The `next_cursor` of the previous page, exactly as this service returned it (opaque; any other value is refused with 400, `param` `cursor`)';

/** The `cursor` query parameter of list routes: decoded by decodeCursor in the handler. */
export const cursorSchema = (pattern = CURSOR_PATTERN) =>
  z.string().min(1).max(300).meta({ pattern, description: CURSOR_DESCRIPTION });

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

/**
 * A page of a list of rows with ids, newest first: `read(limit, afterId)` reads up to `limit` rows
 * after the cursor's row (all from the first when there is no cursor), one more than the page
 * holds, so the extra one says whether another page follows.
 */
export async function listPage<R extends { id: string }, T>(
  q: { limit: number; cursor?: string | undefined },
  read: (limit: number, afterId: string | undefined) => Promise<R[]>,
  view: (row: R) => T,
): Promise<Page<T>> {
  return toPage(await read(q.limit + 1, q.cursor ? decodeCursor(q.cursor) : undefined), q.limit, view, (r) => r.id);
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
