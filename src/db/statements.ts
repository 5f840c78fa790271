import { CompiledQuery, type Compilable } from 'kysely';
import type { DbOrTrx } from './database.js';

/**
 * Runs several data-changing statements as one round trip: each becomes a data-modifying CTE of a
 * single statement. PostgreSQL runs every such CTE exactly once and to completion, all against one
 * snapshot, so the statements must be independent: none may read rows another one writes, and no
 * two may change the same row. Absent entries (`undefined`, `false`) are skipped.
 */
export async function executeTogether(db: DbOrTrx, statements: readonly (Compilable | undefined | false | null)[]): Promise<void> {
  const parts: string[] = [];
  const parameters: unknown[] = [];
  for (const statement of statements) {
    if (!statement) continue;
    const compiled = statement.compile();
    // Placeholders are renumbered by pattern, which is only safe when no literal text could hold one.
    if (compiled.sql.includes("'")) throw new Error('executeTogether takes fully parameterised statements only');
    const offset = parameters.length;
    parts.push(`w${parts.length} AS (${compiled.sql.replace(/\$(\d+)/g, (_m, n: string) => `$${Number(n) + offset}`)})`);
    parameters.push(...compiled.parameters);
  }
  if (parts.length === 0) return;
  await db.executeQuery(CompiledQuery.raw(`WITH ${parts.join(', ')} SELECT 1`, parameters));
}
