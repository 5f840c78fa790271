/** A tenant: one account in one mode (live or test). Its rows are never seen from another. */
export interface Scope {
  accountId: string;
  livemode: boolean;
}

/** A query builder that takes a WHERE: select, update and delete alike (their columns are named by text here). */
type Filterable<QB> = { where(column: any, op: '=', value: any): QB };

/**
 * Keeps a query to the rows of `scope`: their account and their mode, both. Every read or change
 * of a tenant's rows goes through it, `.$call(inScope(scope))`, or `inScope(scope, 'a')` for a
 * table under an alias.
 */
export function inScope(scope: Scope, table?: string) {
  const column = (name: string) => (table ? `${table}.${name}` : name);
  return <QB extends Filterable<QB>>(qb: QB): QB => qb.where(column('account_id'), '=', scope.accountId).where(column('livemode'), '=', scope.livemode);
}
