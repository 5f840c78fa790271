/**
 * End-to-end tests of the `spend-auth` bin: the real `node bin/spend-auth.js` in a child process.
 *
 * `accounts create` and `migrate` run against PostgreSQL when DATABASE_URL is set (CI), else against
 * an embedded PGlite database in a temporary DATA_DIR. `dev` always runs embedded (DATABASE_URL is
 * removed from its environment): the first start on an empty DATA_DIR is what prints the dev key.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../../src/db/connect.js';
import { until } from '../support/wait.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'spend-auth.js');
const DATABASE_URL = process.env.DATABASE_URL || undefined;

// PGlite cold start is ~4 s and tsx adds ~1 s per process; other test files share the cores. `dev`
// also starts its Temporal dev server before the API listens: on a loaded machine that start alone
// took over 60 s, so a start may take up to DEV_TIMEOUT / 2 - 10 s.
const CLI_TIMEOUT = 90_000;
const DEV_TIMEOUT = 240_000;

interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The environment of a child: this process's, minus what the tests set themselves. */
function childEnv(overrides: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of ['PORT', 'DATABASE_URL', 'DATA_DIR', 'LOG_LEVEL', 'NODE_ENV', 'TOKEN_SIGNING_KEY']) delete env[key];
  env.NODE_ENV = 'development';
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

/**
 * Runs the bin to completion; never rejects on a non-zero exit (the tests look at the code). A
 * process still running after `timeoutMs` is killed (signal SIGTERM, code null).
 */
function runCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = CLI_TIMEOUT - 5_000): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: ROOT, env, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number' && !error.signal) return reject(error);
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, signal: (error?.signal as NodeJS.Signals | undefined) ?? null, stdout, stderr });
      },
    );
  });
}

/** A port held by another program until `close` is called. */
async function takenPort(): Promise<{ port: number; close(): Promise<void> }> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return { port: (server.address() as net.AddressInfo).port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

interface DevProcess {
  child: ChildProcess;
  port: number;
  output(): { stdout: string; stderr: string };
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `spend-auth dev` on an embedded DATA_DIR and waits until the API listens. */
async function startDev(dataDir: string, overrides: Record<string, string | undefined> = {}): Promise<DevProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'dev'], {
    cwd: ROOT,
    env: childEnv({ DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info', DATABASE_URL: undefined, ...overrides }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let hasExited = false;
  void exited.then(() => (hasExited = true));

  const dev: DevProcess = {
    child,
    port,
    output: () => ({ stdout, stderr }),
    exited,
    async stop() {
      if (!hasExited) child.kill('SIGTERM');
      // Past the process's own 25 s shutdown deadline (docs/operations.md, "Graceful shutdown"),
      // as a container's stop timeout is: a drain that is slow on a loaded machine still ends by itself.
      const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      try {
        return await exited;
      } finally {
        clearTimeout(killer);
      }
    },
  };

  const deadline = Date.now() + DEV_TIMEOUT / 2 - 10_000;
  for (;;) {
    if (hasExited) {
      throw new Error(`spend-auth dev exited before listening.\nstdout:\n${stdout}\nstderr:\n${stderr}`);
    }
    if (stdout.includes('API listening')) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/healthz`);
        if (res.ok) return dev;
      } catch {
        // not yet
      }
    }
    if (Date.now() > deadline) {
      await dev.stop();
      throw new Error(`spend-auth dev did not start listening in time.\nstdout:\n${stdout}\nstderr:\n${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

const tempDirs: string[] = [];
async function tempDataDir(): Promise<string> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'spend-auth-cli-'));
  tempDirs.push(dir);
  return dir;
}

afterAll(async () => {
  await Promise.all(tempDirs.map((dir) => fsp.rm(dir, { recursive: true, force: true })));
});

describe.sequential('spend-auth accounts create', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  const created: Array<{ id: string; plan: string; rate_limit: number | null }> = [];

  beforeAll(async () => {
    dataDir = await tempDataDir();
    env = childEnv({ DATA_DIR: dataDir, DATABASE_URL });
  });

  function parseSingleJsonLine(stdout: string): any {
    const lines = stdout.split('\n').filter((l) => l.trim() !== '');
    expect(lines).toHaveLength(1);
    return JSON.parse(lines[0]!);
  }

  it(
    'creates a growth account and prints one JSON line with its test and live keys',
    async () => {
      const res = await runCli(['accounts', 'create', '--name', 'Acme', '--plan', 'growth', '--json'], env);
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      const out = parseSingleJsonLine(res.stdout);
      expect(Object.keys(out).sort()).toEqual(['account', 'keys']);
      expect(out.account).toMatchObject({ object: 'account', name: 'Acme', plan: 'growth', rate_limit: null });
      expect(out.account.id).toMatch(/^acct_[0-9A-Za-z]+$/);
      expect(new Date(out.account.created_at).toISOString()).toBe(out.account.created_at);
      expect(Object.keys(out.keys).sort()).toEqual(['live', 'test']);
      expect(out.keys.test).toMatch(/^gc_test_[0-9A-Za-z]{32,}$/);
      expect(out.keys.live).toMatch(/^gc_live_[0-9A-Za-z]{32,}$/);
      created.push(out.account);
    },
    CLI_TIMEOUT,
  );

  it(
    'gives a sandbox account no live key',
    async () => {
      const res = await runCli(['accounts', 'create', '--name', 'Sandbox Co', '--plan', 'sandbox', '--json'], env);
      expect(res.code).toBe(0);
      const out = parseSingleJsonLine(res.stdout);
      expect(out.account.plan).toBe('sandbox');
      expect(out.keys.test).toMatch(/^gc_test_/);
      expect(out.keys).not.toHaveProperty('live');
      created.push(out.account);
    },
    CLI_TIMEOUT,
  );

  it(
    'stores the rate limit of an enterprise account',
    async () => {
      const res = await runCli(
        ['accounts', 'create', '--name', 'Big Corp', '--plan', 'enterprise', '--rate-limit', '5000', '--json'],
        env,
      );
      expect(res.code).toBe(0);
      const out = parseSingleJsonLine(res.stdout);
      expect(out.account).toMatchObject({ plan: 'enterprise', rate_limit: 5000 });
      expect(out.keys.live).toMatch(/^gc_live_/);
      created.push(out.account);
    },
    CLI_TIMEOUT,
  );

  it(
    'prints a readable summary without --json',
    async () => {
      const res = await runCli(['accounts', 'create', '--name', 'Plain', '--plan', 'starter'], env);
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(/^Account acct_\S+ \(starter\)$/m);
      expect(res.stdout).toMatch(/^Admin test key: gc_test_\S+$/m);
      expect(res.stdout).toMatch(/^Admin live key: gc_live_\S+$/m);
    },
    CLI_TIMEOUT,
  );

  it(
    'has written the accounts and their admin keys to the database',
    async () => {
      expect(created).toHaveLength(3);
      // The CLI processes have exited, so the embedded database can be opened here.
      const database = await connectDatabase(DATABASE_URL ? { databaseUrl: DATABASE_URL, poolSize: 1 } : { dataDir });
      try {
        const rows = await database.db
          .selectFrom('accounts')
          .select(['id', 'plan', 'rate_limit'])
          .where(
            'id',
            'in',
            created.map((a) => a.id),
          )
          .orderBy('id')
          .execute();
        expect(rows).toEqual(
          created.map(({ id, plan, rate_limit }) => ({ id, plan, rate_limit })).sort((a, b) => (a.id < b.id ? -1 : 1)),
        );
        const enterprise = rows.find((r) => r.plan === 'enterprise');
        expect(enterprise?.rate_limit).toBe(5000);
        const keys = await database.db
          .selectFrom('api_keys')
          .select(['account_id', 'livemode', 'role'])
          .where(
            'account_id',
            'in',
            created.map((a) => a.id),
          )
          .execute();
        const sandbox = created.find((a) => a.plan === 'sandbox')!;
        expect(keys.filter((k) => k.account_id === sandbox.id)).toEqual([{ account_id: sandbox.id, livemode: false, role: 'admin' }]);
        expect(keys).toHaveLength(5);
      } finally {
        await database.close();
      }
    },
    CLI_TIMEOUT,
  );

  it(
    'rejects a rate limit on a non-enterprise plan without creating the account',
    async () => {
      const res = await runCli(['accounts', 'create', '--name', 'Nope', '--plan', 'growth', '--rate-limit', '10', '--json'], env);
      expect(res.code).not.toBe(0);
      expect(res.stdout).toBe('');
      expect(res.stderr).toMatch(/rate limit/i);
    },
    CLI_TIMEOUT,
  );
});

// Independent of each other (each has its own DATA_DIR, or never reaches a database): run at once.
describe.concurrent('spend-auth migrate, dev and errors', () => {
  it.for([
    [['--name', 'Acme', '--plan', 'platinum'], /--plan must be one of sandbox, starter, growth, enterprise/],
    [['--plan', 'growth'], /--name is required/],
    [['--name', 'Acme', '--plan', 'enterprise', '--rate-limit', 'lots'], /--rate-limit must be a positive integer/],
    [['--name', 'Acme', '--plan', 'growth', '--colour', 'blue'], /colour/],
  ] as Array<[string[], RegExp]>)(
    'accounts create rejects bad arguments %j with a message on stderr and a non-zero exit',
    { timeout: CLI_TIMEOUT },
    async ([args, message], { expect }) => {
      const res = await runCli(['accounts', 'create', ...args, '--json'], childEnv({ DATA_DIR: await tempDataDir(), DATABASE_URL }));
      expect(res.code).not.toBe(0);
      expect(res.code).not.toBeNull();
      expect(res.stdout).toBe('');
      expect(res.stderr).toMatch(/^spend-auth: /);
      expect(res.stderr).toMatch(message);
    },
  );

  it.for([
    ['dev', { PORT: 'abc' }, 'PORT'],
    ['migrate', { DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
  ] as Array<[string, Record<string, string>, string]>)(
    '%s stops on a bad environment value %j, naming the variable',
    { timeout: CLI_TIMEOUT },
    async ([command, overrides, name], { expect }) => {
      const env = childEnv({ DATA_DIR: await tempDataDir(), DATABASE_URL: undefined, ...overrides });
      const res = await runCli([command], env);
      expect(res.code).not.toBe(0);
      expect(res.code).not.toBeNull();
      expect(res.stdout).toBe('');
      expect(res.stderr).toMatch(/^spend-auth: /);
      expect(res.stderr).toContain(name);
    },
  );

  // An unreachable database and a DATA_DIR that must never appear: a command that did more than
  // print its usage would fail, hang or create the directory.
  const inertEnv = async () =>
    childEnv({ DATA_DIR: path.join(await tempDataDir(), 'never-created'), DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', PORT: String(await freePort()), TEMPORAL_ADDRESS: '127.0.0.1:1' });

  it.for([
    [['--help'], 'Usage: spend-auth <command>'],
    [['help'], 'Usage: spend-auth <command>'],
    [['serve', '--help'], 'Usage: spend-auth serve'],
    [['serve', '-h'], 'Usage: spend-auth serve'],
    [['worker', '--help'], 'Usage: spend-auth worker'],
    [['dev', '--help'], 'Usage: spend-auth dev'],
    [['migrate', '--help'], 'Usage: spend-auth migrate'],
    [['accounts', '--help'], 'Usage: spend-auth accounts create'],
    [['accounts', 'create', '--help'], 'Usage: spend-auth accounts create'],
    [['accounts', 'create', '--name', 'X', '--help'], 'Usage: spend-auth accounts create'],
    [['usage', '--help'], 'Usage: spend-auth usage report'],
    [['usage', 'report', '--help'], 'Usage: spend-auth usage report'],
    [['mcp', '--help'], 'Usage: spend-auth mcp'],
  ] as Array<[string[], string]>)('%j prints its usage on stdout, exit code 0, and does nothing else', { timeout: CLI_TIMEOUT }, async ([args, usage], { expect }) => {
    const env = await inertEnv();
    const res = await runCli(args, env, 30_000);
    expect(res.signal).toBeNull();
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout.startsWith(usage)).toBe(true);
    expect(res.stdout).toMatch(/-h, --help/);
    expect(fs.existsSync(env.DATA_DIR!)).toBe(false);
  });

  it.for([
    [['serve', '--port', '4000'], "Unknown option '--port'", 'Usage: spend-auth serve'],
    [['worker', '--verbose'], "Unknown option '--verbose'", 'Usage: spend-auth worker'],
    [['dev', '-x'], "Unknown option '-x'", 'Usage: spend-auth dev'],
    [['migrate', '--dry-run'], "Unknown option '--dry-run'", 'Usage: spend-auth migrate'],
    [['migrate', 'now'], "Unexpected argument 'now'", 'Usage: spend-auth migrate'],
    [['accounts', 'create', '--name', 'A', '--plan', 'growth', 'extra'], "Unexpected argument 'extra'", 'Usage: spend-auth accounts create'],
    [['accounts', 'delete'], 'Unknown accounts subcommand: delete', 'Usage: spend-auth accounts create'],
    [['usage', 'report', '--month', '2020-01', '--colour'], "Unknown option '--colour'", 'Usage: spend-auth usage report'],
    [['mcp', '--stdio'], "Unknown option '--stdio'", 'Usage: spend-auth mcp'],
  ] as Array<[string[], string, string]>)('%j is refused: one line naming it, then that command\'s usage, exit code 2', { timeout: CLI_TIMEOUT }, async ([args, message, usage], { expect }) => {
    const env = await inertEnv();
    const res = await runCli(args, env, 30_000);
    expect(res.signal).toBeNull();
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    const [first, ...rest] = res.stderr.split('\n');
    expect(first).toBe(`spend-auth: ${message}${message.endsWith("'") ? '.' : ''}`);
    expect(rest.join('\n').startsWith(usage)).toBe(true);
    expect(fs.existsSync(env.DATA_DIR!)).toBe(false);
  });

  /** Where DATABASE_URL points, with another database name: one that does not exist. */
  const missingDatabase = () => {
    const url = new URL(DATABASE_URL!);
    url.pathname = `/spend_auth_missing_${Date.now().toString(36)}`;
    return url.toString();
  };

  it.for([
    [
      'a database that does not exist',
      () => ({ DATABASE_URL: missingDatabase() }),
      /^spend-auth: database "spend_auth_missing_\w+" does not exist on [\w.-]+:\d+: create it \(createdb -h [\w.-]+ -p \d+ -U \w+ spend_auth_missing_\w+\) or fix DATABASE_URL$/,
      Boolean(DATABASE_URL),
    ],
    [
      'a server that does not answer',
      () => ({ DATABASE_URL: 'postgres://postgres:secret@127.0.0.1:1/spend_auth' }),
      /^spend-auth: cannot connect to PostgreSQL at 127\.0\.0\.1:1 \(connection refused\): is it running\? Check DATABASE_URL$/,
      true,
    ],
    [
      'a DATA_DIR that is a file',
      () => ({ DATABASE_URL: undefined, DATA_DIR: path.join(ROOT, 'package.json') }),
      /^spend-auth: ENOTDIR: not a directory/,
      true,
    ],
  ] as Array<[string, () => Record<string, string | undefined>, RegExp, boolean]>)(
    'migrate against %s fails with one line and exit code 1, never a stack trace',
    { timeout: CLI_TIMEOUT },
    async ([, env, message, applies], { expect, skip }) => {
      if (!applies) skip('needs DATABASE_URL (a PostgreSQL server)');
      const res = await runCli(['migrate'], childEnv({ DATA_DIR: await tempDataDir(), ...env() }), 45_000);
      expect(res.signal).toBeNull();
      expect(res.code).toBe(1);
      expect(res.stdout).toBe('');
      expect(res.stderr).toMatch(/\n$/);
      expect(res.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(res.stderr.trimEnd()).toMatch(message);
      expect(res.stderr).not.toContain('secret');
    },
  );

  it(
    'rejects an unknown command with the usage on stderr',
    async ({ expect }) => {
      const res = await runCli(['frobnicate'], childEnv({ DATA_DIR: await tempDataDir() }));
      expect(res.code).not.toBe(0);
      expect(res.code).not.toBeNull();
      expect(res.stderr).toContain('Unknown command: frobnicate');
      expect(res.stderr).toContain('Usage: spend-auth');
    },
    CLI_TIMEOUT,
  );

  it(
    'dev on a port another program holds stops at once with one line naming the port and exit code 1, and prints no admin key',
    async ({ expect }) => {
      const taken = await takenPort();
      try {
        const res = await runCli(['dev'], childEnv({ DATA_DIR: await tempDataDir(), PORT: String(taken.port), DATABASE_URL: undefined }), 45_000);
        expect(res.signal).toBeNull();
        expect(res.code).toBe(1);
        expect(res.stdout).not.toContain('API listening');
        expect(res.stdout).not.toContain('gc_test_');
        expect(res.stderr).toMatch(new RegExp(`^spend-auth: port ${taken.port} on \\S+ is already in use`));
        expect(res.stderr.trimEnd().split('\n')).toHaveLength(1);
      } finally {
        await taken.close();
      }
    },
    CLI_TIMEOUT,
  );

  it(
    'a second process on the embedded database of a running dev refuses with one line naming the holder, exit code 1',
    async ({ expect }) => {
      const dataDir = await tempDataDir();
      // No engine: this test is about the database, and a local Temporal dev server would only cost time.
      const dev = await startDev(dataDir, { TEMPORAL_ADDRESS: '127.0.0.1:1' });
      try {
        const holder = new RegExp(`^spend-auth: the embedded database in ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use by another process \\(pid ${dev.child.pid}\\)`);
        for (const args of [['migrate'], ['accounts', 'create', '--name', 'Second', '--plan', 'sandbox']]) {
          const res = await runCli(args, childEnv({ DATA_DIR: dataDir, DATABASE_URL: undefined }));
          expect(res.code, args.join(' ')).toBe(1);
          expect(res.stdout).toBe('');
          expect(res.stderr).toMatch(holder);
          expect(res.stderr.trimEnd().split('\n')).toHaveLength(1);
        }
        const second = await runCli(['dev'], childEnv({ DATA_DIR: dataDir, PORT: String(await freePort()), DATABASE_URL: undefined, TEMPORAL_ADDRESS: '127.0.0.1:1' }), 45_000);
        expect(second.code).toBe(1);
        expect(second.stderr).toMatch(holder);
        // The first one is unharmed.
        expect((await fetch(`http://127.0.0.1:${dev.port}/healthz`)).status).toBe(200);
      } finally {
        expect(await dev.stop()).toEqual({ code: 0, signal: null });
      }
      // Released on exit: the next process opens it.
      const after = await runCli(['migrate'], childEnv({ DATA_DIR: dataDir, DATABASE_URL: undefined }));
      expect(after.stderr).toBe('');
      expect(after.stdout).toBe('Database is up to date.\n');
    },
    DEV_TIMEOUT,
  );

  it(
    'dev with readable logs (LOG_FORMAT=pretty, as on a terminal): no JSON lines, one banner block after "API listening", and a restart names the dev account it uses',
    async ({ expect }) => {
      const dataDir = await tempDataDir();
      const env = { LOG_FORMAT: 'pretty', TEMPORAL_ADDRESS: '127.0.0.1:1' };
      const first = await startDev(dataDir, env);
      let account: string;
      try {
        const lines = first.output().stdout.split('\n');
        expect(lines.filter((l) => l.startsWith('{'))).toEqual([]);
        // Bound to this machine only: dev is a developer's.
        const listening = lines.findIndex((l) => new RegExp(`^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO  API listening host=127\\.0\\.0\\.1 port=${first.port} database=embedded$`).test(l));
        expect(listening, first.output().stdout).toBeGreaterThanOrEqual(0);
        const keyLine = lines.findIndex((l) => l.startsWith('Admin test key (shown once, keep it): gc_test_'));
        const dashboardLine = lines.findIndex((l) => l.startsWith(`Reviewer dashboard: http://localhost:${first.port}/dashboard`));
        expect(keyLine).toBeGreaterThan(listening);
        // The key and the address are one block: no log line comes between them.
        expect(dashboardLine).toBeGreaterThan(keyLine);
        expect(lines.slice(keyLine, dashboardLine + 1).filter((l) => /^\d\d:\d\d:\d\d\.\d{3} /.test(l))).toEqual([]);
        account = /Dev account (acct_[0-9A-Za-z]+) created\./.exec(first.output().stdout)![1]!;
      } finally {
        expect(await first.stop()).toEqual({ code: 0, signal: null });
      }
      const second = await startDev(dataDir, env);
      try {
        const { stdout } = second.output();
        expect(stdout).toContain(`Dev account ${account} (Development) in use`);
        expect(stdout).not.toContain('gc_test_');
        expect(stdout).toContain(`Reviewer dashboard: http://localhost:${second.port}/dashboard`);
      } finally {
        expect(await second.stop()).toEqual({ code: 0, signal: null });
      }
    },
    DEV_TIMEOUT,
  );

  it(
    'migrate applies the migrations, then reports the database up to date',
    async ({ expect }) => {
      const env = childEnv({ DATA_DIR: await tempDataDir(), DATABASE_URL });
      const first = await runCli(['migrate'], env);
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      expect(first.stdout).toMatch(/^(Database is up to date\.|Applied: \S.*)\n$/);
      // An empty embedded database gets every migration on its first run.
      if (!DATABASE_URL) expect(first.stdout).toMatch(/^Applied: 001_/);

      const second = await runCli(['migrate'], env);
      expect(second.code).toBe(0);
      expect(second.stdout).toBe('Database is up to date.\n');
    },
    CLI_TIMEOUT * 2,
  );

  it(
    'dev (embedded) prints an admin test key once, on the first start of an empty DATA_DIR, and the key works',
    async ({ expect }) => {
      const dataDir = await tempDataDir();

      const first = await startDev(dataDir);
      let key: string;
      try {
        const { stdout } = first.output();
        expect(stdout).toContain('Admin test key (shown once');
        const match = /Admin test key \(shown once[^)]*\): (gc_test_[0-9A-Za-z]+)/.exec(stdout);
        expect(match).not.toBeNull();
        key = match![1]!;
        expect(stdout).toMatch(/Dev account acct_[0-9A-Za-z]+ created\./);
        expect(stdout).toContain('"database":"embedded"');
        expect(stdout).toContain(`Reviewer dashboard: http://localhost:${first.port}/dashboard`);
        if (process.env.TEMPORAL_CLI_PATH) {
          // With a local CLI, `dev` runs its dev server and UI: held requests can be approved.
          expect(stdout).toMatch(/Temporal UI: +http:\/\/127\.0\.0\.1:\d+ /);
          // readyz never waits for the engine: it says `unknown` until the first probe has answered
          // (on a loaded machine that can take longer than readyz's brief wait), then what it saw.
          const engine = await until('the first engine probe', async () => {
            const ready = (await (await fetch(`http://127.0.0.1:${first.port}/readyz`)).json()) as { workflow_engine?: string };
            return ready.workflow_engine === 'unknown' ? undefined : ready.workflow_engine;
          }, 15_000);
          expect(engine).toBe('up');
        }

        const ok = await fetch(`http://127.0.0.1:${first.port}/v1/agents`, { headers: { authorization: `Bearer ${key}` } });
        expect(ok.status).toBe(200);
        const body = (await ok.json()) as { data?: unknown[] };
        expect(Array.isArray(body.data)).toBe(true);

        const denied = await fetch(`http://127.0.0.1:${first.port}/v1/agents`);
        expect(denied.status).toBe(401);
      } finally {
        const exit = await first.stop();
        // On a failure, the last log lines say which part of the shutdown ran past its deadline.
        expect(exit, first.output().stdout.slice(-3000)).toEqual({ code: 0, signal: null });
      }
      // The key is never logged: it appears exactly once in the output.
      expect(first.output().stdout.split(key).length - 1).toBe(1);

      const second = await startDev(dataDir);
      try {
        expect(second.output().stdout).not.toContain('Admin test key');
        expect(second.output().stdout).not.toContain('gc_test_');
        const again = await fetch(`http://127.0.0.1:${second.port}/v1/agents`, { headers: { authorization: `Bearer ${key}` } });
        expect(again.status).toBe(200);
      } finally {
        const exit = await second.stop();
        expect(exit, second.output().stdout.slice(-3000)).toEqual({ code: 0, signal: null });
      }
    },
    DEV_TIMEOUT,
  );
});
