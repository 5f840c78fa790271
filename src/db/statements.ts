import { CompiledQuery, type Compilable } from 'kysely';
import type { DbOrTrx } from './database.js';
import { preparedSql } from './prepared.js';
import { claimLost, isClaimLost } from '../kernel/idempotency.js';

/** The state a `precondition` checked had changed: nothing was written. */
export class PreconditionFailed extends Error {
  constructor() {
    super('the state this write was based on has changed');
  }
}

/** SQLSTATE raised by `spend_auth_require` (migration 009). */
const PRECONDITION_SQLSTATE = 'SA409';

/**
 * Runs several data-changing statements as one round trip: each becomes a data-modifying CTE of a
 * single statement. PostgreSQL runs every such CTE exactly once and to completion, all against one
 * snapshot, so the statements must be independent: none may read rows another one writes, and no
 * two may change the same row. Absent entries (`undefined`, `false`) are skipped.
 *
 * With `precondition` (a statement with RETURNING), it runs first and the whole statement is undone
 * unless it returned a row (with `preconditionRows`: exactly that many); then `PreconditionFailed`
 * is thrown. Its row locks are taken before any
 * other statement's, so lock order matches a transaction that locks the same row first.
 */
export async function executeTogether(
  db: DbOrTrx,
  statements: readonly (Compilable | CompiledQuery | undefined | false | null)[],
  opts: { precondition?: Compilable | CompiledQuery | undefined; preconditionRows?: number } = {},
): Promise<void> {
  const texts: string[] = [];
  const counts: number[] = [];
  const parameters: unknown[] = [];
  for (const statement of [opts.precondition, ...statements]) {
    if (!statement) continue;
    const compiled = isCompiled(statement) ? statement : statement.compile();
    texts.push(compiled.sql);
    counts.push(compiled.parameters.length);
    parameters.push(...compiled.parameters);
  }
  if (texts.length === 0) return;
  // With `preconditionRows`, the precondition must return exactly that many rows (one per row it changes).
  const counted = opts.precondition !== undefined && opts.preconditionRows !== undefined;
  if (counted) parameters.push(opts.preconditionRows);
  const key = `${counted ? 'c' : opts.precondition ? 'p' : 'n'}\0${texts.join('\0')}`;
  let text = combined.get(key);
  if (text === undefined) {
    text = combine(texts, counts, counted ? 'count' : opts.precondition !== undefined);
    if (combined.size >= MAX_SHAPES) combined.clear();
    combined.set(key, text);
  }
  try {
    await db.executeQuery(CompiledQuery.raw(text, parameters));
  } catch (err) {
    if ((err as { code?: unknown }).code === PRECONDITION_SQLSTATE) throw new PreconditionFailed();
    if (isClaimLost(err)) throw claimLost();
    throw err;
  }
}

const isCompiled = (s: Compilable | CompiledQuery): s is CompiledQuery => 'sql' in s && 'parameters' in s;

/** The combined text of each shape seen (a handful on the authorize path), built once and run as a prepared statement. */
const combined = new Map<string, string>();
const MAX_SHAPES = 200;

function combine(texts: string[], counts: number[], precondition: boolean | 'count'): string {
  let offset = 0;
  const parts = texts.map((sql, i) => {
    // Placeholders are renumbered by pattern, which is only safe when no literal text could hold one.
    if (sql.includes("'")) throw new Error('executeTogether takes fully parameterised statements only');
    const at = offset;
    offset += counts[i]!;
    return `w${i} AS (${sql.replace(/\$(\d+)/g, (_m, n: string) => `$${Number(n) + at}`)})`;
  });
  // The main query reads the precondition's CTE, so it runs before the others (which run at the end).
  const main =
    precondition === 'count' ? `SELECT spend_auth_require((SELECT count(*) FROM w0) = $${offset + 1})` : precondition ? 'SELECT spend_auth_require(EXISTS (SELECT 1 FROM w0))' : 'SELECT 1';
  return preparedSql(`WITH ${parts.join(', ')} ${main}`);
}

/** Runs a query as a prepared statement (see prepared.ts): for the few hot queries of fixed shape. */
export async function executePrepared<R>(db: DbOrTrx, query: Compilable<R>): Promise<R[]> {
  const compiled = query.compile();
  preparedSql(compiled.sql);
  return (await db.executeQuery(compiled)).rows;
}

/** Insert texts by table and column list: built once, run as prepared statements. */
const insertTexts = new Map<string, string>();

/**
 * `INSERT INTO table (columns of the first row) VALUES (…), …` plus `suffix` (an ON CONFLICT
 * clause), as a compiled statement whose text is built once per shape: for the hot path, where
 * building it through the query builder on every request costs more than running it. Every row has
 * the first row's keys; values go as parameters (objects must already be JSON text).
 */
export function insertRows(table: string, rows: readonly Record<string, unknown>[], suffix = ''): CompiledQuery {
  const columns = Object.keys(rows[0]!);
  const key = `${table}\0${rows.length}\0${columns.join(',')}\0${suffix}`;
  let text = insertTexts.get(key);
  if (text === undefined) {
    let n = 0;
    const tuple = () => `(${columns.map(() => `$${++n}`).join(', ')})`;
    text = preparedSql(`insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values ${rows.map(tuple).join(', ')}${suffix ? ` ${suffix}` : ''}`);
    if (insertTexts.size >= MAX_SHAPES) insertTexts.clear();
    insertTexts.set(key, text);
  }
  const parameters: unknown[] = [];
  for (const row of rows) for (const c of columns) parameters.push(row[c]);
  return CompiledQuery.raw(text, parameters);
}

const SLOT = Symbol('slot');
type Slot = { [SLOT]: number };

/**
 * A query of fixed shape, built and compiled by the query builder once: `build` gets placeholders
 * for its arguments, and each call puts its own values in their places. `build` must not branch on
 * its arguments (they are placeholders), and must use each only as a value.
 */
export function compiledOnce<A extends readonly unknown[]>(build: (db: DbOrTrx, ...args: A) => Compilable): (db: DbOrTrx, ...args: A) => CompiledQuery {
  let template: { sql: string; parameters: readonly unknown[] } | undefined;
  return (db: DbOrTrx, ...args: A) => {
    if (!template) {
      const slots = Array.from({ length: build.length - 1 }, (_, i): Slot => ({ [SLOT]: i }));
      const compiled = build(db, ...(slots as unknown as A)).compile();
      template = { sql: preparedSql(compiled.sql), parameters: compiled.parameters };
    }
    return CompiledQuery.raw(
      template.sql,
      template.parameters.map((p) => (typeof p === 'object' && p !== null && SLOT in p ? args[(p as Slot)[SLOT]] : p)),
    );
  };
}
