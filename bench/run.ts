// Benchmark: POST /v1/authorize against real PostgreSQL, next to the database's own limit (pgbench -N)
// and a bare Express JSON endpoint on the same machine, all in one run. It runs the compiled build
// (`npm run build` → dist/) with NODE_ENV=production, as deployed, and measures CPU per request from
// /proc: of the API process(es), and of the PostgreSQL backends serving them. Throughput and latency
// move with whatever else the machine runs; CPU per request is the stable figure.
//   npm run bench -- --duration 15 --connections 64 --label my-change
//   npm run bench -- --soak 600     (10 minutes at 64 connections: RSS and p99 per minute)
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { DEFAULT_ADMIN_URL, MACHINE, perRequest, postgresAdmin, ROOT, rssMbOf, saveResult, selfCpu, startService, stop, waitForLine, type CpuPerRequest } from './harness.js';
import { CpuMeter, descendants, measure } from './proc.js';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '20' },
    connections: { type: 'string', default: '16,64,256' },
    /**
     * Authorize at this many requests per second in all (autocannon's overallRate) instead of as
     * fast as it goes: every variant then does the same work under the same batching, so CPU per
     * request compares fairly between changes even on a busy machine.
     */
    rate: { type: 'string' },
    /** Names the run in its results file (the change being measured). */
    label: { type: 'string', default: 'run' },
    /** API processes (`serve --workers N`); absent: the server's default. */
    workers: { type: 'string' },
    /** Skips `npm run build` (dist/ is already current). */
    'no-build': { type: 'boolean', default: false },
    /** Skips pgbench and bare Express (no ratios): for quick back-to-back comparisons of one change. */
    'no-baselines': { type: 'boolean', default: false },
    soak: { type: 'string' },
    // Writes a V8 CPU profile of the API process to bench/profiles/ (steady state dominates it).
    profile: { type: 'boolean', default: false },
    'admin-url': { type: 'string', default: DEFAULT_ADMIN_URL },
  },
});
const DURATION_S = Number(args.duration);
const CONNECTIONS = args.connections!.split(',').map(Number);
const ADMIN_URL = args['admin-url']!;
const DB_NAME = 'spend_auth_bench';
const PGBENCH_DB = 'spend_auth_pgbench';
const { admin, dbUrl, backendsOf } = postgresAdmin(ADMIN_URL);

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
  requests: number;
}

async function load(name: string, url: string, connections: number, durationS: number, opts: { headers?: Record<string, string>; body?: () => string; rate?: number }): Promise<Row> {
  const result = await autocannon({
    url,
    connections,
    duration: durationS,
    ...(opts.rate ? { overallRate: opts.rate } : {}),
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
    requests: result.requests.total,
  };
}

async function pgbench(connections: number, durationS: number): Promise<{ tps: number; transactions: number; postgres_cpu_ms_per_txn: CpuPerRequest }> {
  execFileSync('pgbench', ['-i', '-q', '-s', '10', dbUrl(PGBENCH_DB)], { stdio: 'ignore' });
  const backends = backendsOf(PGBENCH_DB);
  const meter = new CpuMeter(backends.pids);
  const out = await measure([meter], async () => {
    const child = spawn('pgbench', ['-N', '-c', String(connections), '-j', '2', '-T', String(durationS), dbUrl(PGBENCH_DB)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (c: Buffer) => (text += c.toString()));
    await new Promise((resolve) => child.once('exit', resolve));
    return text;
  }).finally(() => backends.close());
  const transactions = Number(/number of transactions actually processed: (\d+)/.exec(out)![1]);
  return { tps: Math.round(Number(/tps = ([\d.]+)/.exec(out)![1])), transactions, postgres_cpu_ms_per_txn: perRequest(meter.total(), transactions) };
}

async function bareExpress(connections: number, durationS: number): Promise<Row & { cpu_ms_per_request: CpuPerRequest }> {
  const child = spawn(process.execPath, [path.join(ROOT, 'bench/bare-express.mjs')], { cwd: ROOT, env: { ...process.env, NODE_ENV: 'production' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const port = Number(await waitForLine(child, /listening on (\d+)/));
  const meter = new CpuMeter(() => [child.pid!]);
  try {
    const row = await measure([meter], () => load('bare express', `http://127.0.0.1:${port}/json`, connections, durationS, { body: () => '{"amount":1000}' }));
    return { ...row, cpu_ms_per_request: perRequest(meter.total(), row.requests) };
  } finally {
    child.kill('SIGTERM');
  }
}

async function main() {
  console.log(`preparing databases ${DB_NAME} and ${PGBENCH_DB}`);
  await admin(`DROP DATABASE IF EXISTS ${PGBENCH_DB} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${PGBENCH_DB}`);
  const nodeArgs = args.profile ? ['--cpu-prof', '--cpu-prof-dir', path.join(ROOT, 'bench/profiles')] : [];
  const serveArgs = args.workers ? ['--workers', args.workers] : [];
  const { base, key, server } = await startService({ adminUrl: ADMIN_URL, database: DB_NAME, build: !args['no-build'], nodeArgs, serveArgs });
  const agents = await seed(base, key);
  const authorize = (c: number, d: number, rate?: number) =>
    load('authorize', `${base}/v1/authorize`, c, d, { headers: { authorization: `Bearer ${key}` }, body: () => requestBody(agents), rate });
  const apiPids = () => descendants(server.pid!);
  const backends = backendsOf(DB_NAME);

  /** One authorize step with its CPU: of the API process(es), of their PostgreSQL backends, of the load generator. */
  const step = async (c: number, d: number) => {
    const api = new CpuMeter(apiPids);
    const postgres = new CpuMeter(backends.pids);
    const { value: row, ...generator } = await selfCpu(() => measure([api, postgres], () => authorize(c, d, args.rate ? Number(args.rate) : undefined)));
    return {
      ...row,
      api_processes: api.total().processes,
      api_cpu_ms_per_request: perRequest(api.total(), row.requests),
      postgres_cpu_ms_per_request: perRequest(postgres.total(), row.requests),
      load_generator_cpu_ms_per_request: perRequest(generator, row.requests),
    };
  };

  // Warm-up: JIT, pools, caches.
  await authorize(16, 3);
  const rssBefore = rssMbOf(apiPids());
  const stamp = new Date().toISOString();

  if (args.soak) {
    const total = Number(args.soak);
    const minute = Math.min(60, total);
    console.log(`soak: 64 connections for ${total} s, a line every ${minute} s`);
    console.log('elapsed_s  req/s  p50_ms  p99_ms  rss_mb  api_ms/req  pg_ms/req');
    const minutes = [];
    for (let t = minute; t <= total; t += minute) {
      const row = await step(64, minute);
      const line = { elapsed_s: t, rps: row.rps, p50: row.p50, p99: row.p99, errors: row.errors, non2xx: row.non2xx, rss_mb: rssMbOf(apiPids()), api_cpu_ms_per_request: row.api_cpu_ms_per_request, postgres_cpu_ms_per_request: row.postgres_cpu_ms_per_request };
      minutes.push(line);
      console.log(
        `${String(t).padStart(9)}  ${String(line.rps).padStart(5)}  ${String(line.p50).padStart(6)}  ${String(line.p99).padStart(6)}  ${String(line.rss_mb).padStart(6)}  ${String(line.api_cpu_ms_per_request.total).padStart(10)}  ${String(line.postgres_cpu_ms_per_request.total).padStart(9)}`,
      );
    }
    await stop(server);
    await backends.close();
    const result = { date: stamp, label: args.label, mode: 'soak', machine: MACHINE, connections: 64, duration_s: total, workers: args.workers ?? 'default', rss_mb_after_warmup: rssBefore, minutes };
    const file = saveResult(stamp, `soak-${args.label}`, result);
    console.log(`written to ${path.relative(ROOT, file)}`);
    return;
  }

  const rows = [];
  for (const c of CONNECTIONS) {
    console.log(`authorize at ${c} connections for ${DURATION_S} s`);
    rows.push(await step(c, DURATION_S));
  }
  const rssAfter = rssMbOf(apiPids());
  await stop(server);
  await backends.close();

  if (args['no-baselines']) {
    const result = { date: stamp, label: args.label, machine: MACHINE, workers: args.workers ?? 'default', duration_s: DURATION_S, authorize: rows, rss_mb: { before: rssBefore, after: rssAfter } };
    const file = saveResult(stamp, args.label!, result);
    for (const r of rows) console.log(`${args.label}: ${r.connections} connections ${r.rps} req/s p50 ${r.p50} p99 ${r.p99} API ${r.api_cpu_ms_per_request.total} PG ${r.postgres_cpu_ms_per_request.total} ms CPU/req`);
    return;
  }
  console.log(`pgbench -N at 64 clients for ${DURATION_S} s`);
  const pgb = await pgbench(64, DURATION_S);
  console.log(`bare Express at 64 connections for ${DURATION_S} s`);
  const bare = await bareExpress(64, DURATION_S);

  const table = rows.map((r) => ({
    ...r,
    ratio_to_pgbench: Number((r.rps / pgb.tps).toFixed(2)),
    ratio_to_bare_express: Number((r.rps / bare.rps).toFixed(2)),
    p99_to_bare_express_p99: Number((r.p99 / Math.max(1, bare.p99)).toFixed(2)),
  }));
  const result = {
    date: stamp,
    label: args.label,
    machine: MACHINE,
    build: 'dist/ (npm run build), NODE_ENV=production',
    workers: args.workers ?? 'default',
    fixed_rate: args.rate ? Number(args.rate) : null,
    duration_s: DURATION_S,
    request_mix: { approved: 0.7, denied: 0.2, held: 0.1 },
    authorize: table,
    pgbench_n_64_clients: pgb,
    bare_express: bare,
    rss_mb: { before: rssBefore, after: rssAfter },
  };
  const file = saveResult(stamp, args.label!, result);

  console.log('\n| connections | req/s | p50 ms | p99 ms | errors | non-2xx | API CPU ms/req (user+sys) | PostgreSQL CPU ms/req (user+sys) | × pgbench -N | × bare Express | p99 ÷ bare p99 |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  const cpu = (c: CpuPerRequest) => `${c.total} (${c.user}+${c.sys})`;
  for (const r of table) {
    console.log(
      `| ${r.connections} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.non2xx} | ${cpu(r.api_cpu_ms_per_request)} | ${cpu(r.postgres_cpu_ms_per_request)} | ${r.ratio_to_pgbench} | ${r.ratio_to_bare_express} | ${r.p99_to_bare_express_p99} |`,
    );
  }
  console.log(`\npgbench -N (64 clients): ${pgb.tps} TPS, PostgreSQL ${cpu(pgb.postgres_cpu_ms_per_txn)} ms CPU per transaction`);
  console.log(`bare Express (64 connections): ${bare.rps} req/s, p99 ${bare.p99} ms, ${cpu(bare.cpu_ms_per_request)} ms CPU per request`);
  console.log(`load generator: ${table.map((r) => cpu(r.load_generator_cpu_ms_per_request)).join(', ')} ms CPU per request`);
  console.log(`API RSS: ${rssBefore} MB before, ${rssAfter} MB after`);
  console.log(`written to ${path.relative(ROOT, file)}`);
}

await main();
