import { CompiledQuery, type Compilable } from 'kysely';
import type { DbOrTrx } from './database.js';

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
  statements: readonly (Compilable | undefined | false | null)[],
  opts: { precondition?: Compilable } = {},
): Promise<void> {
  const parts: string[] = [];
  const parameters: unknown[] = [];
  for (const statement of [opts.precondition, ...statements]) {
    if (!statement) continue;
    const compiled = statement.compile();
    // Placeholders are renumbered by pattern, which is only safe when no literal text could hold one.
    if (compiled.sql.includes("'")) throw new Error('executeTogether takes fully parameterised statements only');
    const offset = parameters.length;
    parts.push(`w${parts.length} AS (${compiled.sql.replace(/\$(\d+)/g, (_m, n: string) => `$${Number(n) + offset}`)})`);
    parameters.push(...compiled.parameters);
  }
  if (parts.length === 0) return;
  // The main query reads the precondition's CTE, so it runs before the others (which run at the end).
  const main = opts.precondition ? 'SELECT spend_auth_require(EXISTS (SELECT 1 FROM w0))' : 'SELECT 1';
  try {
    await db.executeQuery(CompiledQuery.raw(`WITH ${parts.join(', ')} ${main}`, parameters));
  } catch (err) {
    if ((err as { code?: unknown }).code === PRECONDITION_SQLSTATE) throw new PreconditionFailed();
    throw err;
  }
}
