// Benchmark: POST /v1/authorize against real PostgreSQL, next to the database's own limit (pgbench -N)
// and a bare Express JSON endpoint on the same machine, each at every connection count, all in one
// run. It runs the compiled build (`npm run build` → dist/) with NODE_ENV=production, as deployed, and
// measures CPU per request from /proc: of the API process(es), and of the PostgreSQL backends serving
// them. Throughput and latency move with whatever else the machine runs; CPU per request is the stable
// figure. The goals (GOALS) are checked at the end, per batch size.
//   npm run bench -- --duration 15 --connections 64 --label my-change
//   npm run bench -- --batch-sizes 64,1 --label group-commit   (a service per group-commit batch size)
//   npm run bench -- --soak 600     (10 minutes at 64 connections: RSS, p99 and unsealed audit records per minute)
//   npm run bench -- --signed --rate 2000 --connections 64   (signed requests, DECISIONS §19: Δ API CPU per request against unsigned)
//   npm run bench -- --mandates --rate 500 --connections 64  (AP2 mandate verification, DECISIONS §20: API CPU per request ÷ authorize's)
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import {
  batchLabel,
  batchSizeEnv,
  DEFAULT_ADMIN_URL,
  MACHINE,
  parseBatchSizes,
  perRequest,
  postgresAdmin,
  ROOT,
  rssMbOf,
  saveResult,
  scrapeGauges,
  selfCpu,
  startService,
  stop,
  waitForLine,
  type BatchSize,
  type CpuPerRequest,
  requireAdmin,
} from './harness.js';
import { BATCH_PHASES } from '../src/authorization/batch-decide.js';
import { CpuMeter, descendants, measure } from './proc.js';
import { authorizeLoad, closePresentations, issueMandates, MANDATE_CPU_RATIO_BUDGET, mandateUses, verifyLoad } from './mandates.js';
import { SIGNED_VARIANTS, signedAgents, signedLoad, type LoadRequest } from './signed-agents.js';

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
    /**
     * AUTHORIZE_BATCH_SIZE of the service, a comma list (`64,1`: group commit against one decision per
     * transaction): a service started, warmed up, measured and stopped for each, in this run. Absent:
     * the service's default. The soak runs the first only.
     */
    'batch-sizes': { type: 'string' },
    /** Skips `npm run build` (dist/ is already current). */
    'no-build': { type: 'boolean', default: false },
    /** Skips pgbench and bare Express (no ratios): for quick back-to-back comparisons of one change. */
    'no-baselines': { type: 'boolean', default: false },
    soak: { type: 'string' },
    /**
     * Signed requests (DECISIONS §19): agent-role keys, each request unsigned, then signed with an
     * Ed25519 key, then with a P-256 key, at each connection count; reports the extra API CPU per
     * request against unsigned. Best with --rate (the same work in each variant). No baselines.
     */
    signed: { type: 'boolean', default: false },
    /**
     * AP2 mandate verification (DECISIONS §20): an ON_DEMAND mandate per agent; at each connection
     * count, approved authorize requests, then first presentations of closed mandates (closed before
     * the clock starts); reports the API CPU per verification ÷ per authorize, held to
     * MANDATE_CPU_RATIO_BUDGET. Best with --rate (the same work in each). No baselines.
     */
    mandates: { type: 'boolean', default: false },
    // Writes a V8 CPU profile of the API process to bench/profiles/ (steady state dominates it).
    profile: { type: 'boolean', default: false },
    /** Node options of the API process alone, space-separated, given as `--api-node-args=--max-semi-space-size=32` (a value that starts with a dash needs the `=`): baselines keep theirs. */
    'api-node-args': { type: 'string' },
    'admin-url': { type: 'string', default: DEFAULT_ADMIN_URL },
    /** The scratch database the service runs on (dropped and created again by every run). */
    database: { type: 'string', default: 'spend_auth_bench' },
  },
});
const DURATION_S = Number(args.duration);
const CONNECTIONS = args.connections!.split(',').map(Number);
const ADMIN_URL = args['admin-url']!;
const BATCH_SIZES = parseBatchSizes(args['batch-sizes']);
const DB_NAME = args.database!;
const PGBENCH_DB = 'spend_auth_pgbench';
const { admin, dbUrl, backendsOf } = postgresAdmin(ADMIN_URL);
/** Warm-up of each service start (JIT, pools, caches) before anything is measured. */
const WARMUP_CONNECTIONS = 16;
const WARMUP_S = 3;
/** pgbench worker threads (-j): the machine's two cores. */
const PGBENCH_THREADS = 2;
/** PostgreSQL connections pgbench leaves free: for the CPU meter's own, a psql session, other tests. */
const PGBENCH_SPARE_CONNECTIONS = 5;
const SOAK_CONNECTIONS = 64;
/** The one connection count baselines were measured at before each had its own: kept under the old keys. */
const LEGACY_BASELINE_CONNECTIONS = 64;
/**
 * How long before the end of each soak minute /metrics is scraped: while the load still runs, since
 * once it stops the sealer catches up within moments and the figure would not say whether it keeps up.
 */
const SOAK_SCRAPE_LEAD_MS = 2_000;
/** The service's gauges of audit records committed but not yet sealed into the hash chain. */
const AUDIT_GAUGES = ['audit_unsealed_records', 'audit_unsealed_oldest_age_seconds'] as const;

/**
 * What the authorize path is held to, each at one connection count, checked per batch size: a ratio
 * of its row against the baselines measured at the same connection count.
 */
const GOALS: readonly Goal[] = [
  { metric: 'ratio_to_pgbench', connections: 64, bound: 'at_least', target: 0.5 },
  { metric: 'api_cpu_to_bare_express_cpu', connections: 64, bound: 'at_most', target: 3 },
  { metric: 'postgres_cpu_to_pgbench_cpu', connections: 64, bound: 'at_most', target: 1.5 },
  { metric: 'p99_to_bare_express_p99', connections: 16, bound: 'at_most', target: 2 },
  // At 64 connections the API itself is the limit, not the pipeline: a faster machine then raises
  // decisions/s with pgbench's TPS instead of lowering the ratio.
  { metric: 'api_core_busy', connections: 64, bound: 'at_least', target: 0.9 },
];

/** The issue's budget for a signed authorize: extra API CPU per request against the same request unsigned. */
const SIGNED_API_CPU_BUDGET_MS = 0.15;

interface Goal {
  metric: 'ratio_to_pgbench' | 'api_cpu_to_bare_express_cpu' | 'postgres_cpu_to_pgbench_cpu' | 'p99_to_bare_express_p99' | 'api_core_busy';
  connections: number;
  bound: 'at_least' | 'at_most';
  target: number;
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
  return bodyFor(agents[Math.floor(Math.random() * agents.length)]!);
}

function bodyFor(agent: string): string {
  const r = Math.random();
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

async function load(
  name: string,
  url: string,
  connections: number,
  durationS: number,
  opts: { headers?: Record<string, string>; body?: () => string; request?: LoadRequest; rate?: number },
): Promise<Row> {
  const result = await autocannon({
    url,
    connections,
    duration: durationS,
    ...(opts.rate ? { overallRate: opts.rate } : {}),
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(opts.headers ?? {}) },
    requests: [
      {
        method: 'POST',
        setupRequest: (req) => {
          // Built per request: a signed one carries its own nonce and digest.
          if (opts.request) {
            const { body, headers, path: requestPath } = opts.request();
            return { ...req, body, headers: { ...req.headers, ...headers }, ...(requestPath ? { path: requestPath } : {}) };
          }
          return { ...req, body: opts.body ? opts.body() : '{}' };
        },
      },
    ],
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

/**
 * pgbench's clients (-c) are PostgreSQL connections, one each, and past the server's free ones it
 * fails at connect: max_connections (100 by default) is below the 256 connections the API is driven
 * at, which shares a pool. Asked for more, pgbench runs with as many as the server has free, and the
 * row says so (`clients` below `clients_requested`): PostgreSQL's best at that many connections.
 */
async function pgbenchClients(wanted: number): Promise<number> {
  const [row] = await admin<{ free: number }>(
    "SELECT current_setting('max_connections')::int - (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')::int AS free",
  );
  return Math.max(1, Math.min(wanted, row!.free - PGBENCH_SPARE_CONNECTIONS));
}

interface PgbenchRun {
  clients: number;
  clients_requested: number;
  tps: number;
  transactions: number;
  postgres_cpu_ms_per_txn: CpuPerRequest;
}

async function pgbench(connections: number, durationS: number): Promise<PgbenchRun> {
  // Initialised again for each connection count: every one starts from the same tables (-N appends to
  // pgbench_history), as each batch size's service starts from a fresh database.
  execFileSync('pgbench', ['-i', '-q', '-s', '10', dbUrl(PGBENCH_DB)], { stdio: 'ignore' });
  const clients = await pgbenchClients(connections);
  const backends = backendsOf(PGBENCH_DB);
  const meter = new CpuMeter(backends.pids);
  const { out, err } = await measure([meter], async () => {
    const child = spawn('pgbench', ['-N', '-c', String(clients), '-j', String(PGBENCH_THREADS), '-T', String(durationS), dbUrl(PGBENCH_DB)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    let errors = '';
    child.stdout.on('data', (c: Buffer) => (text += c.toString()));
    // Read, not left in the pipe: kept to say why a run failed.
    child.stderr.on('data', (c: Buffer) => (errors += c.toString()));
    await new Promise((resolve) => child.once('exit', resolve));
    return { out: text, err: errors };
  }).finally(() => backends.close());
  const processed = /number of transactions actually processed: (\d+)/.exec(out);
  const tps = /tps = ([\d.]+)/.exec(out);
  if (!processed || !tps) throw new Error(`pgbench -N -c ${clients} failed: ${err.trim().split('\n').slice(-3).join(' / ')}`);
  const transactions = Number(processed[1]);
  return { clients, clients_requested: connections, tps: Math.round(Number(tps[1])), transactions, postgres_cpu_ms_per_txn: perRequest(meter.total(), transactions) };
}

type BareExpressRun = Row & { cpu_ms_per_request: CpuPerRequest };

async function bareExpress(connections: number, durationS: number): Promise<BareExpressRun> {
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

/**
 * Starts the service with `batchSize` (with a build first when `build`), seeds it and warms it up:
 * `step` then measures authorize at a connection count, `close` stops it.
 */
async function benchService(batchSize: BatchSize, build: boolean) {
  const nodeArgs = [...(args['api-node-args']?.split(' ').filter(Boolean) ?? []), ...(args.profile ? ['--cpu-prof', '--cpu-prof-dir', path.join(ROOT, 'bench/profiles')] : [])];
  const serveArgs = args.workers ? ['--workers', args.workers] : [];
  // startService recreates DB_NAME: each batch size starts on a fresh, empty database rather than on
  // the tables (decisions, audit records, their indexes and dead rows) the one before it grew, so the
  // sizes compare on equal footing.
  const { base, key, server } = await startService({ adminUrl: ADMIN_URL, database: DB_NAME, build, nodeArgs, serveArgs, env: batchSizeEnv(batchSize) });
  const agents = await seed(base, key);
  // `request`: the requests to send (another key, signed); absent, the admin key's.
  const authorize = (c: number, d: number, rate?: number, request?: LoadRequest) =>
    load('authorize', `${base}/v1/authorize`, c, d, request ? { request, rate } : { headers: { authorization: `Bearer ${key}` }, body: () => requestBody(agents), rate });
  const apiPids = () => descendants(server.pid!);
  const backends = backendsOf(DB_NAME);

  /** One authorize step with its CPU: of the API process(es), of their PostgreSQL backends, of the load generator. */
  const phaseSums = BATCH_PHASES.map((p) => `decision_batch_phase_seconds_sum{phase="${p}"}` as const);
  const batches = () => scrapeGauges(base, ['decision_batch_size_sum', 'decision_batch_size_count', ...phaseSums]);
  const step = async (c: number, d: number, request?: LoadRequest) => {
    const api = new CpuMeter(apiPids);
    const postgres = new CpuMeter(backends.pids);
    const before = await batches();
    const started = performance.now();
    const { value: row, ...generator } = await selfCpu(() => measure([api, postgres], () => authorize(c, d, args.rate ? Number(args.rate) : undefined, request)));
    const wallMs = performance.now() - started;
    const after = await batches();
    const apiCpu = api.total();
    const postgresCpu = postgres.total();
    const grouped = (after.decision_batch_size_count ?? 0) - (before.decision_batch_size_count ?? 0);
    return {
      batch_size: batchSize,
      ...row,
      // Decisions per committed batch during the step (absent when grouping is off: no batches).
      mean_decisions_per_batch: grouped > 0 ? Number((((after.decision_batch_size_sum ?? 0) - (before.decision_batch_size_sum ?? 0)) / grouped).toFixed(1)) : null,
      // Where a batch's time went, mean ms per batch and phase (decision_batch_phase_seconds).
      batch_phase_ms:
        grouped > 0 ? Object.fromEntries(BATCH_PHASES.map((p, i) => [p, Number(((((after[phaseSums[i]!] ?? 0) - (before[phaseSums[i]!] ?? 0)) / grouped) * 1000).toFixed(2))])) : null,
      api_processes: apiCpu.processes,
      // How busy each API process was (share of one core): near 1, the API's CPU sets the pace; well
      // under it, the pipeline (batches in flight, round trips, the commit's wait) does.
      api_core_busy: Number(((apiCpu.user_ms + apiCpu.sys_ms) / wallMs / Math.max(1, apiCpu.processes)).toFixed(2)),
      postgres_cores_busy: Number(((postgresCpu.user_ms + postgresCpu.sys_ms) / wallMs).toFixed(2)),
      api_cpu_ms_per_request: perRequest(apiCpu, row.requests),
      postgres_cpu_ms_per_request: perRequest(postgresCpu, row.requests),
      load_generator_cpu_ms_per_request: perRequest(generator, row.requests),
    };
  };

  await authorize(WARMUP_CONNECTIONS, WARMUP_S);
  return {
    base,
    key,
    agents,
    /** An unmeasured warm-up of other requests (e.g. the signature path). */
    warm: (request: LoadRequest) => authorize(WARMUP_CONNECTIONS, WARMUP_S, undefined, request),
    step,
    rssMb: () => rssMbOf(apiPids()),
    close: async () => {
      await stop(server);
      await backends.close();
    },
  };
}

type AuthorizeRow = Awaited<ReturnType<Awaited<ReturnType<typeof benchService>>['step']>>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** `a ÷ b` to two decimals; null when there is nothing to divide by (a baseline that did no work). */
const ratio = (a: number, b: number) => (b > 0 ? Number((a / b).toFixed(2)) : null);
const orDash = (v: number | null) => (v === null ? '-' : String(v));

/** 64 connections for `totalS` seconds on one service (the first batch size): a line per minute. */
async function soak(totalS: number) {
  const [batchSize, ...skipped] = BATCH_SIZES as [BatchSize, ...BatchSize[]];
  if (skipped.length) console.log(`soak: batch size ${batchLabel(batchSize)} only (the first of --batch-sizes; ${skipped.join(', ')} not run)`);
  const service = await benchService(batchSize, !args['no-build']);
  const rssBefore = service.rssMb();
  const stamp = new Date().toISOString();
  const minute = Math.min(60, totalS);
  console.log(`soak: ${SOAK_CONNECTIONS} connections for ${totalS} s, batch size ${batchLabel(batchSize)}, a line every ${minute} s`);
  console.log('elapsed_s  req/s  p50_ms  p99_ms  rss_mb  api_ms/req  pg_ms/req  unsealed  unsealed_age_s');
  const minutes = [];
  for (let t = minute; t <= totalS; t += minute) {
    const [row, audit] = await Promise.all([
      service.step(SOAK_CONNECTIONS, minute),
      sleep(Math.max(0, minute * 1000 - SOAK_SCRAPE_LEAD_MS)).then(() => scrapeGauges(service.base, AUDIT_GAUGES)),
    ]);
    const line = {
      elapsed_s: t,
      rps: row.rps,
      p50: row.p50,
      p99: row.p99,
      errors: row.errors,
      non2xx: row.non2xx,
      rss_mb: service.rssMb(),
      api_cpu_ms_per_request: row.api_cpu_ms_per_request,
      postgres_cpu_ms_per_request: row.postgres_cpu_ms_per_request,
      ...audit,
    };
    minutes.push(line);
    console.log(
      `${String(t).padStart(9)}  ${String(line.rps).padStart(5)}  ${String(line.p50).padStart(6)}  ${String(line.p99).padStart(6)}  ${String(line.rss_mb).padStart(6)}  ${String(line.api_cpu_ms_per_request.total).padStart(10)}  ${String(line.postgres_cpu_ms_per_request.total).padStart(9)}  ${orDash(line.audit_unsealed_records).padStart(8)}  ${orDash(line.audit_unsealed_oldest_age_seconds).padStart(14)}`,
    );
  }
  await service.close();
  const result = {
    date: stamp,
    label: args.label,
    mode: 'soak',
    machine: MACHINE,
    connections: SOAK_CONNECTIONS,
    duration_s: totalS,
    workers: args.workers ?? 'default',
    api_node_args: args['api-node-args'] ?? null,
    batch_size: batchSize,
    rss_mb_after_warmup: rssBefore,
    minutes,
  };
  const file = saveResult(stamp, `soak-${args.label}`, result);
  console.log(`written to ${path.relative(ROOT, file)}`);
}

/**
 * --signed: on one service (the first batch size), at each connection count, the same authorize
 * mix with agent-role keys unsigned, signed with Ed25519 and signed with P-256; the extra API CPU
 * per request of each signed variant against unsigned, held to SIGNED_API_CPU_BUDGET_MS.
 */
async function signedRun() {
  const [batchSize, ...skipped] = BATCH_SIZES as [BatchSize, ...BatchSize[]];
  if (skipped.length) console.log(`signed: batch size ${batchLabel(batchSize)} only (the first of --batch-sizes; ${skipped.join(', ')} not run)`);
  if (!args.rate) console.log('signed: no --rate, so each variant runs as fast as it goes; CPU per request compares best at one fixed rate');
  const service = await benchService(batchSize, !args['no-build']);
  console.log(`registering an agent-role key and two agent keys (Ed25519, P-256) for each of ${service.agents.length} agents`);
  const agents = await signedAgents(service.base, service.key, service.agents);
  const url = `${service.base}/v1/authorize`;
  const loads = Object.fromEntries(SIGNED_VARIANTS.map((v) => [v, signedLoad(url, agents, v, bodyFor)])) as Record<(typeof SIGNED_VARIANTS)[number], LoadRequest>;
  for (const v of SIGNED_VARIANTS) await service.warm(loads[v]);
  const stamp = new Date().toISOString();
  const rows: (AuthorizeRow & { variant: (typeof SIGNED_VARIANTS)[number] })[] = [];
  for (const c of CONNECTIONS) {
    for (const variant of SIGNED_VARIANTS) {
      console.log(`authorize with agent keys, ${variant}, at ${c} connections for ${DURATION_S} s`);
      rows.push({ variant, ...(await service.step(c, DURATION_S, loads[variant])) });
    }
  }
  await service.close();
  const delta = (a: number, b: number) => Number((a - b).toFixed(3));
  const signed = rows
    .filter((r) => r.variant !== 'unsigned')
    .map((r) => {
      const unsigned = rows.find((u) => u.variant === 'unsigned' && u.connections === r.connections)!;
      const api = delta(r.api_cpu_ms_per_request.total, unsigned.api_cpu_ms_per_request.total);
      return {
        variant: r.variant,
        connections: r.connections,
        api_cpu_ms_per_request_delta: api,
        postgres_cpu_ms_per_request_delta: delta(r.postgres_cpu_ms_per_request.total, unsigned.postgres_cpu_ms_per_request.total),
        load_generator_cpu_ms_per_request_delta: delta(r.load_generator_cpu_ms_per_request.total, unsigned.load_generator_cpu_ms_per_request.total),
        // More non-2xx than unsigned: signatures refused, and the CPU figure is not that of verified requests.
        non2xx_delta: r.non2xx - unsigned.non2xx,
        budget_ms: SIGNED_API_CPU_BUDGET_MS,
        met: api <= SIGNED_API_CPU_BUDGET_MS,
      };
    });
  const result = {
    date: stamp,
    label: args.label,
    mode: 'signed',
    machine: MACHINE,
    build: 'dist/ (npm run build), NODE_ENV=production',
    workers: args.workers ?? 'default',
    batch_size: batchSize,
    fixed_rate: args.rate ? Number(args.rate) : null,
    duration_s: DURATION_S,
    request_mix: { approved: 0.7, denied: 0.2, held: 0.1 },
    authorize: rows,
    signed,
  };
  const file = saveResult(stamp, `signed-${args.label}`, result);
  console.log('\n| variant | connections | req/s | p99 ms | non-2xx | API CPU ms/req | PostgreSQL CPU ms/req | load generator CPU ms/req |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(`| ${r.variant} | ${r.connections} | ${r.rps} | ${r.p99} | ${r.non2xx} | ${r.api_cpu_ms_per_request.total} | ${r.postgres_cpu_ms_per_request.total} | ${r.load_generator_cpu_ms_per_request.total} |`);
  }
  console.log('\nextra API CPU per signed request, against unsigned:');
  for (const s of signed) {
    const warn = s.non2xx_delta > 0 ? ` (${s.non2xx_delta} more non-2xx than unsigned: signatures refused?)` : '';
    console.log(`  ${s.variant} at ${s.connections} connections: ${s.api_cpu_ms_per_request_delta} ms (≤ ${s.budget_ms}: ${s.met ? 'met' : 'not met'}), PostgreSQL ${s.postgres_cpu_ms_per_request_delta} ms${warn}`);
  }
  console.log(`written to ${path.relative(ROOT, file)}`);
}

/** Verify bodies to close for a step: one per request at --rate (and a margin), else as many as the unpaced service is expected to take. */
const UNPACED_VERIFICATIONS_PER_SECOND = 1_500;
const presentationsFor = (durationS: number) => Math.ceil((args.rate ? Number(args.rate) * 1.1 : UNPACED_VERIFICATIONS_PER_SECOND) * durationS) + 100;

/**
 * --mandates: on one service (the first batch size), at each connection count, approved authorize
 * requests and then first presentations of closed AP2 mandates, both with the admin key; the API
 * CPU per verification ÷ per authorize, held to MANDATE_CPU_RATIO_BUDGET (the run exits 1 above it).
 */
async function mandatesRun() {
  const [batchSize, ...skipped] = BATCH_SIZES as [BatchSize, ...BatchSize[]];
  if (skipped.length) console.log(`mandates: batch size ${batchLabel(batchSize)} only (the first of --batch-sizes; ${skipped.join(', ')} not run)`);
  if (!args.rate) console.log('mandates: no --rate, so each variant runs as fast as it goes; CPU per request compares best at one fixed rate');
  const service = await benchService(batchSize, !args['no-build']);
  console.log(`issuing a P-256 agent key and an ON_DEMAND mandate for each of ${service.agents.length} agents`);
  const mandates = await issueMandates(service.base, service.key, service.agents);
  const authorize = authorizeLoad(service.key, mandates);
  await service.warm(authorize);
  await service.warm(verifyLoad(service.key, await closePresentations(mandates, presentationsFor(WARMUP_S))));
  const stamp = new Date().toISOString();
  const rows: (AuthorizeRow & { variant: 'authorize' | 'verify'; replays: number; approved: number | null })[] = [];
  for (const c of CONNECTIONS) {
    console.log(`authorize (approvals), at ${c} connections for ${DURATION_S} s`);
    rows.push({ variant: 'authorize', replays: 0, approved: null, ...(await service.step(c, DURATION_S, authorize)) });
    // Closed before the clock starts: the agent's signing is not the service's CPU.
    const bodies = await closePresentations(mandates, presentationsFor(DURATION_S));
    const usesBefore = await mandateUses(service.base, service.key, mandates);
    const verify = verifyLoad(service.key, bodies);
    console.log(`mandate verification (${bodies.length} presentations closed), at ${c} connections for ${DURATION_S} s`);
    const row = await service.step(c, DURATION_S, verify);
    rows.push({ variant: 'verify', replays: verify.replays(), approved: (await mandateUses(service.base, service.key, mandates)) - usesBefore, ...row });
  }
  await service.close();
  const ratios = CONNECTIONS.map((c) => {
    const a = rows.find((r) => r.variant === 'authorize' && r.connections === c)!;
    const v = rows.find((r) => r.variant === 'verify' && r.connections === c)!;
    const api = ratio(v.api_cpu_ms_per_request.total, a.api_cpu_ms_per_request.total);
    return {
      connections: c,
      api_cpu_ratio: api,
      postgres_cpu_ratio: ratio(v.postgres_cpu_ms_per_request.total, a.postgres_cpu_ms_per_request.total),
      // Fewer approvals than requests: replays (ran out of presentations) or refusals; the figure is then not that of decided verifications.
      // (Approvals may exceed the requests counted: those still in flight when the step's clock ran out are decided all the same.)
      verifications_not_approved: Math.max(0, v.requests - (v.approved ?? 0)),
      budget: MANDATE_CPU_RATIO_BUDGET,
      met: api === null ? null : api <= MANDATE_CPU_RATIO_BUDGET,
    };
  });
  const result = {
    date: stamp,
    label: args.label,
    mode: 'mandates',
    machine: MACHINE,
    build: 'dist/ (npm run build), NODE_ENV=production',
    workers: args.workers ?? 'default',
    batch_size: batchSize,
    fixed_rate: args.rate ? Number(args.rate) : null,
    duration_s: DURATION_S,
    mandates: mandates.length,
    rows,
    ratios,
  };
  const file = saveResult(stamp, `mandates-${args.label}`, result);
  console.log('\n| variant | connections | req/s | p99 ms | non-2xx | approved | replays | API CPU ms/req | PostgreSQL CPU ms/req | load generator CPU ms/req |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(
      `| ${r.variant} | ${r.connections} | ${r.rps} | ${r.p99} | ${r.non2xx} | ${orDash(r.approved)} | ${r.replays} | ${r.api_cpu_ms_per_request.total} | ${r.postgres_cpu_ms_per_request.total} | ${r.load_generator_cpu_ms_per_request.total} |`,
    );
  }
  console.log('\nAPI CPU per mandate verification ÷ per authorize decision:');
  for (const r of ratios) {
    const warn = r.verifications_not_approved > 0 ? ` (${r.verifications_not_approved} verifications not approved: replays or refusals)` : '';
    const verdict = r.met === null ? 'not measured' : r.met ? 'met' : 'not met';
    console.log(`  at ${r.connections} connections: ${orDash(r.api_cpu_ratio)}× (≤ ${r.budget}: ${verdict}), PostgreSQL ${orDash(r.postgres_cpu_ratio)}×${warn}`);
  }
  console.log(`written to ${path.relative(ROOT, file)}`);
  if (ratios.some((r) => r.met === false)) process.exitCode = 1;
}

interface GoalCheck {
  batch_size: BatchSize;
  metric: Goal['metric'];
  connections: number;
  bound: Goal['bound'];
  target: number;
  value: number | null;
  /** null: not measured (the connection count not in --connections, or a baseline that did no work). */
  met: boolean | null;
}

function checkGoals(table: (AuthorizeRow & Record<Goal['metric'], number | null>)[]): GoalCheck[] {
  return BATCH_SIZES.flatMap((batchSize) =>
    GOALS.map((goal) => {
      const row = table.find((r) => r.batch_size === batchSize && r.connections === goal.connections);
      const value = row ? row[goal.metric] : null;
      const met = value === null ? null : goal.bound === 'at_least' ? value >= goal.target : value <= goal.target;
      return { batch_size: batchSize, ...goal, value, met };
    }),
  );
}

async function main() {
  await requireAdmin(ADMIN_URL);
  // No pgbench in a mandates run: its database is left alone.
  if (args.mandates) return mandatesRun();
  console.log(`preparing databases ${DB_NAME} and ${PGBENCH_DB}`);
  await admin(`DROP DATABASE IF EXISTS ${PGBENCH_DB} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${PGBENCH_DB}`);
  if (args.soak) return soak(Number(args.soak));
  if (args.signed) return signedRun();

  const stamp = new Date().toISOString();
  const rows: AuthorizeRow[] = [];
  const services: { batch_size: BatchSize; rss_mb: { before: number; after: number } }[] = [];
  for (const [i, batchSize] of BATCH_SIZES.entries()) {
    // Built once, before the first start: every batch size runs the same build.
    const service = await benchService(batchSize, !args['no-build'] && i === 0);
    const rssBefore = service.rssMb();
    for (const c of CONNECTIONS) {
      console.log(`authorize, batch size ${batchLabel(batchSize)}, at ${c} connections for ${DURATION_S} s`);
      rows.push(await service.step(c, DURATION_S));
    }
    services.push({ batch_size: batchSize, rss_mb: { before: rssBefore, after: service.rssMb() } });
    await service.close();
  }
  const rssLine = () => services.map((s) => `batch size ${batchLabel(s.batch_size)}: ${s.rss_mb.before} MB before, ${s.rss_mb.after} MB after`).join('; ');

  if (args['no-baselines']) {
    // rss_mb: the first service's, as before batch sizes; services holds each.
    const result = { date: stamp, label: args.label, machine: MACHINE, workers: args.workers ?? 'default', api_node_args: args['api-node-args'] ?? null, batch_sizes: BATCH_SIZES, duration_s: DURATION_S, authorize: rows, services, rss_mb: services[0]!.rss_mb };
    const file = saveResult(stamp, args.label!, result);
    for (const r of rows) console.log(`${args.label}: batch size ${batchLabel(r.batch_size)} ${r.connections} connections ${r.rps} req/s p50 ${r.p50} p99 ${r.p99} API ${r.api_cpu_ms_per_request.total} PG ${r.postgres_cpu_ms_per_request.total} ms CPU/req, ${r.mean_decisions_per_batch ?? "-"} decisions/batch`);
    console.log(`API RSS: ${rssLine()}`);
    console.log(`no goals checked (--no-baselines: no ratios); written to ${path.relative(ROOT, file)}`);
    return;
  }
  // The baselines do not depend on the batch size: measured once per connection count, after every
  // service has stopped (none idles beside them).
  const baselines = new Map<number, { pgbench: PgbenchRun; bare: BareExpressRun }>();
  for (const c of CONNECTIONS) {
    console.log(`pgbench -N at ${c} clients for ${DURATION_S} s`);
    const pgb = await pgbench(c, DURATION_S);
    if (pgb.clients < c) console.log(`  ran with ${pgb.clients} clients: the connections PostgreSQL has free`);
    console.log(`bare Express at ${c} connections for ${DURATION_S} s`);
    baselines.set(c, { pgbench: pgb, bare: await bareExpress(c, DURATION_S) });
  }

  // Each row against the baselines of its own connection count.
  const table = rows.map((r) => {
    const { pgbench: pgb, bare } = baselines.get(r.connections)!;
    return {
      ...r,
      ratio_to_pgbench: ratio(r.rps, pgb.tps),
      ratio_to_bare_express: ratio(r.rps, bare.rps),
      p99_to_bare_express_p99: Number((r.p99 / Math.max(1, bare.p99)).toFixed(2)),
      api_cpu_to_bare_express_cpu: ratio(r.api_cpu_ms_per_request.total, bare.cpu_ms_per_request.total),
      postgres_cpu_to_pgbench_cpu: ratio(r.postgres_cpu_ms_per_request.total, pgb.postgres_cpu_ms_per_txn.total),
    };
  });
  const goals = checkGoals(table);
  const byConnections = <T>(pick: (b: { pgbench: PgbenchRun; bare: BareExpressRun }) => T) => Object.fromEntries([...baselines].map(([c, b]) => [String(c), pick(b)]));
  const legacy = baselines.get(LEGACY_BASELINE_CONNECTIONS);
  const result = {
    date: stamp,
    label: args.label,
    machine: MACHINE,
    build: 'dist/ (npm run build), NODE_ENV=production',
    workers: args.workers ?? 'default',
    api_node_args: args['api-node-args'] ?? null,
    batch_sizes: BATCH_SIZES,
    fixed_rate: args.rate ? Number(args.rate) : null,
    duration_s: DURATION_S,
    request_mix: { approved: 0.7, denied: 0.2, held: 0.1 },
    authorize: table,
    goals,
    pgbench_n: byConnections((b) => b.pgbench),
    bare_express_by_connections: byConnections((b) => b.bare),
    // The keys of runs from before per-connection baselines, for their readers: the 64-connection
    // baselines (null when 64 was not measured).
    pgbench_n_64_clients: legacy?.pgbench ?? null,
    bare_express: legacy?.bare ?? null,
    services,
    // The first service's, as before batch sizes; services holds each.
    rss_mb: services[0]!.rss_mb,
  };
  const file = saveResult(stamp, args.label!, result);

  console.log(
    '\n| batch size | connections | req/s | p50 ms | p99 ms | errors | non-2xx | API CPU ms/req (user+sys) | PostgreSQL CPU ms/req (user+sys) | × pgbench -N | × bare Express | p99 ÷ bare p99 | API CPU ÷ bare Express CPU | PG CPU ÷ pgbench CPU | decisions per batch | API core busy | PG cores busy |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  const cpu = (c: CpuPerRequest) => `${c.total} (${c.user}+${c.sys})`;
  for (const r of table) {
    console.log(
      `| ${batchLabel(r.batch_size)} | ${r.connections} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.non2xx} | ${cpu(r.api_cpu_ms_per_request)} | ${cpu(r.postgres_cpu_ms_per_request)} | ${orDash(r.ratio_to_pgbench)} | ${orDash(r.ratio_to_bare_express)} | ${r.p99_to_bare_express_p99} | ${orDash(r.api_cpu_to_bare_express_cpu)} | ${orDash(r.postgres_cpu_to_pgbench_cpu)} | ${orDash(r.mean_decisions_per_batch)} | ${r.api_core_busy} | ${r.postgres_cores_busy} |`,
    );
  }
  console.log('\nbatch phases, mean ms per batch (connect = pool connection and BEGIN):');
  for (const r of table) if (r.batch_phase_ms) console.log(`  batch size ${batchLabel(r.batch_size)}, ${r.connections} connections: ${Object.entries(r.batch_phase_ms).map(([p, ms]) => `${p} ${ms}`).join(', ')}`);
  console.log('\ngoals:');
  for (const g of goals) {
    const verdict = g.met === null ? 'not measured' : g.met ? 'met' : 'not met';
    console.log(`  batch size ${batchLabel(g.batch_size)}: ${g.metric} at ${g.connections} connections ${orDash(g.value)} (${g.bound === 'at_least' ? '≥' : '≤'} ${g.target}): ${verdict}`);
  }
  console.log('');
  for (const [c, { pgbench: pgb, bare }] of baselines) {
    const clients = pgb.clients < c ? `${pgb.clients} clients, of ${c} asked` : `${c} clients`;
    console.log(`pgbench -N (${clients}): ${pgb.tps} TPS, PostgreSQL ${cpu(pgb.postgres_cpu_ms_per_txn)} ms CPU per transaction`);
    console.log(`bare Express (${c} connections): ${bare.rps} req/s, p99 ${bare.p99} ms, ${cpu(bare.cpu_ms_per_request)} ms CPU per request`);
  }
  console.log(`load generator: ${table.map((r) => cpu(r.load_generator_cpu_ms_per_request)).join(', ')} ms CPU per request`);
  console.log(`API RSS: ${rssLine()}`);
  console.log(`written to ${path.relative(ROOT, file)}`);
}

await main();
