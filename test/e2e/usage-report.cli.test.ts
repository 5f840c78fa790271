/**
 * `spend-auth usage report --month YYYY-MM` as a process, against a real billing meter on
 * 127.0.0.1: PostgreSQL when DATABASE_URL is set (CI), else an embedded database in a temporary
 * DATA_DIR (the CLI and this file take turns opening it). Each scenario uses its own month, so on
 * a shared database the report of one never meets another's accounts.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../../src/db/connect.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'spend-auth.js');
const DATABASE_URL = process.env.DATABASE_URL || undefined;
const CLI_TIMEOUT = 90_000;

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, env, timeout: CLI_TIMEOUT - 5_000 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(Object.assign(error, { stdout, stderr }));
      resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
    });
  });
}

let dataDir: string;
const baseEnv = (overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of ['PORT', 'DATABASE_URL', 'DATA_DIR', 'LOG_LEVEL', 'NODE_ENV', 'TOKEN_SIGNING_KEY', 'BILLING_METER_URL', 'BILLING_METER_API_KEY']) delete env[key];
  Object.assign(env, { NODE_ENV: 'development', DATA_DIR: dataDir, ...(DATABASE_URL ? { DATABASE_URL } : {}) });
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
};

interface MeterRequest {
  headers: http.IncomingHttpHeaders;
  body: { account_id: string; month: string; quantity: number; idempotency_key: string };
}

const servers: http.Server[] = [];
/** A billing meter answering the scripted statuses in order, then 201. */
async function startMeter(script: number[] = []) {
  const requests: MeterRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.writeHead(script.shift() ?? 201, { 'content-type': 'application/json' }).end('{}');
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/meter`, requests };
}

/** Creates an account through the CLI and gives it live checks in past months (written as the counters hold them). */
async function accountWithUsage(args: string[], usage: Record<string, number>): Promise<any> {
  const res = await runCli(['accounts', 'create', '--name', 'Billed', ...args, '--json'], baseEnv());
  expect(res.stderr).toBe('');
  expect(res.code).toBe(0);
  const created = JSON.parse(res.stdout);
  const database = await connectDatabase(DATABASE_URL ? { databaseUrl: DATABASE_URL, poolSize: 1 } : { dataDir });
  try {
    await database.db
      .insertInto('usage_counters')
      .values(Object.entries(usage).map(([month, checks]) => ({ account_id: created.account.id, month, shard: 0, checks })))
      .execute();
  } finally {
    await database.close();
  }
  return created;
}

async function reportRows(accountId: string) {
  const database = await connectDatabase(DATABASE_URL ? { databaseUrl: DATABASE_URL, poolSize: 1 } : { dataDir });
  try {
    return await database.db.selectFrom('usage_reports').selectAll().where('account_id', '=', accountId).orderBy('month').execute();
  } finally {
    await database.close();
  }
}

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'spend-auth-usage-cli-'));
});
afterAll(async () => {
  for (const s of servers) s.close();
  await fs.rm(dataDir, { recursive: true, force: true });
});

describe.sequential('spend-auth usage report', () => {
  let created: any;

  it(
    'accounts create stores an enterprise account\'s own included checks and overage rate',
    async () => {
      created = await accountWithUsage(['--plan', 'enterprise', '--included-checks', '5000', '--overage-rate', '0.0005'], { '2025-06': 7_000, '2025-08': 10, '2025-09': 3 });
      expect(created.account).toMatchObject({ plan: 'enterprise', included_checks: 5000, overage_rate: '0.0005' });
    },
    CLI_TIMEOUT,
  );

  it(
    'reports a month to a meter that fails twice then accepts: one accepted report, one idempotency key; a re-run posts nothing',
    async () => {
      const meter = await startMeter([503, 502]);
      const env = baseEnv({ BILLING_METER_URL: meter.url, BILLING_METER_API_KEY: 'mtr_cli_key' });
      const first = await runCli(['usage', 'report', '--month', '2025-06'], env);
      expect(first.code).toBe(0);
      expect(first.stdout).toMatch(/^Usage report 2025-06: \d+ account\(s\) to report; \d+ accepted, 0 skipped, 0 failed\.$/m);

      const mine = meter.requests.filter((r) => r.body.account_id === created.account.id);
      const key = `${created.account.id}:2025-06`;
      expect(mine).toHaveLength(3);
      for (const r of mine) {
        expect(r.body).toEqual({ account_id: created.account.id, month: '2025-06', quantity: 7_000, idempotency_key: key });
        expect(r.headers['idempotency-key']).toBe(key);
        expect(r.headers.authorization).toBe('Bearer mtr_cli_key');
      }
      expect(await reportRows(created.account.id)).toEqual([
        expect.objectContaining({ month: '2025-06', status: 'accepted', quantity: 7_000, attempts: 3, last_status_code: 201, idempotency_key: key }),
      ]);

      const before = meter.requests.length;
      const again = await runCli(['usage', 'report', '--month', '2025-06', '--json'], env);
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toEqual({ month: '2025-06', accounts: 0, accepted: 0, skipped: 0, failed: [] });
      expect(meter.requests.length).toBe(before);
    },
    CLI_TIMEOUT,
  );

  it(
    'without BILLING_METER_URL records the report as skipped, with one log line on stderr, and exits 0',
    async () => {
      const res = await runCli(['usage', 'report', '--month', '2025-08', '--json'], baseEnv());
      expect(res.code).toBe(0);
      const summary = JSON.parse(res.stdout);
      expect(summary).toMatchObject({ month: '2025-08', failed: [] });
      expect(summary.skipped).toBeGreaterThanOrEqual(1);
      const lines = res.stderr.split('\n').filter((l) => l.includes(created.account.id));
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({ level: 40, msg: 'usage report skipped: BILLING_METER_URL is not set', account_id: created.account.id, month: '2025-08', quantity: 10 });
      expect((await reportRows(created.account.id)).find((r) => r.month === '2025-08')).toMatchObject({ status: 'skipped', attempts: 0 });
    },
    CLI_TIMEOUT,
  );

  it(
    'a meter that refuses (400) leaves the report failed and the command exits 1',
    async () => {
      const meter = await startMeter([400, 400, 400, 400, 400, 400]);
      const res = await runCli(['usage', 'report', '--month', '2025-09'], baseEnv({ BILLING_METER_URL: meter.url }));
      expect(res.code).toBe(1);
      expect(res.stdout).toContain(`${created.account.id}: billing meter answered HTTP 400 (refused; recorded as failed)`);
      // Refused for good: sent once, not retried.
      expect(meter.requests.filter((r) => r.body.account_id === created.account.id)).toHaveLength(1);
      expect((await reportRows(created.account.id)).find((r) => r.month === '2025-09')).toMatchObject({ status: 'failed', last_status_code: 400 });
    },
    CLI_TIMEOUT,
  );

  it.each([
    [['--month', '2025-13'], /--month must be a month as YYYY-MM/],
    [[], /--month must be a month as YYYY-MM/],
    [['--month', new Date().toISOString().slice(0, 7)], /has not ended/],
  ])('refuses %j with a message and exit code 2', async (args, message) => {
    const res = await runCli(['usage', 'report', ...args], baseEnv());
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(message);
  }, CLI_TIMEOUT);

  it.each([
    [['--plan', 'growth', '--included-checks', '10'], /included checks/],
    [['--plan', 'enterprise', '--overage-rate', '0.00005'], /--overage-rate must be a USD amount per check with at most 4 decimal places/],
    [['--plan', 'enterprise', '--included-checks', '1.5'], /--included-checks must be a non-negative integer/],
  ])('accounts create refuses %j', async (args, message) => {
    const res = await runCli(['accounts', 'create', '--name', 'X', ...args, '--json'], baseEnv());
    expect(res.code).not.toBe(0);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(message);
  }, CLI_TIMEOUT);
});
