// Benchmark: held requests under load. POST /v1/authorize open loop (request i sent at t0 + i/rate,
// timed from that moment) where one decision in five is held (above the policy's
// require_approval_above), against the service as `npm start` runs it: `spend-auth dev`, which runs
// the API, the outbox relay and the Temporal worker in one process, and supervises the Temporal CLI's
// dev server as its child. Compiled build, NODE_ENV=production, real PostgreSQL (a fresh database)
// and a fresh DATA_DIR (the dev server's state). Goal (issue 40): outbox lag (a held decision's
// commit to its workflow started) p99 ≤ 2 s, and no hold left without a workflow.
//   TEMPORAL_CLI_PATH=… npx tsx bench/held.ts --rate 500 --duration 60 --label held-baseline
// Figures:
// - outbox_lag_ms: per held decision, its outbox row's created_at (the decision's time, written in
//   its transaction) to processed_at (set by the relay once the engine answered the start). A sample
//   is checked against the engine's own start time (describe().startTime).
// - workflows started per second: held rows the relay marked done, per second of their span.
// - CPU from /proc (bench/proc.ts), from the load's start until the relay has drained: the service
//   process (API, relay and worker: one process under `dev`), split by thread; the dev server (the
//   `temporal server start-dev` child); the PostgreSQL backends of the bench database.
// - holds_without_workflow: once the relay drained, the reconciler's question (pending holds,
//   src/approvals/approvals.repository.ts pendingHoldsToReconcile) asked of every pending hold, each
//   looked up in the engine as the reconciler does (gateway.heldWorkflowState): those 'missing'.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import { pendingHoldsToReconcile } from '../src/approvals/approvals.repository.js';
import { connectDatabase } from '../src/db/connect.js';
import { TemporalGateway } from '../src/temporal/gateway.js';
import { heldWorkflowId } from '../src/temporal/ids.js';
import { apiPost, DEFAULT_ADMIN_URL, MACHINE, openLoopClient, perRequest, postgresAdmin, productionKeys, ROOT, saveResult, selfCpu, stop, waitForHealth, requireAdmin} from './harness.js';
import { commandLine, CpuMeter, descendants, measure, threadTicks, TICK_MS } from './proc.js';

const { values: args } = parseArgs({
  options: {
    rate: { type: 'string', default: '500' },
    duration: { type: 'string', default: '60' },
    label: { type: 'string', default: 'run' },
    /** How long, after the load, the relay is given to start every hold's workflow. */
    'drain-timeout': { type: 'string', default: '120' },
    'no-build': { type: 'boolean', default: false },
    'admin-url': { type: 'string', default: DEFAULT_ADMIN_URL },
  },
});
const RATE = Number(args.rate);
const DURATION_S = Number(args.duration);
const DRAIN_TIMEOUT_S = Number(args['drain-timeout']);
if (!(RATE > 0) || !(DURATION_S > 0) || !(DRAIN_TIMEOUT_S > 0)) throw new Error('--rate, --duration and --drain-timeout are positive numbers');
const ADMIN_URL = args['admin-url']!;
const DB_NAME = 'spend_auth_bench_held';
const DATA_DIR = path.join(ROOT, '.data/bench-held');
const AGENTS = 100;
/** Held above this; one request in five asks for HELD_AMOUNT. */
const APPROVAL_ABOVE = 50_000;
const HELD_AMOUNT = 75_000;
const HELD_EVERY = 5;
const NO_ANSWER_MS = 10_000;
/** Holds checked against the engine's own start time and first workflow task. */
const ENGINE_SAMPLE = 200;
/** The lag timeline's window (by the decision's time), to see whether the lag grows during the run. */
const WINDOW_S = 10;
/** How often the backlog of unstarted holds is read during the run. */
const BACKLOG_EVERY_MS = 5_000;
/** Engine look-ups at once when counting holds without a workflow. */
const LOOKUP_CONCURRENCY = 16;

const { admin, dbUrl, backendsOf } = postgresAdmin(ADMIN_URL);
const client = openLoopClient(NO_ANSWER_MS);
const api = apiPost;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (n: number) => Math.round(n * 10) / 10;
const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : 0);
const summary = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  return { count: s.length, p50: round(percentile(s, 50)), p99: round(percentile(s, 99)), max: round(s.at(-1) ?? 0) };
};


/** `spend-auth dev` on a fresh database and DATA_DIR, with one enterprise account; resolves once the API answers. */
async function startDev(): Promise<{ base: string; key: string; server: ChildProcess; logFile: string }> {
  if (!args['no-build']) {
    console.log('building dist/ (npm run build)');
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  }
  await admin(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${DB_NAME}`);
  fs.rmSync(DATA_DIR, { recursive: true, force: true });
  fs.mkdirSync(DATA_DIR, { recursive: true });
  const { TEMPORAL_ADDRESS: _given, ...inherited } = process.env;
  // No TEMPORAL_ADDRESS: `dev` then runs (and supervises) its own dev server, as `npm start` does.
  const env = { ...inherited, ...(await productionKeys()), DATABASE_URL: dbUrl(DB_NAME), LOG_LEVEL: 'warn', NODE_ENV: 'production', DATA_DIR, HOST: '127.0.0.1' };
  execFileSync(process.execPath, ['bin/spend-auth.js', 'migrate'], { cwd: ROOT, env, stdio: 'ignore' });
  const created = JSON.parse(
    execFileSync(process.execPath, ['bin/spend-auth.js', 'accounts', 'create', '--name', 'bench', '--plan', 'enterprise', '--rate-limit', '100000000', '--json'], { cwd: ROOT, env, encoding: 'utf8' }),
  );
  const port = 3900 + Math.floor(Math.random() * 90);
  const server = spawn(process.execPath, ['bin/spend-auth.js', 'dev'], { cwd: ROOT, env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  server.stderr.on('data', (c: Buffer) => process.stderr.write(c));
  const logFile = path.join(DATA_DIR, 'service.log');
  server.stdout.pipe(fs.createWriteStream(logFile));
  const base = `http://127.0.0.1:${port}`;
  // `dev` starts the dev server before the API listens: allow for it.
  await waitForHealth(base, server, 120_000);
  return { base, key: created.keys.live as string, server, logFile };
}

/** The dev server's address and pid, from DATA_DIR/temporal.pid (src/temporal/dev-supervisor.ts). */
function devServerRecord(): { address: string; pid: number } {
  const record = JSON.parse(fs.readFileSync(path.join(DATA_DIR, 'temporal.pid'), 'utf8')) as { address?: string; pid?: number };
  if (!record.address || !record.pid) throw new Error(`no dev server recorded in ${DATA_DIR}/temporal.pid`);
  return { address: record.address, pid: record.pid };
}

interface LoadResult {
  sent: number;
  latencies: number[];
  non_2xx: number;
  no_answer: number;
  outcomes: Record<string, number>;
  wall_ms: number;
}

/** Open loop: request i at t0 + i/rate whatever the answers do; latency from that scheduled moment. */
async function openLoop(endpoint: URL, key: string, agents: string[], rate: number, seconds: number): Promise<LoadResult> {
  const total = Math.round(rate * seconds);
  const latencies: number[] = [];
  const outcomes: Record<string, number> = {};
  let non2xx = 0;
  let noAnswer = 0;
  const t0 = performance.now() + 50;
  const inflight: Promise<void>[] = [];
  let sent = 0;
  await new Promise<void>((done) => {
    const tick = () => {
      const now = performance.now();
      while (sent < total && t0 + (sent * 1000) / rate <= now) {
        const scheduled = t0 + (sent * 1000) / rate;
        const i = sent;
        const held = i % HELD_EVERY === 0;
        const body = JSON.stringify({ agent_id: agents[i % agents.length], amount: held ? HELD_AMOUNT : 1_000 + (i % 9_000), currency: 'USD', vendor: held ? 'aws.amazon.com' : 'api.openai.com' });
        sent += 1;
        inflight.push(
          client.post(endpoint, body, { authorization: `Bearer ${key}` }).then((res) => {
            latencies.push(performance.now() - scheduled);
            if (res.status === 0) return void (noAnswer += 1);
            if (res.status < 200 || res.status >= 300) return void (non2xx += 1);
            const decision = String((JSON.parse(res.body) as { decision?: unknown }).decision);
            outcomes[decision] = (outcomes[decision] ?? 0) + 1;
          }),
        );
      }
      if (sent < total) setTimeout(tick, Math.max(0, Math.min(5, t0 + (sent * 1000) / rate - performance.now())));
      else done();
    };
    tick();
  });
  await Promise.all(inflight);
  return { sent: total, latencies, non_2xx: non2xx, no_answer: noAnswer, outcomes, wall_ms: performance.now() - t0 };
}

/** Held decisions whose workflow the relay has not started yet, and the oldest one's age. */
async function heldBacklog(client: pg.Client): Promise<{ pending: number; oldest_age_ms: number; other_pending: number }> {
  const { rows } = await client.query<{ pending: string; oldest_age_ms: number | null; other_pending: string }>(
    `SELECT count(*) FILTER (WHERE topic = 'held_decision') AS pending,
            extract(epoch FROM now() - min(created_at) FILTER (WHERE topic = 'held_decision')) * 1000 AS oldest_age_ms,
            count(*) FILTER (WHERE topic <> 'held_decision') AS other_pending
     FROM outbox WHERE processed_at IS NULL AND dead_lettered_at IS NULL`,
  );
  return { pending: Number(rows[0]!.pending), oldest_age_ms: Math.round(Number(rows[0]!.oldest_age_ms ?? 0)), other_pending: Number(rows[0]!.other_pending) };
}

/** CPU of the service process by thread: the main thread, the Temporal core's threads, the rest. */
class ThreadMeter {
  private readonly first = new Map<number, { name: string; ticks: number }>();
  private readonly last = new Map<number, { name: string; ticks: number }>();
  /** After the first sample, a thread seen for the first time was started since: all its time counts. */
  private sampled = false;
  constructor(private readonly pid: number) {}
  async sample(): Promise<void> {
    for (const [tid, t] of threadTicks(this.pid)) {
      const v = { name: t.name, ticks: t.user + t.sys };
      if (!this.first.has(tid)) this.first.set(tid, { ...v, ticks: this.sampled ? 0 : v.ticks });
      this.last.set(tid, v);
    }
    this.sampled = true;
  }
  /** Milliseconds per group: `main` (the event loop: HTTP, decisions, the relay, activities, the SDK's JavaScript side), by thread name otherwise. */
  total(): { by_group_ms: Record<string, number>; busiest_threads: { tid: number; name: string; ms: number }[] } {
    const byGroup: Record<string, number> = {};
    const threads: { tid: number; name: string; ms: number }[] = [];
    for (const [tid, a] of this.first) {
      const b = this.last.get(tid)!;
      const ms = (b.ticks - a.ticks) * TICK_MS;
      const group = tid === this.pid ? 'main' : b.name;
      byGroup[group] = (byGroup[group] ?? 0) + ms;
      threads.push({ tid, name: tid === this.pid ? 'main' : b.name, ms });
    }
    return { by_group_ms: byGroup, busiest_threads: threads.sort((x, y) => y.ms - x.ms).slice(0, 8) };
  }
}

/**
 * `dev` runs the API, the relay and the worker in one process: its threads are split between them.
 * The Temporal core's threads (tokio-*) and the workflow threads (workflow-*) are the worker's; the
 * main thread (HTTP, decisions, the relay, and the worker's JavaScript side, which cannot be told
 * apart) and Node's helper threads (V8's garbage collection, libuv's pool) are counted as the API's.
 */
function cpuSplit(byGroupMs: Record<string, number>, decisions: number, holds: number) {
  let worker = 0;
  let api = 0;
  for (const [group, ms] of Object.entries(byGroupMs)) {
    if (group.startsWith('tokio') || group.startsWith('temporal') || group.startsWith('workflow')) worker += ms;
    else api += ms;
  }
  const per = (ms: number, n: number) => Math.round((ms / Math.max(1, n)) * 1000) / 1000;
  return {
    api_cpu_ms_per_decision: per(api, decisions),
    worker_cpu_ms_per_hold: per(worker, holds),
    cpu_split_note:
      "`dev` runs the API, the relay and the worker in one process, split by thread: worker_cpu_ms_per_hold is the Temporal core's threads (tokio-*) and the workflow threads (workflow-*) per hold; api_cpu_ms_per_decision is every other thread per decision: the main thread (HTTP, decisions, the relay, and the worker's JavaScript side, which cannot be told apart) and Node's helpers (V8's garbage collector, libuv's pool)",
  };
}

/** Each pending hold looked up in the engine as the reconciler does; the states counted. */
async function reconcilerCount(address: string): Promise<{ pending_holds: number; running: number; closed: number; missing: number; failed: number; missing_ids: string[] }> {
  const database = await connectDatabase({ databaseUrl: dbUrl(DB_NAME), poolSize: 2 });
  const gateway = new TemporalGateway({ address, namespace: 'default', taskQueue: 'spend-authorization' });
  try {
    // Every pending hold, whatever its age (the reconciler itself leaves the relay the last two minutes).
    const holds = await pendingHoldsToReconcile(database.db, new Date(Date.now() + 1_000), 1_000_000);
    const counts = { pending_holds: holds.length, running: 0, closed: 0, missing: 0, failed: 0, missing_ids: [] as string[] };
    let next = 0;
    await Promise.all(
      Array.from({ length: LOOKUP_CONCURRENCY }, async () => {
        while (next < holds.length) {
          const hold = holds[next++]!;
          try {
            const state = await gateway.heldWorkflowState(hold.id);
            counts[state] += 1;
            if (state === 'missing' && counts.missing_ids.length < 10) counts.missing_ids.push(hold.id);
          } catch {
            counts.failed += 1;
          }
        }
      }),
    );
    return counts;
  } finally {
    await gateway.close();
    await database.close();
  }
}

/** For a sample of holds: decision → WorkflowExecutionStarted (the engine's clock) and → the worker's first workflow task started. */
async function engineSample(address: string, holds: { id: string; created_at: Date }[]) {
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace: 'default' });
  const toStart: number[] = [];
  const toFirstTask: number[] = [];
  let unreadable = 0;
  try {
    const step = Math.max(1, Math.floor(holds.length / ENGINE_SAMPLE));
    for (let i = 0; i < holds.length; i += step) {
      const hold = holds[i]!;
      try {
        const handle = client.workflow.getHandle(heldWorkflowId(hold.id));
        const history = await handle.fetchHistory();
        const events = history.events ?? [];
        const time = (e: (typeof events)[number] | undefined) => (e?.eventTime ? Number(e.eventTime.seconds) * 1000 + Math.floor((e.eventTime.nanos ?? 0) / 1e6) : undefined);
        const started = time(events[0]);
        // EventType 6: WORKFLOW_TASK_STARTED (the worker picked the first task up).
        const firstTask = time(events.find((e) => Number(e.eventType) === 6));
        if (started !== undefined) toStart.push(started - hold.created_at.getTime());
        if (started !== undefined && firstTask !== undefined) toFirstTask.push(firstTask - started);
      } catch {
        unreadable += 1;
      }
    }
  } finally {
    await connection.close();
  }
  return { sampled: toStart.length + unreadable, unreadable, decision_to_workflow_started_ms: summary(toStart), workflow_started_to_first_task_ms: summary(toFirstTask) };
}

async function main() {
  await requireAdmin(ADMIN_URL);
  const stamp = new Date().toISOString();
  if (!process.env.TEMPORAL_CLI_PATH) console.log('TEMPORAL_CLI_PATH unset: `dev` looks for the Temporal CLI itself (src/temporal/cli-acquisition.ts)');
  const { base, key, server, logFile } = await startDev();
  const dev = devServerRecord();
  console.log(`service ${base} (pid ${server.pid}), dev server ${dev.address} (pid ${dev.pid})`);
  const watcher = new pg.Client({ connectionString: dbUrl(DB_NAME) });
  await watcher.connect();
  try {
    const policy = await api(base, key, '/v1/policies', {
      name: 'bench held',
      budget_monthly: Number.MAX_SAFE_INTEGER,
      budget_single_max: 1_000_000,
      require_approval_above: APPROVAL_ABOVE,
      approval_timeout_seconds: 3_600,
    });
    const agents: string[] = [];
    for (let i = 0; i < AGENTS; i++) agents.push((await api(base, key, '/v1/agents', { name: `held-${i}`, policy_id: policy.id })).id);
    const endpoint = new URL(`${base}/v1/authorize`);

    // Warm-up, holds included; then the worker must be running (its first workflow task done)
    // before anything is measured: it bundles the workflows at start.
    console.log('warm-up: 50/s for 5 s, then waiting for the relay and the worker');
    await openLoop(endpoint, key, agents, 50, 5);
    const warmDeadline = Date.now() + 180_000;
    const connection = await Connection.connect({ address: dev.address });
    const probe = new Client({ connection, namespace: 'default' });
    const [warmHold] = (await watcher.query<{ ref_id: string }>("SELECT ref_id FROM outbox WHERE topic = 'held_decision' ORDER BY id LIMIT 1")).rows;
    for (;;) {
      if (Date.now() > warmDeadline) throw new Error('the worker did not run a held workflow within 180 s of the warm-up');
      const backlog = await heldBacklog(watcher);
      const history = backlog.pending === 0 ? await probe.workflow.getHandle(heldWorkflowId(warmHold!.ref_id)).fetchHistory().catch(() => undefined) : undefined;
      if (history?.events?.some((e) => Number(e.eventType) === 7)) break;
      await sleep(1_000);
    }
    await connection.close();
    const [{ last_id: warmLastId }] = (await watcher.query<{ last_id: string }>('SELECT coalesce(max(id), 0) AS last_id FROM outbox')).rows as [{ last_id: string }];

    const service = new CpuMeter(() => [server.pid!]);
    const threads = new ThreadMeter(server.pid!);
    // Everything else below the service: the dev server, its watchdog and what that runs.
    const devServer = new CpuMeter(() => descendants(server.pid!).filter((p) => p !== server.pid && commandLine(p).includes('start-dev')));
    const others = new CpuMeter(() => descendants(server.pid!).filter((p) => p !== server.pid && !commandLine(p).includes('start-dev')));
    const backends = backendsOf(DB_NAME);
    const postgres = new CpuMeter(async () => (await backends.pids()).filter((p) => p !== (watcher as unknown as { processID: number }).processID));
    const loadAverage = os.loadavg().map(round);
    const backlog: { t_s: number; pending_holds: number; oldest_hold_age_ms: number; other_pending: number }[] = [];
    const loadStart = Date.now();
    const sampleBacklog = async () => {
      const b = await heldBacklog(watcher);
      backlog.push({ t_s: round((Date.now() - loadStart) / 1000), pending_holds: b.pending, oldest_hold_age_ms: b.oldest_age_ms, other_pending: b.other_pending });
      return b;
    };
    console.log(`load: ${RATE}/s for ${DURATION_S} s, one in ${HELD_EVERY} held (load average ${loadAverage.join(' ')})`);
    let loadEndedAt = 0;
    let drainedAt: number | null = null;
    const { value: load, ...generator } = await selfCpu(() =>
      measure([service, devServer, others, postgres, threads], async () => {
        const timer = setInterval(() => void sampleBacklog().catch(() => undefined), BACKLOG_EVERY_MS);
        const result = await openLoop(endpoint, key, agents, RATE, DURATION_S);
        loadEndedAt = Date.now();
        clearInterval(timer);
        console.log(`load done; waiting up to ${DRAIN_TIMEOUT_S} s for the relay to start every hold's workflow`);
        for (;;) {
          const b = await sampleBacklog();
          if (b.pending === 0) {
            drainedAt = Date.now();
            break;
          }
          if (Date.now() - loadEndedAt > DRAIN_TIMEOUT_S * 1000) break;
          await sleep(500);
        }
        return result;
      }),
    );
    const measuredEnd = drainedAt ?? Date.now();

    // The lag of every hold of the measured load (ids past the warm-up's).
    const { rows: held } = await watcher.query<{ ref_id: string; created_at: Date; processed_at: Date | null }>(
      "SELECT ref_id, created_at, processed_at FROM outbox WHERE topic = 'held_decision' AND id > $1 ORDER BY id",
      [warmLastId],
    );
    const started = held.filter((h) => h.processed_at !== null);
    // A hold still waiting when the drain gave up counts with its age then: a lower bound of its lag.
    const lags = held.map((h) => (h.processed_at ?? new Date(measuredEnd)).getTime() - h.created_at.getTime());
    const firstCreated = held[0]?.created_at.getTime() ?? loadStart;
    const timeline: { from_s: number; holds: number; lag_p50_ms: number; lag_p99_ms: number; lag_max_ms: number }[] = [];
    for (let from = 0; from < DURATION_S; from += WINDOW_S) {
      const inWindow = started.filter((h) => h.created_at.getTime() - firstCreated >= from * 1000 && h.created_at.getTime() - firstCreated < (from + WINDOW_S) * 1000);
      const s = summary(inWindow.map((h) => h.processed_at!.getTime() - h.created_at.getTime()));
      timeline.push({ from_s: from, holds: s.count, lag_p50_ms: s.p50, lag_p99_ms: s.p99, lag_max_ms: s.max });
    }
    const processedTimes = started.map((h) => h.processed_at!.getTime()).sort((a, b) => a - b);
    const perSecond = new Map<number, number>();
    for (const t of processedTimes) perSecond.set(Math.floor(t / 1000), (perSecond.get(Math.floor(t / 1000)) ?? 0) + 1);
    const spanS = processedTimes.length > 1 ? (processedTimes.at(-1)! - processedTimes[0]!) / 1000 : 0;
    const { rows: eventRows } = await watcher.query<{ lag_ms: number }>(
      "SELECT extract(epoch FROM processed_at - created_at) * 1000 AS lag_ms FROM outbox WHERE topic = 'event' AND id > $1 AND processed_at IS NOT NULL",
      [warmLastId],
    );

    console.log('checking a sample of workflows in the engine, then every pending hold as the reconciler does');
    const sample = await engineSample(dev.address, started.map((h) => ({ id: h.ref_id, created_at: h.created_at })));
    const reconciler = await reconcilerCount(dev.address);

    const holds = held.length;
    const decisions = load.sent;
    const threadCpu = threads.total();
    const serviceCpu = service.total();
    const devCpu = devServer.total();
    const latency = summary(load.latencies);
    const result = {
      date: stamp,
      label: args.label,
      command: `npx tsx bench/held.ts ${process.argv.slice(2).join(' ')}`.trim(),
      machine: MACHINE,
      build: 'dist/ (npm run build), NODE_ENV=production; `spend-auth dev` (API, outbox relay and Temporal worker in one process) with the dev server it supervises; PostgreSQL',
      generator: 'open loop: request i sent at t0 + i/rate, latency from that moment; keep-alive sockets, as many as needed',
      rate: RATE,
      duration_s: DURATION_S,
      request_mix: { held: 1 / HELD_EVERY, approved: 1 - 1 / HELD_EVERY },
      load_average_before: loadAverage,
      decisions,
      achieved_rps: round(decisions / (load.wall_ms / 1000)),
      authorize_latency_ms: { p50: latency.p50, p99: latency.p99, max: latency.max },
      non_2xx: load.non_2xx,
      no_answer: load.no_answer,
      outcomes: load.outcomes,
      holds,
      outbox_lag_ms: (({ p50, p99, max }) => ({ p50, p99, max }))(summary(lags)),
      outbox_lag_measured_as:
        "per held decision: outbox.processed_at (set by the relay once the engine answered the workflow's start) minus outbox.created_at (the decision's time, written in its transaction); a hold not started when the drain gave up counts with its age then (a lower bound)",
      outbox_lag_by_window: timeline,
      holds_not_started_at_drain_end: holds - started.length,
      relay_drained_s_after_load: drainedAt === null ? null : round((drainedAt - loadEndedAt) / 1000),
      workflows_started_per_s: { mean: spanS > 0 ? round(started.length / spanS) : null, peak_second: Math.max(0, ...perSecond.values()), holds_arriving_per_s: round(RATE / HELD_EVERY) },
      event_rows_lag_ms: summary(eventRows.map((r) => Number(r.lag_ms))),
      backlog_during_run: backlog,
      engine_sample: sample,
      holds_without_workflow: reconciler.missing,
      reconciler_count: reconciler,
      cpu_window: `from the load's start until the relay drained (${round((measuredEnd - loadStart) / 1000)} s)`,
      service_process_cpu_ms_per_decision: perRequest(serviceCpu, decisions),
      service_process_threads_ms: threadCpu.by_group_ms,
      service_process_busiest_threads_ms: threadCpu.busiest_threads,
      ...cpuSplit(threadCpu.by_group_ms, decisions, holds),
      dev_server_cpu_ms_per_hold: perRequest(devCpu, holds),
      other_descendants_cpu_ms: others.total(),
      postgres_cpu_ms_per_decision: perRequest(postgres.total(), decisions),
      load_generator_cpu_ms_per_decision: perRequest(generator, decisions),
    };
    await backends.close();
    const logged: Record<string, number> = {};
    await stop(server);
    for (const line of fs.readFileSync(logFile, 'utf8').split('\n')) {
      if (!line.startsWith('{')) continue;
      const msg = String((JSON.parse(line) as { msg?: unknown }).msg);
      logged[msg] = (logged[msg] ?? 0) + 1;
    }
    const file = saveResult(stamp, `held-${args.label}`, { ...result, service_log: logged });
    console.log(JSON.stringify({ ...result, backlog_during_run: undefined, engine_sample: sample, service_log: logged }, null, 2));
    console.log(`written to ${path.relative(ROOT, file)}`);
  } finally {
    await watcher.end().catch(() => undefined);
    client.close();
    await stop(server);
  }
}

await main();
