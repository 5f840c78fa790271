/**
 * `spend-auth serve --workers N` as real processes on PostgreSQL: N API processes share the port,
 * a crashed one is replaced (and takes no connection before it is ready), SIGTERM drains them all
 * and exits 0, a taken port is refused before any worker starts, and a worker that cannot start
 * stops the service with its exit code. DATABASE_POOL_SIZE bounds each process's connections.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase } from '../support/context.js';
import { TEST_SERVER_KEYS_ENV } from '../support/server-keys.js';
import { generatePrivateJwk } from '../../src/tokens/signing-keys.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'spend-auth.js');
const sharedUrl = process.env.DATABASE_URL;

let scratch: Awaited<ReturnType<typeof createScratchDatabase>> | undefined;
let env: NodeJS.ProcessEnv;
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (!sharedUrl) return;
  // Migrated, with the test keys bound: what `spend-auth migrate` with these keys leaves.
  scratch = await createScratchDatabase(sharedUrl, { migrated: true });
  env = {
    ...process.env,
    DATABASE_URL: scratch.url,
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'spend-auth-workers-')),
    LOG_LEVEL: 'error',
    TOKEN_SIGNING_KEY: JSON.stringify(await generatePrivateJwk()),
    ...TEST_SERVER_KEYS_ENV,
    TEMPORAL_ADDRESS: '127.0.0.1:1',
  };
}, 60_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await scratch?.drop();
});

function run(args: string[], extra: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: extra, stdio: ['ignore', 'ignore', 'pipe'] });
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('exit', (code) => resolve({ code, stderr }));
  });
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

const workersOf = (pid: number) =>
  fs
    .readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
    .split(' ')
    .filter(Boolean)
    .map(Number);

async function until<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** A GET on a connection of its own (fetch reuses kept-alive ones), so the primary hands it to a worker. */
const statusOnNewConnection = (url: string) =>
  new Promise<number>((resolve, reject) => {
    http.get(url, { agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    }).once('error', reject);
  });

const healthy = async (base: string) => {
  try {
    return (await fetch(`${base}/healthz`)).ok ? true : undefined;
  } catch {
    return undefined;
  }
};

describe.skipIf(!sharedUrl || process.platform !== 'linux')('spend-auth serve --workers', () => {
  it('runs N API processes on one port, replaces one that crashes, and drains them all on SIGTERM', async () => {
    const port = await freePort();
    const primary = spawn(process.execPath, [BIN, 'serve', '--workers', '2'], { cwd: ROOT, env: { ...env, PORT: String(port), LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'ignore'] });
    children.push(primary);
    // The workers that have logged "API listening": a worker killed before it is up counts as one
    // that cannot start, which stops the service by design.
    const listening = new Set<number>();
    let pending = '';
    primary.stdout!.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        try {
          const entry = JSON.parse(line) as { msg?: string; pid?: number };
          if (entry.msg === 'API listening' && entry.pid) listening.add(entry.pid);
        } catch {
          // not a log line
        }
      }
    });
    const base = `http://127.0.0.1:${port}`;
    await until(() => healthy(base));
    const first = await until(() => {
      const now = workersOf(primary.pid!);
      return now.length === 2 && now.every((pid) => listening.has(pid)) ? now : undefined;
    });

    process.kill(first[0]!, 'SIGKILL');
    // Once the primary has reaped it, the other worker serves alone, and the replacement takes no
    // connection before it is ready: every request made while it starts is answered 200.
    await until(() => (workersOf(primary.pid!).includes(first[0]!) ? undefined : true));
    const statuses: number[] = [];
    const replaced = await until(async () => {
      statuses.push(...(await Promise.all(Array.from({ length: 4 }, () => statusOnNewConnection(`${base}/healthz`)))));
      const now = workersOf(primary.pid!);
      return now.length === 2 && !now.includes(first[0]!) && now.every((pid) => listening.has(pid)) ? now : undefined;
    });
    expect(statuses.length).toBeGreaterThan(4);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(replaced).toContain(first[1]);
    await until(() => healthy(base));

    const exited = new Promise<number | null>((resolve) => primary.once('exit', (code) => resolve(code)));
    primary.kill('SIGTERM');
    expect(await exited).toBe(0);
    for (const pid of replaced) expect(fs.existsSync(`/proc/${pid}`)).toBe(false);
  }, 90_000);

  it('refuses a port that is taken before it starts any worker', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '0.0.0.0', () => resolve()));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const { code, stderr } = await run(['serve', '--workers', '2'], { ...env, PORT: String(port) });
      expect(code).toBe(1);
      // Said once, by the primary: no worker was started to say it again.
      expect(stderr.match(/already in use/g)).toHaveLength(1);
    } finally {
      taken.close();
    }
  }, 60_000);

  it('stops with the exit code of a worker that cannot start (the database has pending migrations)', async () => {
    const unmigrated = await createScratchDatabase(sharedUrl!);
    try {
      const port = await freePort();
      const { code, stderr } = await run(['serve', '--workers', '2'], { ...env, PORT: String(port), DATABASE_URL: unmigrated.url });
      expect(code).toBe(2);
      expect(stderr).toMatch(/pending migrations/);
    } finally {
      await unmigrated.drop();
    }
  }, 60_000);

  it('refuses a bad worker count, and more than one worker on the embedded database', async () => {
    const bad = await run(['serve', '--workers', '0'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--workers must be a whole number from 1 to 64/);
    const embedded = await run(['serve', '--workers', '2'], { ...env, DATABASE_URL: '' });
    expect(embedded.code).toBe(2);
    expect(embedded.stderr).toMatch(/needs DATABASE_URL/);
  }, 60_000);

  it.each([
    { workers: 2, poolSize: '2', most: 2 * (2 + 1) },
    // Unset: an API process pools API_DATABASE_POOL_SIZE (8).
    { workers: 1, poolSize: undefined, most: 8 + 1 },
  ])('keeps $workers API process(es) to DATABASE_POOL_SIZE=$poolSize pooled connections under 60 concurrent requests', async ({ workers, poolSize, most: bound }) => {
    const created = JSON.parse(
      execFileSync(process.execPath, [BIN, 'accounts', 'create', '--name', 'pool', '--plan', 'enterprise', '--json'], { cwd: ROOT, env, encoding: 'utf8' }),
    ) as { keys: { test: string } };
    const port = await freePort();
    const server = spawn(process.execPath, [BIN, 'serve', '--workers', String(workers)], { cwd: ROOT, env: { ...env, PORT: String(port), ...(poolSize ? { DATABASE_POOL_SIZE: poolSize } : {}) }, stdio: 'ignore' });
    children.push(server);
    const base = `http://127.0.0.1:${port}`;
    await until(() => healthy(base));
    const admin = new pg.Client({ connectionString: sharedUrl });
    await admin.connect();
    const database = new URL(scratch!.url).pathname.slice(1);
    let most = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const { rows } = await admin.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1', [database]);
        most = Math.max(most, Number(rows[0]!.n));
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    try {
      const headers = { authorization: `Bearer ${created.keys.test}` };
      const answers = await Promise.all(Array.from({ length: 60 }, () => fetch(`${base}/v1/agents`, { headers }).then((r) => r.status)));
      // Every status that is not a 200, so a failure says what came back.
      expect(answers.filter((s) => s !== 200)).toEqual([]);
    } finally {
      sampling = false;
      await sampler;
      await admin.end();
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    // Each process: its pooled connections and its one listening connection.
    expect(most).toBeGreaterThan(workers);
    expect(most).toBeLessThanOrEqual(bound);
  }, 60_000);
});
