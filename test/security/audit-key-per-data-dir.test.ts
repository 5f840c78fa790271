/**
 * Attack (or accident), with real `spend-auth` processes: `accounts create` run from another
 * DATA_DIR against the same DATABASE_URL generated another AUDIT_HMAC_KEY, and every chain it
 * started verified invalid from sequence 1, forever. Now the keys are bound to the database at the
 * first migration run: a process with other keys stops with exit code 78 (as for any bad setting)
 * and one line naming the setting, before it writes anything. Covered: another DATA_DIR on one
 * PostgreSQL database (skipped without DATABASE_URL, saying so), the embedded default, and a
 * database migrated before keys were bound.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { chainHash, GENESIS_HASH } from '../../src/audit/audit-chain.js';
import { useAuditHmacKey } from '../../src/kernel/audit-key.js';
import { connectDatabase } from '../../src/db/connect.js';
import { createAccountOnOlderSchema } from '../support/older-account.js';
import { migrateTo } from '../../src/db/migrate.js';
import { createScratchDatabase } from '../support/context.js';
import { useTestAuditKey } from '../support/server-keys.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'spend-auth.js');
const DATABASE_URL = process.env.DATABASE_URL || undefined;
const CLI_TIMEOUT = 90_000;
const CONFIG_EXIT_CODE = 78;

/** This process's environment without any setting a test gives itself (the server keys above all). */
function childEnv(overrides: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'error' };
  for (const key of ['PORT', 'DATABASE_URL', 'DATA_DIR', 'TOKEN_SIGNING_KEY', 'AUDIT_HMAC_KEY', 'IDEMPOTENCY_ENCRYPTION_KEY']) delete env[key];
  for (const [key, value] of Object.entries(overrides)) if (value !== undefined) env[key] = value;
  return env;
}

function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, env, timeout: CLI_TIMEOUT - 5_000 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(error);
      resolve({ code: error ? (error.code as unknown as number) : 0, stdout, stderr });
    });
  });
}

/** Exit code 78 and exactly one line on stderr, naming the setting. */
function expectRefused(res: { code: number | null; stdout: string; stderr: string }, setting: RegExp) {
  expect(res.code).toBe(CONFIG_EXIT_CODE);
  const lines = res.stderr.split('\n').filter((l) => l !== '');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^spend-auth: /);
  expect(lines[0]).toMatch(setting);
  expect(res.stdout).toBe('');
}

const accountsCreate = (name: string, env: NodeJS.ProcessEnv) => runCli(['accounts', 'create', '--name', name, '--plan', 'growth', '--json'], env);

const tempDirs: string[] = [];
async function tempDataDir(): Promise<string> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'spend-auth-keys-'));
  tempDirs.push(dir);
  return dir;
}
const scratches: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const drop of scratches) await drop();
  await Promise.all(tempDirs.map((dir) => fsp.rm(dir, { recursive: true, force: true })));
});

const hex = () => randomBytes(32).toString('hex');

if (!DATABASE_URL) console.log('[audit-key-per-data-dir] DATABASE_URL unset: the two-DATA_DIRs-on-one-PostgreSQL case is skipped (it needs a database both directories share)');

describe.skipIf(!DATABASE_URL)('accounts create from another DATA_DIR against the same DATABASE_URL', () => {
  it(
    'the first DATA_DIR binds its generated keys; the other is refused naming both settings, and writes nothing',
    async () => {
      const scratch = await createScratchDatabase(DATABASE_URL!);
      scratches.push(scratch.drop);
      const [first, other] = [await tempDataDir(), await tempDataDir()];
      const created = await accountsCreate('first', childEnv({ DATABASE_URL: scratch.url, DATA_DIR: first }));
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);

      const refused = await accountsCreate('second', childEnv({ DATABASE_URL: scratch.url, DATA_DIR: other }));
      expectRefused(refused, /AUDIT_HMAC_KEY and IDEMPOTENCY_ENCRYPTION_KEY: not the keys this database was first used with/);
      const database = await connectDatabase({ databaseUrl: scratch.url, poolSize: 1 });
      try {
        expect((await database.db.selectFrom('accounts').select('name').execute()).map((a) => a.name)).toEqual(['first']);
      } finally {
        await database.close();
      }
      // The keys given explicitly, as a deployment should: the same database, the first directory's keys.
      const keys = { AUDIT_HMAC_KEY: (await fsp.readFile(path.join(first, 'audit-hmac-key'), 'utf8')).trim(), IDEMPOTENCY_ENCRYPTION_KEY: (await fsp.readFile(path.join(first, 'idempotency-encryption-key'), 'utf8')).trim() };
      expect((await accountsCreate('second', childEnv({ DATABASE_URL: scratch.url, DATA_DIR: other, ...keys }))).code).toBe(0);
    },
    3 * CLI_TIMEOUT,
  );
});

describe('the embedded default (keys and database under one DATA_DIR)', () => {
  it(
    'migrate binds the keys generated in DATA_DIR; another AUDIT_HMAC_KEY given for that directory is refused, naming it alone',
    async () => {
      const dataDir = await tempDataDir();
      const migrated = await runCli(['migrate'], childEnv({ DATA_DIR: dataDir }));
      expect(migrated.stderr).toBe('');
      expect(migrated.code).toBe(0);
      expectRefused(await accountsCreate('x', childEnv({ DATA_DIR: dataDir, AUDIT_HMAC_KEY: hex() })), /^spend-auth: AUDIT_HMAC_KEY: not the key this database was first used with/);
      expectRefused(await runCli(['migrate'], childEnv({ DATA_DIR: dataDir, IDEMPOTENCY_ENCRYPTION_KEY: hex() })), /^spend-auth: IDEMPOTENCY_ENCRYPTION_KEY: not the key/);
      expect((await accountsCreate('x', childEnv({ DATA_DIR: dataDir }))).code).toBe(0);
    },
    4 * CLI_TIMEOUT,
  );
});

describe('a database migrated before keys were bound', () => {
  it(
    'is bound to the key that sealed its records when first migrated with it; another key is refused before and after',
    async () => {
      const sealer = randomBytes(32);
      const scratch = DATABASE_URL ? await createScratchDatabase(DATABASE_URL) : undefined;
      if (scratch) scratches.push(scratch.drop);
      const dataDir = await tempDataDir();
      const where = scratch ? { databaseUrl: scratch.url, poolSize: 2 } : { dataDir };
      // The older schema, with an account whose records the service of then wrote and sealed.
      const database = await connectDatabase(where);
      try {
        await migrateTo(database.db, '017_trigger_conditions');
        useAuditHmacKey(sealer);
        const { account } = await createAccountOnOlderSchema(database.db, { name: 'older', plan: 'growth' });
        for (const livemode of [false, true]) {
          let prev = GENESIS_HASH;
          const rows = (await sql<{ id: string; mac: string }>`SELECT id, mac FROM audit_records WHERE account_id = ${account.id} AND livemode = ${livemode} ORDER BY insert_order`.execute(database.db)).rows;
          for (const [i, r] of rows.entries()) {
            const hash = chainHash(sealer, prev, i + 1, r.mac);
            await sql`UPDATE audit_records SET sequence = ${i + 1}, prev_hash = ${prev}, hash = ${hash} WHERE id = ${r.id}`.execute(database.db);
            prev = hash;
          }
          await sql`INSERT INTO audit_chains (account_id, livemode, sequence, head_hash) VALUES (${account.id}, ${livemode}, ${rows.length}, ${prev})`.execute(database.db);
        }
      } finally {
        useTestAuditKey();
        await database.close();
      }
      const env = (auditKey: string) => childEnv({ DATA_DIR: dataDir, DATABASE_URL: scratch?.url, AUDIT_HMAC_KEY: auditKey });

      expectRefused(await runCli(['migrate'], env(hex())), /^spend-auth: AUDIT_HMAC_KEY: not the key that sealed this database's audit records/);
      const migrated = await runCli(['migrate'], env(sealer.toString('hex')));
      expect(migrated.stderr).toBe('');
      expect(migrated.stdout).toMatch(/018_audit_head_evidence, 019_server_key_fingerprints/);
      expectRefused(await accountsCreate('later', env(hex())), /^spend-auth: AUDIT_HMAC_KEY: not the key this database was first used with/);
      expect((await accountsCreate('later', env(sealer.toString('hex')))).code).toBe(0);
    },
    4 * CLI_TIMEOUT,
  );
});
