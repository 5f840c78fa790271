// Benchmark: what a workflow start costs `npm start`'s engine (the Temporal CLI's dev server,
// src/temporal/dev-server.ts), by how its SQLite state is kept: the file with SQLite's own journal
// (a sync per commit), the file as the service keeps it (SQLITE_FILE_PRAGMAS: WAL), and in memory.
// Held workflows are started `--concurrency` at a time with no worker polling (the start alone);
// the server's CPU comes from /proc.
//   TEMPORAL_CLI_PATH=… npx tsx bench/dev-server-starts.ts --starts 400 --label wal
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { SQLITE_FILE_PRAGMAS, startDevServer } from '../src/temporal/dev-server.js';
import { MACHINE, ROOT, saveResult } from './harness.js';
import { cpuTicks, TICK_MS } from './proc.js';

const { values: args } = parseArgs({
  options: {
    starts: { type: 'string', default: '400' },
    concurrency: { type: 'string', default: '8' },
    label: { type: 'string', default: 'run' },
  },
});
const STARTS = Number(args.starts);
const CONCURRENCY = Number(args.concurrency);
const cliPath = process.env.TEMPORAL_CLI_PATH;
if (!cliPath) throw new Error('TEMPORAL_CLI_PATH names the Temporal CLI');

const VARIANTS = [
  { name: 'file, SQLite journal (sync per commit)', file: true, pragmas: [] as readonly string[] },
  { name: `file, ${SQLITE_FILE_PRAGMAS.join(' ')} (as the service runs it)`, file: true, pragmas: SQLITE_FILE_PRAGMAS },
  { name: 'in memory', file: false, pragmas: [] as readonly string[] },
];

async function measureVariant(v: (typeof VARIANTS)[number]) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dev-server-starts-'));
  const server = await startDevServer({ cliPath: cliPath!, ...(v.file ? { dbFile: path.join(dir, 'temporal.sqlite'), sqlitePragmas: v.pragmas } : {}) });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  try {
    const pid = server.pid()!;
    const before = cpuTicks(pid)!;
    const t0 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let i = next++; i < STARTS; i = next++) {
          const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
          await client.workflow.start('heldAuthorization', { workflowId: `bench-${i}`, taskQueue: 'bench-nobody-polls', args: [{ decisionId: `dec_bench${i}`, expiresAt }] });
        }
      }),
    );
    const wallMs = performance.now() - t0;
    const after = cpuTicks(pid)!;
    const per = (ticks: number) => Number(((ticks * TICK_MS) / STARTS).toFixed(2));
    return {
      variant: v.name,
      starts: STARTS,
      starts_per_s: Math.round(STARTS / (wallMs / 1000)),
      server_cpu_ms_per_start: { user: per(after.user - before.user), sys: per(after.sys - before.sys), total: per(after.user - before.user + after.sys - before.sys) },
    };
  } finally {
    await connection.close();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const stamp = new Date().toISOString();
const loadAverage = os.loadavg().map((n) => Math.round(n * 10) / 10);
const rows = [];
for (const v of VARIANTS) {
  console.log(`${v.name}: ${STARTS} starts, ${CONCURRENCY} at a time`);
  rows.push(await measureVariant(v));
}
const file = saveResult(stamp, `dev-server-starts-${args.label}`, {
  date: stamp,
  label: args.label,
  command: `npx tsx bench/dev-server-starts.ts ${process.argv.slice(2).join(' ')}`.trim(),
  machine: MACHINE,
  concurrency: CONCURRENCY,
  load_average_before: loadAverage,
  rows,
});
console.log('\n| state | starts/s | server CPU ms per start (user + sys) |\n|---|---|---|');
for (const r of rows) console.log(`| ${r.variant} | ${r.starts_per_s} | ${r.server_cpu_ms_per_start.total} (${r.server_cpu_ms_per_start.user} + ${r.server_cpu_ms_per_start.sys}) |`);
console.log(`written to ${path.relative(ROOT, file)}`);
