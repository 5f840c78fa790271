// Benchmark: POST /v1/authorize against real PostgreSQL, next to the database's own limit (pgbench -N)
// and a bare Express JSON endpoint on the same machine. `npm run bench [-- --duration 20] [-- --soak 600]`.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '20' },
    connections: { type: 'string', default: '16,64,256' },
    soak: { type: 'string' },
    // Writes a V8 CPU profile of the API process to bench/profiles/ (steady state dominates it).
    profile: { type: 'boolean', default: false },
    'admin-url': { type: 'string', default: process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const DURATION_S = Number(args.duration);
const CONNECTIONS = args.connections!.split(',').map(Number);
const ADMIN_URL = args['admin-url']!;
const DB_NAME = 'spend_auth_bench';
const PGBENCH_DB = 'spend_auth_pgbench';
const ROOT = path.resolve(import.meta.dirname, '..');
const dbUrl = (name: string) => {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
};

async function admin(sqlText: string) {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    await c.query(sqlText);
  } finally {
    await c.end();
  }
}

function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs = 30_000): Promise<string> {
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

async function waitForHealth(base: string, child: ChildProcess, timeoutMs = 30_000) {
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

/** Stops the API and waits for it to exit (a CPU profile is written on exit). */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function seed(base: string, key: string) {
  const h = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const policy = await (
    await fetch(`${base}/v1/policies`, {
      method: 'POST',
      headers: h,
      body: JSON.stringify({
        name: 'bench',
        budget_monthly: Number.MAX_SAFE_INTEGER,
        budget_single_max: 1_000_000,
        require_approval_above: 50_000,
        vendor_denylist: ['blocked.example'],
      }),
    })
  ).json();
  const agents: string[] = [];
  for (let i = 0; i < 100; i++) {
    const a = await (await fetch(`${base}/v1/agents`, { method: 'POST', headers: h, body: JSON.stringify({ name: `bench-${i}`, policy_id: policy.id }) })).json();
    agents.push(a.id);
  }
  return agents;
}

/** ~70% approved, ~20% denied (denylisted vendor), ~10% held (above the approval threshold). */
function requestBody(agents: string[]): string {
  const r = Math.random();
  const agent = agents[Math.floor(Math.random() * agents.length)]!;
  if (r < 0.7) return JSON.stringify({ agent_id: agent, amount: 1_000 + Math.floor(Math.random() * 9_000), currency: 'USD', vendor: 'api.openai.com', category: 'saas' });
  if (r < 0.9) return JSON.stringify({ agent_id: agent, amount: 2_000, currency: 'USD', vendor: 'blocked.example' });
  return JSON.stringify({ agent_id: agent, amount: 75_000, currency: 'USD', vendor: 'aws.amazon.com' });
}

interface Row {
  name: string;
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  non2xx: number;
}

async function load(name: string, url: string, connections: number, durationS: number, opts: { headers?: Record<string, string>; body?: () => string }): Promise<Row> {
  const result = await autocannon({
    url,
    connections,
    duration: durationS,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(opts.headers ?? {}) },
    requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, body: opts.body ? opts.body() : '{}' }) }],
  });
  return {
    name,
    connections,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

function pgbenchTps(connections: number, durationS: number): number {
  execFileSync('pgbench', ['-i', '-q', '-s', '10', dbUrl(PGBENCH_DB)], { stdio: 'ignore' });
  const out = execFileSync('pgbench', ['-N', '-c', String(connections), '-j', '2', '-T', String(durationS), dbUrl(PGBENCH_DB)], { encoding: 'utf8' });
  return Math.round(Number(/tps = ([\d.]+)/.exec(out)![1]));
}

async function bareExpress(connections: number, durationS: number): Promise<Row> {
  const child = spawn(process.execPath, [path.join(ROOT, 'bench/bare-express.mjs')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const port = Number(await waitForLine(child, /listening on (\d+)/));
  try {
    return await load('bare express', `http://127.0.0.1:${port}/json`, connections, durationS, { body: () => '{"amount":1000}' });
  } finally {
    child.kill('SIGTERM');
  }
}

async function main() {
  console.log(`preparing databases ${DB_NAME} and ${PGBENCH_DB}`);
  for (const db of [DB_NAME, PGBENCH_DB]) {
    await admin(`DROP DATABASE IF EXISTS ${db}`);
    await admin(`CREATE DATABASE ${db}`);
  }
  const env = { ...process.env, DATABASE_URL: dbUrl(DB_NAME), LOG_LEVEL: 'warn', NODE_ENV: 'development', DATA_DIR: path.join(ROOT, '.data/bench'), TEMPORAL_ADDRESS: '127.0.0.1:1' };
  execFileSync(process.execPath, ['bin/spend-auth.js', 'migrate'], { cwd: ROOT, env, stdio: 'ignore' });
  const created = JSON.parse(
    execFileSync(process.execPath, ['bin/spend-auth.js', 'accounts', 'create', '--name', 'bench', '--plan', 'enterprise', '--rate-limit', '100000000', '--json'], { cwd: ROOT, env, encoding: 'utf8' }),
  );
  const key: string = created.keys.live;

  const port = 3900 + Math.floor(Math.random() * 90);
  const nodeArgs = args.profile ? ['--cpu-prof', '--cpu-prof-dir', path.join(ROOT, 'bench/profiles')] : [];
  const server = spawn(process.execPath, [...nodeArgs, 'bin/spend-auth.js', 'serve'], { cwd: ROOT, env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  const base = `http://127.0.0.1:${port}`;
  await waitForHealth(base, server);
  const agents = await seed(base, key);
  const authorize = (c: number, d: number) =>
    load('authorize', `${base}/v1/authorize`, c, d, { headers: { authorization: `Bearer ${key}` }, body: () => requestBody(agents) });

  // Warm-up: JIT, pools, caches.
  await authorize(16, 3);
  const rssBefore = rssMb(server.pid!);

  if (args.soak) {
    const total = Number(args.soak);
    const step = 30;
    console.log(`soak: 64 connections for ${total} s, a line every ${step} s`);
    console.log('elapsed_s  req/s  p99_ms  rss_mb');
    for (let t = step; t <= total; t += step) {
      const row = await authorize(64, step);
      console.log(`${String(t).padStart(9)}  ${String(row.rps).padStart(5)}  ${String(row.p99).padStart(6)}  ${String(rssMb(server.pid!)).padStart(6)}`);
    }
    await stop(server);
    return;
  }

  const rows: Row[] = [];
  for (const c of CONNECTIONS) {
    console.log(`authorize at ${c} connections for ${DURATION_S} s`);
    rows.push(await authorize(c, DURATION_S));
  }
  const rssAfter = rssMb(server.pid!);
  await stop(server);

  console.log(`pgbench -N at 64 clients for ${DURATION_S} s`);
  const pgbench = pgbenchTps(64, DURATION_S);
  console.log(`bare Express at 64 connections for ${DURATION_S} s`);
  const bare = await bareExpress(64, DURATION_S);

  const table = rows.map((r) => ({
    ...r,
    ratio_to_pgbench: Number((r.rps / pgbench).toFixed(2)),
    ratio_to_bare_express: Number((r.rps / bare.rps).toFixed(2)),
  }));
  const result = {
    date: new Date().toISOString(),
    machine: { cpus: (await import('node:os')).cpus().length, node: process.version },
    duration_s: DURATION_S,
    request_mix: { approved: 0.7, denied: 0.2, held: 0.1 },
    authorize: table,
    pgbench_n_tps_64_clients: pgbench,
    bare_express: bare,
    rss_mb: { before: rssBefore, after: rssAfter },
  };
  fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
  const file = path.join(ROOT, `bench/results/${result.date.slice(0, 10)}.json`);
  fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);

  console.log('\n| connections | req/s | p50 ms | p99 ms | max ms | errors | non-2xx | × pgbench -N | × bare Express |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of table) {
    console.log(`| ${r.connections} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.max} | ${r.errors} | ${r.non2xx} | ${r.ratio_to_pgbench} | ${r.ratio_to_bare_express} |`);
  }
  console.log(`\npgbench -N (64 clients): ${pgbench} TPS; bare Express (64 connections): ${bare.rps} req/s, p99 ${bare.p99} ms`);
  console.log(`API RSS: ${rssBefore} MB before, ${rssAfter} MB after`);
  console.log(`written to ${path.relative(ROOT, file)}`);
}

await main();
