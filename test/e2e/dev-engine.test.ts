/**
 * `npm start` (`spend-auth dev`) owns its workflow engine, as real processes: killed with SIGKILL
 * while a hold waits, its dev server goes with it; a server left alive anyway (its watchdog killed
 * too) is found by the pidfile and replaced by the next start, one server on the state file
 * afterwards; a dev server killed under a running service is restarted; and the hold is approved.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { devServerFiles, isAlive, readRecord } from '../../src/temporal/dev-supervisor.js';
import { policyBody } from '../support/context.js';
import { freePort } from '../support/dev-server.js';
import { TEST_SERVER_KEYS_ENV } from '../support/server-keys.js';
import { serverModeOrSkip } from '../support/temporal-server.js';
import { until } from '../support/wait.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const mode = serverModeOrSkip('dev engine');
const cli = mode?.kind === 'dev-server' ? mode.path : undefined;
if (mode && !cli) console.log('[dev engine] skipped: needs TEMPORAL_CLI_PATH (dev runs the CLI itself)');

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dev-engine-'));
const files = devServerFiles(dataDir);
const started: ChildProcess[] = [];

/** The dev servers running on this state file, by their command lines. */
function devServersOnState(): number[] {
  return fs
    .readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((pid) => {
      try {
        const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        return cmd.includes('start-dev') && cmd.includes(files.db);
      } catch {
        return false;
      }
    })
    .map(Number);
}

const listening = (address: string) =>
  new Promise<boolean>((resolve) => {
    const [host, port] = address.split(':');
    const socket = net.connect({ host, port: Number(port) }, () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

interface Dev {
  child: ChildProcess;
  output(): string;
  base: string;
}

async function startDev(): Promise<Dev> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, ...TEST_SERVER_KEYS_ENV, DATA_DIR: dataDir, PORT: String(port), LOG_FORMAT: 'json', LOG_LEVEL: 'info', TEMPORAL_CLI_PATH: cli };
  delete env.DATABASE_URL;
  delete env.TEMPORAL_ADDRESS;
  const child = spawn(process.execPath, ['bin/spend-auth.js', 'dev'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  await until('dev prints its start-up block', async () => {
    if (child.exitCode !== null) throw new Error(`dev exited (${child.exitCode}):\n${out}`);
    return out.includes('Reviewer dashboard:') && out.includes('Temporal worker running') ? true : undefined;
  }, 120_000, 200);
  return { child, output: () => out, base: `http://127.0.0.1:${port}` };
}

const kill9 = async (child: ChildProcess) => {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
};

afterAll(async () => {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const pid of devServersOnState()) process.kill(pid, 'SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe.skipIf(!cli)('npm start owns its dev server', () => {
  let key: string;
  let holdId: string;

  const api = (base: string, method: string, p: string, body?: unknown) =>
    fetch(`${base}/v1${p}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) }).then(async (r) => ({ status: r.status, body: await r.json() }));

  test('killed with SIGKILL while a hold waits: its dev server goes with it', async () => {
    const dev = await startDev();
    key = /Admin test key \(shown once, keep it\): (gc_test_\w+)/.exec(dev.output())![1]!;
    expect(dev.output()).toMatch(/Temporal UI: {8}http:\/\/127\.0\.0\.1:\d+ \(held requests: ApprovalStatus="pending"\)/);
    expect(dev.output()).toContain(`its own log is ${files.log}`);
    const policy = await api(dev.base, 'POST', '/policies', policyBody({ require_approval_above: 1_000 }));
    const agent = await api(dev.base, 'POST', '/agents', { name: 'research-bot', policy_id: policy.body.id });
    const held = await api(dev.base, 'POST', '/authorize', { agent_id: agent.body.id, amount: 8_200, currency: 'USD', vendor: 'aws.amazon.com' });
    expect(held.body).toMatchObject({ status: 'pending' });
    holdId = held.body.decision_id;
    // The relay has started the hold's workflow: the outbox row is carried.
    await until('hold carried to the engine', async () => (dev.output().includes('workflow engine reachable') ? true : undefined));
    const record = readRecord(files.pid)!;
    expect(record).toMatchObject({ owner: dev.child.pid });
    expect(devServersOnState()).toEqual([record.pid]);

    await kill9(dev.child);
    await until('dev server gone with its owner', async () => (devServersOnState().length === 0 && !isAlive(record.watchdog) ? true : undefined), 20_000, 200);
  }, 240_000);

  test('a leftover server (owner and watchdog killed) is replaced by the next start: one server, the pidfile names it; the hold is approved', async () => {
    const second = await startDev();
    const before = readRecord(files.pid)!;
    expect(before.owner).toBe(second.child.pid);
    // Leave the server behind on purpose: its watchdog first, then its owner.
    process.kill(before.watchdog!, 'SIGKILL');
    await kill9(second.child);
    expect(devServersOnState()).toEqual([before.pid]);

    const third = await startDev();
    expect(third.output()).toContain('stopping a Temporal dev server left by an earlier run whose process is gone');
    const after = readRecord(files.pid)!;
    expect(after.owner).toBe(third.child.pid);
    expect(isAlive(before.pid)).toBe(false);
    expect(devServersOnState()).toEqual([after.pid]);
    expect(await listening(after.address!)).toBe(true);

    const approved = await until('hold approved', async () => {
      const r = await api(third.base, 'POST', `/approvals/${holdId}/approve`, { note: 'after the restart' });
      return r.status === 503 ? undefined : r;
    }, 60_000, 500);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved' });
    expect(approved.body.authorization_token).toMatch(/^gca_/);

    // The dev server killed under the running service: restarted, and a new hold is approved.
    third.child.stdout!.removeAllListeners('data');
    let log = '';
    third.child.stdout!.on('data', (c: Buffer) => (log += c.toString()));
    process.kill(after.pid!, 'SIGKILL');
    await until('dev server restarted', async () => (log.includes('Temporal dev server restarted') ? true : undefined), 60_000, 200);
    expect(log).toContain('Temporal dev server exited; restarting it');
    const restarted = readRecord(files.pid)!;
    expect(restarted.pid).not.toBe(after.pid);
    expect(devServersOnState()).toEqual([restarted.pid]);
    const agents = await api(third.base, 'GET', '/agents');
    const held = await api(third.base, 'POST', '/authorize', { agent_id: agents.body.data[0].id, amount: 4_400, currency: 'USD', vendor: 'aws.amazon.com' });
    const again = await until('new hold approved', async () => {
      const r = await api(third.base, 'POST', `/approvals/${held.body.decision_id}/approve`);
      return r.status === 503 ? undefined : r;
    }, 60_000, 500);
    expect(again.body).toMatchObject({ status: 'approved' });

    // Stopped with the service (SIGTERM): no server, no pidfile.
    const exited = new Promise<number | null>((r) => third.child.once('exit', r));
    third.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(devServersOnState()).toEqual([]);
    expect(fs.existsSync(files.pid)).toBe(false);
  }, 300_000);
});
