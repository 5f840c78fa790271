// Benchmark: Stripe Issuing real-time authorization requests (POST /rails/stripe-issuing/:id), signed
// with the official package, beside POST /v1/authorize at the same rates in the same run (steps of
// kind "swipe" and "authorize"), each sent at a constant arrival rate: an open-loop generator schedules each
// request at t0 + i/rate whatever the answers do, and times it from that scheduled moment, so
// queueing anywhere (the server, the database, this generator) shows in the latency. Goal (docs/rails/
// stripe-issuing.md): p99 ≤ 200 ms at 300/s, and no answer later than the 1.5 s deadline at 1,000/s
// (past it, the timeout answer, counted here). Runs the compiled build as deployed, on PostgreSQL,
// with CPU per request from /proc.
//   npx tsx bench/stripe-issuing.ts --rates 100,300,1000,2000 --duration 20 --label quiet
//   npx tsx bench/stripe-issuing.ts --kinds swipe --rates 2000   (swipes only)
//   npx tsx bench/stripe-issuing.ts --batch-sizes 64,1 --label group-commit   (a service per batch size)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import Stripe from 'stripe';
import { apiPost, batchLabel, batchSizeEnv, openLoopClient, DEFAULT_ADMIN_URL, MACHINE, parseBatchSizes, perRequest, postgresAdmin, ROOT, saveResult, selfCpu, startService, stop, type BatchSize, requireAdmin} from './harness.js';
import { BATCH_PHASES } from '../src/authorization/batch-decide.js';
import { CpuMeter, descendants, measure } from './proc.js';

const { values: args } = parseArgs({
  options: {
    rates: { type: 'string', default: '100,300,1000,2000' },
    /** Which steps to run at each rate: card swipes, authorize decisions, or both (comma list). */
    kinds: { type: 'string', default: 'swipe,authorize' },
    duration: { type: 'string', default: '20' },
    label: { type: 'string', default: 'run' },
    /** AUTHORIZE_BATCH_SIZE of the service, a comma list: a service per size, one after the other (absent: the service's default). */
    'batch-sizes': { type: 'string' },
    'no-build': { type: 'boolean', default: false },
    'admin-url': { type: 'string', default: DEFAULT_ADMIN_URL },
    /** Writes a V8 CPU profile of the API process to bench/profiles/ (as `npm run bench -- --profile`). */
    profile: { type: 'boolean', default: false },
  },
});
const RATES = args.rates!.split(',').map(Number);
const KINDS = args.kinds!.split(',') as StepKind[];
type StepKind = 'swipe' | 'authorize';
const DURATION_S = Number(args.duration);
const BATCH_SIZES = parseBatchSizes(args['batch-sizes']);
const DB_NAME = 'spend_auth_bench_stripe';
const DEADLINE_MS = 1_500;
const AGENTS = 100;
const NO_ANSWER_MS = 10_000;

const AUTHORIZATION = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/fixtures/stripe/issuing.authorization.json'), 'utf8'));
const client = openLoopClient(NO_ANSWER_MS);
const post = client.post;
const api = apiPost;

let sequence = 0;
/** One signed `issuing_authorization.request` from Stripe's fixture. */
function signedRequest(secret: string, swipe: { agentId: string; amount: number; url: string | null; name: string }) {
  const a = structuredClone(AUTHORIZATION);
  a.id = `iauth_bench${process.pid}x${++sequence}`;
  a.livemode = true;
  a.card.metadata = { agent_id: swipe.agentId };
  a.pending_request.amount = swipe.amount;
  a.merchant_data.url = swipe.url;
  a.merchant_data.name = swipe.name;
  const payload = JSON.stringify({ id: `evt_bench${process.pid}x${sequence}`, object: 'event', api_version: Stripe.API_VERSION, created: Math.floor(Date.now() / 1000), data: { object: a }, livemode: true, type: 'issuing_authorization.request' });
  return { payload, header: Stripe.webhooks.generateTestHeaderString({ payload, secret }) };
}

/** What else used the CPU as a step began (ps: the busiest processes that are not this bench's), to say how quiet the machine was. */
function otherProcesses(ours: number[]): string[] {
  const lines = execFileSync('ps', ['-eo', 'pid=,pcpu=,args=', '--sort=-pcpu'], { encoding: 'utf8' }).split('\n');
  return lines
    .map((l) => l.trim())
    .filter((l) => l && !ours.includes(Number(l.split(/\s+/)[0])) && !l.includes('postgres:') && Number(l.split(/\s+/)[1]) >= 5)
    .slice(0, 8)
    // Paths shortened to what the program is: where other checkouts live says nothing about the load.
    .map((l) => l.replace(/\/\S*\/(node_modules|bin)\//g, '…/$1/').replace(/^(\d+\s+[\d.]+\s+)(.{0,110}).*$/, '$1$2'));
}

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : 0);
const round = (n: number) => Math.round(n * 10) / 10;

/**
 * One service start with `batchSize`: set up, warmed up, measured at every rate, stopped. Each start
 * recreates DB_NAME (startService), so every batch size begins on an empty database.
 */
async function runService(batchSize: BatchSize, build: boolean) {
  const { backendsOf, dbUrl } = postgresAdmin(args['admin-url']!);
  // Bound to loopback: the only address this benchmark's traffic ever goes to.
  const nodeArgs = args.profile ? ['--cpu-prof', '--cpu-prof-dir', path.join(ROOT, 'bench/profiles')] : [];
  const { base, key, server } = await startService({ adminUrl: args['admin-url']!, database: DB_NAME, build, nodeArgs, env: { HOST: '127.0.0.1', ...batchSizeEnv(batchSize) } });
  const policy = await api(base, key, '/v1/policies', { name: 'bench cards', budget_monthly: Number.MAX_SAFE_INTEGER, budget_single_max: 1_000_000, vendor_denylist: ['casino.example'] });
  const agents: string[] = [];
  for (let i = 0; i < AGENTS; i++) agents.push((await api(base, key, '/v1/agents', { name: `card-${i}`, policy_id: policy.id })).id);
  const secret = `whsec_bench${Math.random().toString(36).slice(2)}`;
  const connection = await api(base, key, '/v1/rail-connections', { type: 'stripe_issuing', signing_secret: secret });
  const endpoint = new URL(`${base}/rails/stripe-issuing/${connection.id}`);
  const apiPids = () => descendants(server.pid!);
  const backends = backendsOf(DB_NAME);
  // The books, read beside the service between steps (outside the CPU measurement): timeout answers recorded.
  const books = new pg.Client({ connectionString: dbUrl(DB_NAME) });
  await books.connect();
  const recordedTimeouts = async () => Number((await books.query<{ n: string }>(`SELECT count(*) AS n FROM rail_authorizations WHERE outcome = 'timeout'`)).rows[0]!.n);

  /**
   * One step at `rate`. Swipes: 10% that match an approval the agent asked for first (made before
   * the step, not timed), 20% at a denylisted merchant (declined), 70% new approvals captured at
   * once. Authorize: the same agents, amounts and vendors as decisions (10% at the vendor of the
   * pre-approvals, 20% denylisted, 70% approved), with the API key, as an agent asks.
   */
  const step = async (kind: StepKind, rate: number, seconds: number) => {
    const total = Math.round(rate * seconds);
    const matchedAgents: string[] = [];
    for (let i = 0; kind === 'swipe' && i < Math.round(total * 0.1); i++) {
      const agentId = agents[i % agents.length]!;
      await api(base, key, '/v1/authorize', { agent_id: agentId, amount: 5_000, currency: 'USD', vendor: 'shop.example' });
      matchedAgents.push(agentId);
    }
    const swipeFor = (i: number) => {
      const r = i % 10;
      if (r === 0 && (matchedAgents.length || kind === 'authorize')) return { agentId: kind === 'swipe' ? matchedAgents.shift()! : agents[i % agents.length]!, amount: 1_000, url: 'https://shop.example/checkout', name: 'SHOP' };
      if (r <= 2) return { agentId: agents[i % agents.length]!, amount: 2_000, url: 'https://casino.example', name: 'CASINO' };
      return { agentId: agents[i % agents.length]!, amount: 1_000 + (i % 9_000), url: null, name: 'OpenAI' };
    };
    const authorizeUrl = new URL(`${base}/v1/authorize`);
    const requestFor = (i: number): { url: URL; payload: string; headers: Record<string, string> } => {
      const swipe = swipeFor(i);
      if (kind === 'swipe') {
        const { payload, header } = signedRequest(secret, swipe);
        return { url: endpoint, payload, headers: { 'stripe-signature': header } };
      }
      const vendor = swipe.url ? new URL(swipe.url).hostname : 'openai.com';
      return { url: authorizeUrl, payload: JSON.stringify({ agent_id: swipe.agentId, amount: swipe.amount, currency: 'USD', vendor }), headers: { authorization: `Bearer ${key}` } };
    };
    const timeoutsBefore = await recordedTimeouts();
    const latencies: number[] = [];
    // shed: answered 503 at once under overload (admission control), never decided; a swipe's counterpart is its timeout answer.
    const outcome = { approved: 0, declined: 0, timeout_answers: 0, shed: 0, over_deadline: 0, non_200: 0, no_answer: 0 };
    const load = os.loadavg();
    const others = otherProcesses([process.pid, ...apiPids()]);
    const apiMeter = new CpuMeter(apiPids);
    const postgres = new CpuMeter(backends.pids);
    const { value: wallMs, ...generator } = await selfCpu(() =>
      measure([apiMeter, postgres], async () => {
        const t0 = performance.now() + 50;
        const inflight: Promise<void>[] = [];
        let sent = 0;
        await new Promise<void>((done) => {
          const tick = () => {
            const now = performance.now();
            while (sent < total && t0 + (sent * 1000) / rate <= now) {
              const scheduled = t0 + (sent * 1000) / rate;
              const request = requestFor(sent);
              sent += 1;
              inflight.push(
                post(request.url, request.payload, request.headers).then((res) => {
                  const ms = performance.now() - scheduled;
                  latencies.push(ms);
                  if (ms > DEADLINE_MS) outcome.over_deadline += 1;
                  if (res.status === 0) return void (outcome.no_answer += 1);
                  if (res.status === 503) return void (outcome.shed += 1);
                  if (res.status !== 200) return void (outcome.non_200 += 1);
                  if (kind === 'authorize') {
                    const decision = (JSON.parse(res.body) as { decision: string }).decision;
                    if (decision === 'approved') outcome.approved += 1;
                    else outcome.declined += 1;
                    return;
                  }
                  const body = JSON.parse(res.body) as { approved: boolean; metadata: { reason_code?: string; decision_id?: string } };
                  if (body.approved) outcome.approved += 1;
                  else outcome.declined += 1;
                  if (body.metadata.reason_code === 'timeout') outcome.timeout_answers += 1;
                }),
              );
            }
            if (sent < total) setTimeout(tick, Math.max(0, Math.min(5, t0 + (sent * 1000) / rate - performance.now())));
            else done();
          };
          tick();
        });
        await Promise.all(inflight);
        return performance.now() - t0;
      }),
    );
    latencies.sort((a, b) => a - b);
    // Every timeout answer given must be in the books. They are recorded after the answer: wait
    // until the count stops moving (half a second unchanged, 10 s at most), so the next step starts
    // with this one's written and counts only its own.
    let timeoutAnswersRecorded = (await recordedTimeouts()) - timeoutsBefore;
    for (let i = 0, still = 0; i < 100 && still < 5; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const now = (await recordedTimeouts()) - timeoutsBefore;
      still = now === timeoutAnswersRecorded && now >= outcome.timeout_answers ? still + 1 : 0;
      timeoutAnswersRecorded = now;
    }
    return {
      kind,
      batch_size: batchSize,
      rate,
      duration_s: seconds,
      requests: total,
      achieved_rps: round(total / (wallMs / 1000)),
      p50_ms: round(percentile(latencies, 50)),
      p90_ms: round(percentile(latencies, 90)),
      p99_ms: round(percentile(latencies, 99)),
      max_ms: round(latencies.at(-1) ?? 0),
      ...outcome,
      timeout_answers_recorded: timeoutAnswersRecorded,
      load_average_before: load.map(round),
      other_processes_before: others,
      api_cpu_ms_per_request: perRequest(apiMeter.total(), total),
      postgres_cpu_ms_per_request: perRequest(postgres.total(), total),
      load_generator_cpu_ms_per_request: perRequest(generator, total),
    };
  };

  console.log(`batch size ${batchLabel(batchSize)}: warm-up 50/s for 5 s`);
  for (const kind of KINDS) await step(kind, 50, 5);
  const rows = [];
  for (const rate of RATES) {
    for (const kind of KINDS) {
      console.log(`batch size ${batchLabel(batchSize)}: ${kind} ${rate} requests/s for ${DURATION_S} s (load average ${os.loadavg().map(round).join(' ')})`);
      rows.push(await step(kind, rate, DURATION_S));
    }
  }
  await books.end();
  const metrics = await (await fetch(`${base}/metrics`)).text();
  await stop(server);
  await backends.close();

  // What the service logged (warnings and errors only, at LOG_LEVEL=warn), message by message: read
  // before the next start, which writes the same log file afresh.
  const logged: Record<string, number> = {};
  for (const line of fs.readFileSync(path.join(ROOT, '.data/bench', `${DB_NAME}.log`), 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    const msg = String((JSON.parse(line) as { msg?: unknown }).msg);
    logged[msg] = (logged[msg] ?? 0) + 1;
  }
  // Where the batches' time went over the whole run (group commit's phases, mean ms per batch).
  const sample = (name: string) => Number(metrics.split('\n').find((l) => l.startsWith(name))?.split(' ').at(-1) ?? Number.NaN);
  const batches = sample('decision_batch_size_count');
  const batchPhaseMs = Object.fromEntries(
    BATCH_PHASES.map((p) => [p, round((sample(`decision_batch_phase_seconds_sum{phase="${p}"}`) / batches) * 1000)]),
  );
  return { batch_size: batchSize, rows, service_log: logged, batches, mean_decisions_per_batch: round(sample('decision_batch_size_sum') / batches), batch_phase_ms: batchPhaseMs, rail_answers_total: metrics.split('\n').filter((l) => l.startsWith('rail_answers_total{')) };
}

async function main() {
  await requireAdmin(args['admin-url']!);
  const stamp = new Date().toISOString();
  const services = [];
  // Built once, before the first start: every batch size runs the same build.
  for (const [i, batchSize] of BATCH_SIZES.entries()) services.push(await runService(batchSize, !args['no-build'] && i === 0));
  client.close();
  const rows = services.flatMap((s) => s.rows);
  const result = {
    date: stamp,
    label: args.label,
    machine: MACHINE,
    build: 'dist/ (npm run build), NODE_ENV=production, one API process, PostgreSQL',
    generator: 'open loop: request i sent at t0 + i/rate, latency from that moment; keep-alive sockets, as many as needed',
    request_mix: { matched_pre_approval: 0.1, declined_denylisted: 0.2, approved_new_decision: 0.7 },
    deadline_ms: DEADLINE_MS,
    batch_sizes: BATCH_SIZES,
    steps: rows,
    // The first service's, under the keys of runs with one service; services holds each.
    service_log: services[0]!.service_log,
    rail_answers_total: services[0]!.rail_answers_total,
    services: services.map((s) => ({ batch_size: s.batch_size, service_log: s.service_log, rail_answers_total: s.rail_answers_total, batches: s.batches, mean_decisions_per_batch: s.mean_decisions_per_batch, batch_phase_ms: s.batch_phase_ms })),
  };
  const file = saveResult(stamp, `stripe-issuing-${args.label}`, result);
  console.log('\n| kind | batch size | rate/s | sent | achieved/s | p50 ms | p90 ms | p99 ms | max ms | > 1.5 s | timeout answers (recorded) | shed (503) | other non-200 | no answer | approved | declined | API CPU ms/req | PG CPU ms/req | generator CPU ms/req | load avg before |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(
      `| ${r.kind} | ${batchLabel(r.batch_size)} | ${r.rate} | ${r.requests} | ${r.achieved_rps} | ${r.p50_ms} | ${r.p90_ms} | ${r.p99_ms} | ${r.max_ms} | ${r.over_deadline} | ${r.timeout_answers} (${r.timeout_answers_recorded}) | ${r.shed} | ${r.non_200} | ${r.no_answer} | ${r.approved} | ${r.declined} | ${r.api_cpu_ms_per_request.total} | ${r.postgres_cpu_ms_per_request.total} | ${r.load_generator_cpu_ms_per_request.total} | ${r.load_average_before.join(' ')} |`,
    );
  }
  for (const s of services) console.log(`service log, batch size ${batchLabel(s.batch_size)}: ${JSON.stringify(s.service_log)}`);
  for (const s of services) console.log(`batch size ${batchLabel(s.batch_size)}: ${s.batches} batches, ${s.mean_decisions_per_batch} requests each; mean ms per batch: ${JSON.stringify(s.batch_phase_ms)}`);
  console.log(`written to ${path.relative(ROOT, file)}`);
}

await main();
