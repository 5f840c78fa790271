// What every benchmark here shares: a scratch PostgreSQL database, the compiled service started as
// deployed (NODE_ENV=production, fresh keys) with one enterprise account, CPU per request from /proc,
// and the results file in bench/results/.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { exportJWK, generateKeyPair } from 'jose';
import pg from 'pg';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const MACHINE = { cpus: os.cpus().length, node: process.version };
export const DEFAULT_ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Connects once as the administrator and, when that fails, says in one line what to set and exits
 * (78, a bad setting, as the service does): a stock pg_hba.conf asks for a password on 127.0.0.1,
 * and pg's own error ("client password must be a string") names nothing to change.
 */
export async function requireAdmin(adminUrl: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl });
  try {
    await c.connect();
    await c.query('SELECT 1');
  } catch (err) {
    const u = new URL(adminUrl);
    const why = /password/i.test((err as Error).message) ? 'it asks for a password this URL does not give' : (err as Error).message;
    process.stderr.write(
      `bench: cannot connect to PostgreSQL as ${decodeURIComponent(u.username) || '(no user)'} at ${u.host} (${why}): set BENCH_ADMIN_URL (or --admin-url) to a superuser's URL with its password, e.g. postgres://postgres:PASSWORD@127.0.0.1:5432/postgres\n`,
    );
    process.exit(78);
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** The server's database `name`, and statements run as the administrator. */
export function postgresAdmin(adminUrl: string) {
  const dbUrl = (name: string) => {
    const u = new URL(adminUrl);
    u.pathname = `/${name}`;
    return u.toString();
  };
  const admin = async <R extends pg.QueryResultRow = pg.QueryResultRow>(sqlText: string): Promise<R[]> => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      return (await c.query<R>(sqlText)).rows;
    } finally {
      await c.end();
    }
  };
  /** The server processes serving one database's connections (pool connections come and go: asked again at each sample). */
  const backendsOf = (database: string): { pids: () => Promise<number[]>; close: () => Promise<void> } => {
    const client = new pg.Client({ connectionString: adminUrl });
    const connected = client.connect();
    return {
      pids: async () => {
        await connected;
        const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database]);
        return rows.map((r) => r.pid);
      },
      close: () => connected.then(() => client.end()),
    };
  };
  return { dbUrl, admin, backendsOf };
}

export function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      const m = pattern.exec(chunk.toString());
      if (m) {
        clearTimeout(timer);
        resolve(m[1] ?? m[0]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`process exited early (${code})`)));
  });
}

export async function waitForHealth(base: string, child: ChildProcess, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode})`);
    try {
      if ((await fetch(`${base}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('server did not become healthy');
}

const rssMb = (pid: number) => {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024);
};
export const rssMbOf = (pids: number[]) => pids.reduce((sum, pid) => sum + (fs.existsSync(`/proc/${pid}`) ? rssMb(pid) : 0), 0);

/** Stops the API and waits for it to exit (a CPU profile is written on exit). */
export function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** CPU per request of one step, in milliseconds (user and sys), from /proc. */
export interface CpuPerRequest {
  user: number;
  sys: number;
  total: number;
}

export const perRequest = (cpu: { user_ms: number; sys_ms: number }, requests: number): CpuPerRequest => {
  const r = (v: number) => Number((v / Math.max(1, requests)).toFixed(3));
  return { user: r(cpu.user_ms), sys: r(cpu.sys_ms), total: r(cpu.user_ms + cpu.sys_ms) };
};

/** The load generator runs in this process: its CPU, for comparison. */
export function selfCpu<T>(work: () => Promise<T>): Promise<{ value: T; user_ms: number; sys_ms: number }> {
  const start = process.cpuUsage();
  return work().then((value) => {
    const d = process.cpuUsage(start);
    return { value, user_ms: d.user / 1000, sys_ms: d.system / 1000 };
  });
}

/** Production needs its keys given: fresh ones for the run. */
export async function productionKeys(): Promise<Record<string, string>> {
  const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const mandateKey = await generateKeyPair('ES256', { extractable: true });
  return {
    TOKEN_SIGNING_KEY: JSON.stringify({ ...(await exportJWK(privateKey)), kid: 'bench' }),
    MANDATE_SIGNING_KEY: JSON.stringify({ ...(await exportJWK(mandateKey.privateKey)), kid: 'bench-mandates' }),
    IDEMPOTENCY_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    AUDIT_HMAC_KEY: randomBytes(32).toString('hex'),
  };
}

/**
 * Writes a run's result to bench/results/<date>-<name>.json, or with the time added when a run of
 * that name already saved one that day; returns the path.
 */
export function saveResult(stamp: string, name: string, result: object): string {
  fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
  const dated = path.join(ROOT, `bench/results/${stamp.slice(0, 10)}-${name}.json`);
  const file = fs.existsSync(dated) ? path.join(ROOT, `bench/results/${stamp.slice(0, 10)}-${name}-${stamp.slice(11, 16).replace(':', '')}.json`) : dated;
  fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  return file;
}

/** The service's group commit (src/config.ts): spend decisions per transaction at most; 1 turns grouping off. */
export const BATCH_SIZE_ENV = 'AUTHORIZE_BATCH_SIZE';
const BATCH_SIZE_MIN = 1;
const BATCH_SIZE_MAX = 256;

/** A batch size the service is started with; 'default': the variable unset, the service's own default. */
export type BatchSize = number | 'default';

/**
 * `--batch-sizes 64,1` → [64, 1]; absent: one service with the variable as this process has it
 * (normally unset: 'default'). Checked here, so a typo fails before minutes of load rather than at
 * the second service's start.
 */
export function parseBatchSizes(list: string | undefined): BatchSize[] {
  if (list === undefined) return [process.env[BATCH_SIZE_ENV] ? Number(process.env[BATCH_SIZE_ENV]) : 'default'];
  return list.split(',').map((item) => {
    const n = Number(item.trim());
    if (!Number.isInteger(n) || n < BATCH_SIZE_MIN || n > BATCH_SIZE_MAX) throw new Error(`--batch-sizes: ${item} is not an integer from ${BATCH_SIZE_MIN} to ${BATCH_SIZE_MAX}`);
    return n;
  });
}

/** How a batch size is printed. */
export const batchLabel = (size: BatchSize) => (size === 'default' ? 'default' : String(size));

/** What startService's `env` is given for `size` (nothing for the default: the service picks it). */
export const batchSizeEnv = (size: BatchSize): Record<string, string> => (size === 'default' ? {} : { [BATCH_SIZE_ENV]: String(size) });

/** How long a scrape of /metrics may take: one that hangs must not hold up the step it is part of. */
const METRICS_SCRAPE_TIMEOUT_MS = 5_000;

/**
 * The named samples of the service's /metrics (served on its PORT, public: no key), each null when
 * the service does not expose it (yet) or the scrape fails. With `serve --workers N` one process
 * answers: gauges read from the database are the same in each.
 */
export async function scrapeGauges<N extends string>(base: string, names: readonly N[]): Promise<Record<N, number | null>> {
  let text = '';
  try {
    const res = await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(METRICS_SCRAPE_TIMEOUT_MS) });
    if (res.ok) text = await res.text();
  } catch {
    // Busy past the timeout, or gone: every value null rather than a failed run.
  }
  return Object.fromEntries(names.map((name) => [name, gaugeValue(text, name)])) as Record<N, number | null>;
}

/** The first sample of `name` in Prometheus text format (labels, if any, skipped), or null. */
export function gaugeValue(text: string, name: string): number | null {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    let rest = line.slice(name.length);
    // `name_total` is another metric, not a sample of `name`.
    if (rest[0] !== ' ' && rest[0] !== '{') continue;
    if (rest[0] === '{') rest = rest.slice(rest.indexOf('}') + 1);
    const value = Number(rest.trim().split(/\s+/)[0]);
    return Number.isFinite(value) ? value : null;
  }
  return null;
}

export interface RunningService {
  base: string;
  /** The enterprise account's live admin key (rate limit far above any load here). */
  key: string;
  server: ChildProcess;
}

/**
 * Builds dist/ (unless told not to), recreates `database`, migrates it, creates an enterprise
 * account and starts `spend-auth serve` on it as deployed, with `env` over the deployed environment
 * (e.g. batchSizeEnv); no workflow engine.
 */
export async function startService(opts: { adminUrl: string; database: string; build: boolean; nodeArgs?: string[]; serveArgs?: string[]; env?: Record<string, string> }): Promise<RunningService> {
  const { admin, dbUrl } = postgresAdmin(opts.adminUrl);
  if (opts.build) {
    console.log('building dist/ (npm run build)');
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  }
  await admin(`DROP DATABASE IF EXISTS ${opts.database} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${opts.database}`);
  const env = {
    ...process.env,
    ...(await productionKeys()),
    DATABASE_URL: dbUrl(opts.database),
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    DATA_DIR: path.join(ROOT, '.data/bench'),
    TEMPORAL_ADDRESS: '127.0.0.1:1',
    ...opts.env,
  };
  execFileSync(process.execPath, ['bin/spend-auth.js', 'migrate'], { cwd: ROOT, env, stdio: 'ignore' });
  const created = JSON.parse(
    execFileSync(process.execPath, ['bin/spend-auth.js', 'accounts', 'create', '--name', 'bench', '--plan', 'enterprise', '--rate-limit', '100000000', '--json'], { cwd: ROOT, env, encoding: 'utf8' }),
  );
  const port = 3900 + Math.floor(Math.random() * 90);
  const server = spawn(process.execPath, [...(opts.nodeArgs ?? []), 'bin/spend-auth.js', 'serve', ...(opts.serveArgs ?? [])], { cwd: ROOT, env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  server.stderr.on('data', (c: Buffer) => process.stderr.write(c));
  // The log goes to stdout: kept in a file, never left unread (a full pipe would block the service's
  // logger, and with it the service).
  const logFile = path.join(ROOT, '.data/bench', `${opts.database}.log`);
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  server.stdout.pipe(fs.createWriteStream(logFile));
  const base = `http://127.0.0.1:${port}`;
  await waitForHealth(base, server);
  return { base, key: created.keys.live as string, server };
}

/** An answer of the open-loop generator: status 0 when none came (an error, or none in `noAnswerMs`). */
export interface OpenLoopAnswer {
  status: number;
  body: string;
}

/**
 * The open-loop generators' HTTP client: POSTs JSON on keep-alive sockets, as many as needed, and
 * never rejects. Bounded: a request the service never answers (a connection lost in an overflowing
 * accept queue) is given up after `noAnswerMs` and answered with status 0, so a step always ends.
 */
export function openLoopClient(noAnswerMs = 10_000) {
  const pool = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const post = (url: URL, body: string, headers: Record<string, string> = {}): Promise<OpenLoopAnswer> =>
    new Promise((resolve) => {
      const req = http.request(url, { method: 'POST', agent: pool, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', (err) => resolve({ status: 0, body: String(err) }));
      req.setTimeout(noAnswerMs, () => req.destroy(new Error('no answer')));
      req.end(body);
    });
  return { post, close: () => pool.destroy() };
}

/** A set-up call of a bench (policies, agents, connections): its JSON answer, or an error naming the path and status. */
export async function apiPost(base: string, key: string, p: string, body: unknown): Promise<Record<string, any>> {
  const res = await fetch(`${base}${p}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as Record<string, any>;
  if (!res.ok) throw new Error(`${p} → ${res.status} ${JSON.stringify(json)}`);
  return json;
}
