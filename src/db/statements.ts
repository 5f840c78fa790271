import { CompiledQuery, type Compilable } from 'kysely';
import type { DbOrTrx } from './database.js';
import { preparedSql } from './prepared.js';

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
 * unless it returned a row; then `PreconditionFailed` is thrown. Its row locks are taken before any
 * other statement's, so lock order matches a transaction that locks the same row first.
 */
export async function executeTogether(
  db: DbOrTrx,
  statements: readonly (Compilable | CompiledQuery | undefined | false | null)[],
  opts: { precondition?: Compilable | CompiledQuery } = {},
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
  const key = `${opts.precondition ? 'p' : 'n'}\0${texts.join('\0')}`;
  let text = combined.get(key);
  if (text === undefined) {
    text = combine(texts, counts, opts.precondition !== undefined);
    if (combined.size >= MAX_SHAPES) combined.clear();
    combined.set(key, text);
  }
  try {
    await db.executeQuery(CompiledQuery.raw(text, parameters));
  } catch (err) {
    if ((err as { code?: unknown }).code === PRECONDITION_SQLSTATE) throw new PreconditionFailed();
    throw err;
  }
}

const isCompiled = (s: Compilable | CompiledQuery): s is CompiledQuery => 'sql' in s && 'parameters' in s;

/** The combined text of each shape seen (a handful on the authorize path), built once and run as a prepared statement. */
const combined = new Map<string, string>();
const MAX_SHAPES = 200;

function combine(texts: string[], counts: number[], precondition: boolean): string {
  let offset = 0;
  const parts = texts.map((sql, i) => {
    // Placeholders are renumbered by pattern, which is only safe when no literal text could hold one.
    if (sql.includes("'")) throw new Error('executeTogether takes fully parameterised statements only');
    const at = offset;
    offset += counts[i]!;
    return `w${i} AS (${sql.replace(/\$(\d+)/g, (_m, n: string) => `$${Number(n) + at}`)})`;
  });
  // The main query reads the precondition's CTE, so it runs before the others (which run at the end).
  const main = precondition ? 'SELECT spend_auth_require(EXISTS (SELECT 1 FROM w0))' : 'SELECT 1';
  return preparedSql(`WITH ${parts.join(', ')} ${main}`);
}

/** Runs a query as a prepared statement (see prepared.ts): for the few hot queries of fixed shape. */
export async function executePrepared<R>(db: DbOrTrx, query: Compilable<R>): Promise<R[]> {
  const compiled = query.compile();
  preparedSql(compiled.sql);
  return (await db.executeQuery(compiled)).rows;
}
