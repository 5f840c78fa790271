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

/** On each new pooled client: a query whose text is marked runs under its statement name. */
export function usePreparedStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  client.query = ((...args: unknown[]) => {
    const [text, values] = args;
    const name = typeof text === 'string' && args.length === 2 ? names.get(text) : undefined;
    return name ? query({ name, text, values }) : query(...args);
  }) as typeof client.query;
}
