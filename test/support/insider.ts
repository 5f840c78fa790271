/**
 * The insiders of docs/security.md's threat model, as the ledger attacks run them: the database's
 * owner, and on PostgreSQL a role with exactly the runtime role's grants (read from the document,
 * so the document is what is tested). The embedded database has one user: only the owner there.
 */
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql, type RawBuilder } from 'kysely';
import type { TestContext } from './context.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The grants block of docs/security.md, for the given role name. */
export function documentedGrants(runtime: string): string {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/security.md'), 'utf8');
  const block = /```sql\n\s*-- spend-auth runtime role grants[^\n]*\n([\s\S]*?)```/.exec(doc);
  if (!block) throw new Error('docs/security.md has no runtime role grants block');
  return block[1]!.replaceAll('spend_auth_app', runtime);
}

export interface Insider {
  name: 'owner' | 'runtime role';
  /** Runs the statements in one transaction with this insider's rights. */
  run(...statements: RawBuilder<unknown>[]): Promise<void>;
}

/**
 * The owner always; with PostgreSQL (`ctx.databaseUrl`) also a role holding the documented runtime
 * grants on this context's database, which the test's own user is a member of and switches to
 * with SET LOCAL ROLE. `drop` removes that role (call it before closing the context).
 */
export interface Insiders {
  all: Insider[];
  /** The insider of that name (one of INSIDER_NAMES). */
  named(name: Insider['name']): Insider;
  drop: () => Promise<void>;
}

/** The names `insiders` gives on this run's database, for `test.each`: the runtime role on PostgreSQL only. */
export const INSIDER_NAMES: readonly Insider['name'][] = ['owner', ...(process.env.DATABASE_URL ? (['runtime role'] as const) : [])];

const withNamed = (all: Insider[], drop: () => Promise<void>): Insiders => ({ all, named: (name) => all.find((i) => i.name === name)!, drop });

export async function insiders(ctx: TestContext): Promise<Insiders> {
  const db = ctx.database.db;
  const owner: Insider = {
    name: 'owner',
    run: (...statements) => db.transaction().execute(async (trx) => {
      for (const s of statements) await s.execute(trx);
    }),
  };
  if (!ctx.databaseUrl) return withNamed([owner], async () => {});
  const role = `spend_auth_insider_${randomBytes(4).toString('hex')}`;
  await sql.raw(`CREATE ROLE ${role} NOLOGIN`).execute(db);
  await sql.raw(`GRANT ${role} TO CURRENT_USER`).execute(db);
  await sql.raw(documentedGrants(role)).execute(db);
  const runtime: Insider = {
    name: 'runtime role',
    run: (...statements) => db.transaction().execute(async (trx) => {
      await sql.raw(`SET LOCAL ROLE ${role}`).execute(trx);
      for (const s of statements) await s.execute(trx);
    }),
  };
  const drop = async () => {
    await sql.raw(`DROP OWNED BY ${role}`).execute(db);
    await sql.raw(`DROP ROLE ${role}`).execute(db);
  };
  return withNamed([owner, runtime], drop);
}
