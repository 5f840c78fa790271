// Benchmark: GET /v1/audit-logs/verify's work on one large account, on PostgreSQL. Generates an
// account whose test-mode chain holds N sealed `authorization.decision` records (valid MACs and
// links, each with its sealed terms) and their N decisions, plus a few decisions whose records are
// missing, then times the whole verification (seal, chain recompute, decisions without a record,
// ledger check, checkpoint) and its parts.
//   npx tsx bench/audit-verify.ts --records 1000000
//   npx tsx bench/audit-verify.ts --records 1000000 --reuse     (keeps the generated database)
//   npx tsx bench/audit-verify.ts --records 1000000 --live      (a live chain: the usage count is checked too)
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { chainHash, GENESIS_HASH, headMac, recordMac } from '../src/audit/audit-chain.js';
import { useAuditHmacKey } from '../src/kernel/audit-key.js';
import { countDecisionsWithoutRecord } from '../src/audit/audit-verify.repository.js';
import { checkLedger } from '../src/audit/ledger-check.repository.js';
import { verifyAuditChain, verifyAuditLog } from '../src/audit/audit.service.js';
import { connectDatabase } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { generatePrivateJwk, keysFromJwks } from '../src/tokens/signing-keys.js';
import { CpuMeter, measure } from './proc.js';
import { DEFAULT_ADMIN_URL, requireAdmin } from './harness.js';

const { values: args } = parseArgs({
  options: {
    records: { type: 'string', default: '1000000' },
    /** Decisions written without their record: verify must count exactly these. */
    missing: { type: 'string', default: '7' },
    runs: { type: 'string', default: '3' },
    /** Keep and reuse the generated database (same --records) instead of generating it again. */
    reuse: { type: 'boolean', default: false },
    /** Live mode: verify then also checks the month's usage count (kind `usage`) against the records. */
    live: { type: 'boolean', default: false },
    'admin-url': { type: 'string', default: DEFAULT_ADMIN_URL },
  },
});
const N = Number(args.records);
const MISSING = Number(args.missing);
const LIVE = args.live === true;
const RUNS = Number(args.runs);
const DB_NAME = `spend_auth_bench_audit_${N}${LIVE ? '_live' : ''}`;
const ROOT = path.resolve(import.meta.dirname, '..');
const ACCOUNT = 'acct_benchaudit';
const AGENT = 'agt_benchaudit';
/** The key is kept with a reused database: its records were sealed with it. */
const KEY_FILE = path.join(os.tmpdir(), `${DB_NAME}.key`);
const INSERT_BATCH = 5_000;
/** What each generated decision record seals (every one in the same month and day, requested by one key). */
const TERMS = { spend_month: 'M:2026-01', spend_day: 'D:2026-01-01', requested_by: 'key_bench', approvals_required: null };

const url = (name: string) => Object.assign(new URL(args['admin-url']!), { pathname: `/${name}` }).toString();

async function admin(statement: string) {
  const c = new pg.Client({ connectionString: args['admin-url'] });
  await c.connect();
  try {
    return await c.query(statement);
  } finally {
    await c.end();
  }
}

const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

interface Timing {
  wall_ms: number;
  /** CPU of this process (chain recompute, JSON, HMACs) and of the database's backends: stable under load. */
  node_cpu_ms: number;
  postgres_cpu_ms: number;
}

/** Wall time and CPU of `work`: this process's, and that of the backends connected to the bench database. */
async function timed<T>(work: () => Promise<T>): Promise<[T, Timing]> {
  const backends = new CpuMeter(async () => (await admin(`SELECT pid FROM pg_stat_activity WHERE datname = '${DB_NAME}'`)).rows.map((r) => Number(r.pid)));
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  const value = await measure([backends], work);
  const wall = ms(start);
  const used = process.cpuUsage(cpu);
  const pgCpu = backends.total();
  return [value, { wall_ms: Math.round(wall), node_cpu_ms: Math.round((used.user + used.system) / 1000), postgres_cpu_ms: pgCpu.user_ms + pgCpu.sys_ms }];
}

async function generate(client: pg.Client, key: Buffer) {
  await client.query(`INSERT INTO accounts (id, name, plan) VALUES ($1, 'bench audit', 'growth')`, [ACCOUNT]);
  await client.query(`INSERT INTO policies (id, account_id, livemode, name, budget_monthly, budget_single_max) VALUES ('pol_benchaudit', $1, ${LIVE}, 'bench', 1000000000, 1000000)`, [ACCOUNT]);
  await client.query(`INSERT INTO agents (id, account_id, livemode, name, policy_id) VALUES ($1, $2, ${LIVE}, 'bench', 'pol_benchaudit')`, [AGENT, ACCOUNT]);
  const start = Date.UTC(2026, 0, 1);
  let prev = GENESIS_HASH;
  let approvedSum = 0;
  const t0 = process.hrtime.bigint();
  for (let from = 1; from <= N + MISSING; from += INSERT_BATCH) {
    const cols: Record<string, unknown[]> = { id: [], created: [], amount: [], outcome: [], aid: [], seq: [], prev: [], hash: [], mac: [] };
    const decisions: string[] = [];
    for (let i = from; i < Math.min(from + INSERT_BATCH, N + MISSING + 1); i++) {
      const id = `dec_${String(i).padStart(24, '0')}`;
      const createdAt = new Date(start + i * 10);
      decisions.push(id);
      cols.created!.push(createdAt);
      cols.amount!.push(100 + (i % 9_000));
      // Every tenth is approved (uncaptured): the agent's spend counters hold their sum.
      const outcome = i % 10 === 0 ? 'approved' : 'denied';
      cols.outcome!.push(outcome);
      if (outcome === 'approved') approvedSum += 100 + (i % 9_000);
      if (i > N) continue; // the last MISSING decisions have no record
      const record = {
        id: `aud_${String(i).padStart(24, '0')}`,
        account_id: ACCOUNT,
        livemode: LIVE,
        type: 'authorization.decision',
        actor_type: 'api_key' as const,
        actor_id: 'key_bench',
        agent_id: AGENT,
        decision_id: id,
        decision: outcome,
        amount: 100 + (i % 9_000),
        currency: 'USD',
        vendor: 'shop.example',
        category: 'saas',
        policy_id: 'pol_benchaudit',
        reason: outcome === 'approved' ? null : 'policy_denied',
        metadata: { order: `o-${i}` },
        created_at: createdAt,
        // The terms every decision record seals (migration 030).
        terms: TERMS,
      };
      const mac = recordMac(key, record);
      const hash = chainHash(key, prev, i, mac);
      cols.aid!.push(record.id);
      cols.seq!.push(i);
      cols.prev!.push(prev);
      cols.hash!.push(hash);
      cols.mac!.push(mac);
      prev = hash;
    }
    await client.query(
      `INSERT INTO decisions (id, account_id, livemode, agent_id, policy_id, amount, currency, vendor, category, decision, original_decision, status, reason_code, spend_month, spend_day, created_at, updated_at)
       SELECT d.id, $1, ${LIVE}, $2, 'pol_benchaudit', d.amount, 'USD', 'shop.example', 'saas', d.outcome, d.outcome, d.outcome,
              CASE WHEN d.outcome = 'denied' THEN 'policy_denied' END, 'M:2026-01', 'D:2026-01-01', d.created_at, d.created_at
       FROM unnest($3::text[], $4::bigint[], $5::timestamptz[], $6::text[]) AS d(id, amount, created_at, outcome)`,
      [ACCOUNT, AGENT, decisions, cols.amount!.slice(0, decisions.length), cols.created, cols.outcome],
    );
    const n = cols.aid!.length;
    if (n > 0) {
      await client.query(
        `INSERT INTO audit_records (id, account_id, livemode, sequence, type, actor_type, actor_id, agent_id, decision_id, decision, amount, currency, vendor, category, policy_id, reason, metadata, created_at, prev_hash, hash, mac, terms)
         SELECT r.id, $1, ${LIVE}, r.seq, 'authorization.decision', 'api_key', 'key_bench', $2, r.did, r.outcome, r.amount, 'USD', 'shop.example', 'saas', 'pol_benchaudit',
                CASE WHEN r.outcome = 'denied' THEN 'policy_denied' END, jsonb_build_object('order', 'o-' || r.seq), r.created_at, r.prev, r.hash, r.mac, $12::jsonb
         FROM unnest($3::text[], $4::bigint[], $5::text[], $6::bigint[], $7::timestamptz[], $8::text[], $9::text[], $10::text[], $11::text[])
           AS r(id, seq, did, amount, created_at, prev, hash, mac, outcome)`,
        [ACCOUNT, AGENT, cols.aid, cols.seq, decisions.slice(0, n), cols.amount!.slice(0, n), cols.created!.slice(0, n), cols.prev, cols.hash, cols.mac, cols.outcome!.slice(0, n), JSON.stringify(TERMS)],
      );
    }
    if ((from - 1) % 100_000 === 0) process.stdout.write(`  ${from - 1} records written (${Math.round(ms(t0) / 1000)} s)\n`);
  }
  const head = { account_id: ACCOUNT, livemode: LIVE, sequence: N, head_hash: prev };
  await client.query(`INSERT INTO audit_chains (account_id, livemode, sequence, head_hash, head_mac) VALUES ($1, ${LIVE}, $2, $3, $4)`, [ACCOUNT, N, prev, headMac(key, head)]);
  // Every live decision is one billable check, counted in its month.
  if (LIVE) await client.query(`INSERT INTO usage_counters (account_id, month, shard, checks) VALUES ($1, '2026-01', 0, $2)`, [ACCOUNT, N]);
  await client.query(`INSERT INTO agent_spend (agent_id, period, approved, reserved) VALUES ($1, 'M:2026-01', $2, 0), ($1, 'D:2026-01-01', $2, 0)`, [AGENT, approvedSum]);
  await client.query('VACUUM ANALYZE decisions');
  await client.query('VACUUM ANALYZE audit_records');
  console.log(`generated ${N} records and ${N + MISSING} decisions in ${Math.round(ms(t0) / 1000)} s`);
}

async function main() {
  await requireAdmin(args['admin-url']!);
  const exists = (await admin(`SELECT 1 FROM pg_database WHERE datname = '${DB_NAME}'`)).rowCount === 1;
  const reuse = args.reuse && exists && fs.existsSync(KEY_FILE);
  const key = reuse ? Buffer.from(fs.readFileSync(KEY_FILE, 'utf8'), 'hex') : randomBytes(32);
  useAuditHmacKey(key);
  if (!reuse) {
    await admin(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
    await admin(`CREATE DATABASE ${DB_NAME}`);
    fs.writeFileSync(KEY_FILE, key.toString('hex'), { mode: 0o600 });
  }
  const database = await connectDatabase({ databaseUrl: url(DB_NAME), poolSize: 4 });
  try {
    await migrateToLatest(database.db);
    if (!reuse) {
      const client = new pg.Client({ connectionString: url(DB_NAME) });
      await client.connect();
      try {
        await generate(client, key);
      } finally {
        await client.end();
      }
    }
    const keys = await keysFromJwks([await generatePrivateJwk()]);
    const scope = { accountId: ACCOUNT, livemode: LIVE };
    const runs: Array<{ verify: Timing; chain: Timing; decisions_without_record: Timing; ledger: Timing }> = [];
    for (let run = 0; run < RUNS; run++) {
      const [v, verify] = await timed(() => verifyAuditLog({ db: database.db, keys }, scope));
      if (v.records !== N || v.decisions_without_record !== MISSING || v.ledger_mismatches !== 0 || v.valid) throw new Error(`unexpected answer: ${JSON.stringify({ ...v, checkpoint: undefined })}`);
      const [, chain] = await timed(() => verifyAuditChain(database.db, ACCOUNT, LIVE));
      const [missing, count] = await timed(() => database.db.transaction().setIsolationLevel('repeatable read').execute((trx) => countDecisionsWithoutRecord(trx, ACCOUNT, LIVE)));
      if (missing !== MISSING) throw new Error(`counted ${missing} decisions without a record, expected ${MISSING}`);
      const [ledgerCheck, ledger] = await timed(() => database.db.transaction().setIsolationLevel('repeatable read').execute((trx) => checkLedger(trx, ACCOUNT, LIVE)));
      if (ledgerCheck.mismatches !== 0) throw new Error(`the books do not balance: ${JSON.stringify(ledgerCheck.examples)}`);
      runs.push({ verify, chain, decisions_without_record: count, ledger });
      const line = (t: Timing) => `${t.wall_ms} ms (CPU: node ${t.node_cpu_ms} ms, PostgreSQL ${t.postgres_cpu_ms} ms)`;
      console.log(`run ${run + 1}: verify ${line(verify)}; chain recompute alone ${line(chain)}; decisions without a record alone ${line(count)}; ledger check alone ${line(ledger)}`);
    }
    // The same count as one statement (a NOT EXISTS over every decision at once), for comparison.
    const client = new pg.Client({ connectionString: url(DB_NAME) });
    await client.connect();
    const [single, singleTiming] = await timed(() => client.query(
      `SELECT count(*)::int AS n FROM decisions d WHERE d.account_id = $1 AND d.livemode = ${LIVE} AND NOT EXISTS (
         SELECT 1 FROM audit_records r WHERE r.account_id = $1 AND r.livemode = ${LIVE} AND r.type = 'authorization.decision' AND r.decision_id = d.id)`,
      [ACCOUNT],
    ));
    const page = await client.query(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT TEXT) WITH page AS MATERIALIZED (SELECT id, created_at FROM decisions WHERE account_id = $1 AND livemode = ${LIVE} ORDER BY created_at DESC, id DESC LIMIT 10000)
       SELECT count(*) FROM page p WHERE NOT EXISTS (SELECT 1 FROM audit_records r WHERE r.account_id = $1 AND r.livemode = ${LIVE} AND r.type = 'authorization.decision' AND r.decision_id = p.id)`,
      [ACCOUNT],
    );
    await client.end();
    if (single.rows[0].n !== MISSING) throw new Error(`the single statement counted ${single.rows[0].n}`);
    const stamp = new Date().toISOString();
    const result = {
      date: stamp,
      machine: { cpus: os.cpus().length, node: process.version, load_average: os.loadavg().map((l) => Math.round(l * 10) / 10) },
      records: N,
      decisions: N + MISSING,
      livemode: LIVE,
      runs,
      single_statement_count: singleTiming,
      keyset_page_plan: page.rows.map((r: Record<string, string>) => r['QUERY PLAN']),
    };
    const file = path.join(ROOT, `bench/results/${stamp.slice(0, 10)}-audit-verify-${N}${LIVE ? '-live' : ''}.json`);
    fs.writeFileSync(fs.existsSync(file) ? file.replace(/\.json$/, `-${stamp.slice(11, 16).replace(':', '')}.json`) : file, `${JSON.stringify(result, null, 2)}\n`);
    console.log(`single-statement count: ${singleTiming.wall_ms} ms (PostgreSQL CPU ${singleTiming.postgres_cpu_ms} ms); written to bench/results/`);
  } finally {
    await database.close();
  }
}

await main();
