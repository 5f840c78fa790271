import { createHash } from 'node:crypto';
import type pg from 'pg';

/**
 * SQL texts that run as named prepared statements on PostgreSQL: each pooled connection parses and
 * plans them once (later executions may use the cached generic plan) instead of on every request.
 * Only statements of a bounded set of shapes belong here (the authorize path's): every name stays
 * prepared on every connection for the connection's life.
 */
const names = new Map<string, string>();
const MAX_NAMES = 500;

/** Marks `sql` to run as a prepared statement from now on; returns it. */
export function preparedSql(sql: string): string {
  if (!names.has(sql) && names.size < MAX_NAMES) names.set(sql, `sa_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`);
  return sql;
}

/** PostgreSQL's answer when a table a prepared statement reads changed shape (a migration added a column). */
const isStaleStatement = (err: unknown) => (err as { code?: string }).code === '0A000' && /cached plan must not change result type/.test((err as Error).message);

type Query = (...args: unknown[]) => Promise<unknown>;

/**
 * On each new pooled client: a query whose text is marked runs under its statement name. When a
 * migration changed a table under a prepared statement, the statement is dropped and prepared
 * afresh: at once outside a transaction (the query is run again), or, inside one (which the error
 * has aborted: that request fails), before the connection's next statement outside it.
 */
export function usePreparedStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as Query;
  const parsed = (client as unknown as { connection: { parsedStatements: Record<string, string> } }).connection.parsedStatements;
  const status = () => (client as unknown as { getTransactionStatus(): string | null }).getTransactionStatus();
  const stale = new Set<string>();
  const drop = (name: string) => {
    delete parsed[name];
    // Queued ahead of whatever is sent next on this connection, so the next Parse of the name finds it gone.
    return query(`DEALLOCATE ${name}`).catch(() => {});
  };
  client.query = ((...args: unknown[]) => {
    if (stale.size && status() === 'I') {
      for (const name of stale) void drop(name);
      stale.clear();
    }
    const [text, values] = args;
    const name = typeof text === 'string' && args.length === 2 ? names.get(text) : undefined;
    if (!name) return query(...args);
    return query({ name, text, values }).catch(async (err: unknown) => {
      if (!isStaleStatement(err)) throw err;
      if (status() !== 'I') {
        stale.add(name);
        throw err;
      }
      await drop(name);
      return query({ name, text, values });
    });
  }) as typeof client.query;
}
