/**
 * The test harness cleans up after itself: a vitest run killed with SIGKILL, or one that bails
 * (`--bail 1`) while another file holds a dev server it never tears down, leaves no dev server
 * behind. The server watches its test process and the run (test/support/dev-server.ts).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { isAlive } from '../../src/temporal/dev-supervisor.js';
import { WATCHDOG_GRACE_SECONDS } from '../../src/temporal/watchdog.js';
import { serverModeOrSkip } from '../support/temporal-server.js';
import { until } from '../support/wait.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const VITEST = path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const CONFIG = 'test/fixtures/harness/vitest.config.ts';
const mode = serverModeOrSkip('harness cleanup');
const cli = mode?.kind === 'dev-server' ? mode.path : undefined;
if (mode && !cli) console.log('[harness cleanup] skipped: needs TEMPORAL_CLI_PATH');
/** The watchdog looks every second, then gives the server its grace period; the rest is load. */
const GONE_WITHIN_MS = (WATCHDOG_GRACE_SECONDS + 10) * 1_000;

const leftovers: number[] = [];
afterEach(() => {
  for (const pid of leftovers.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
});

function run(extra: string[], env: Record<string, string>) {
  const pids = fs.mkdtempSync(path.join(os.tmpdir(), 'harness-'));
  const child = spawn(process.execPath, [VITEST, 'run', '--config', CONFIG, ...extra], {
    cwd: ROOT,
    env: { ...process.env, TEMPORAL_CLI_PATH: cli, HARNESS_PIDS_DIR: pids, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const held = () =>
    until('the fixture holds a dev server', async () => {
      const file = path.join(pids, 'server');
      if (!fs.existsSync(file)) return undefined;
      const [server, worker] = fs.readFileSync(file, 'utf8').split(' ').map(Number);
      leftovers.push(server!, worker!);
      return { server: server!, worker: worker! };
    }, 90_000, 100);
  return { child, exited, held, output: () => output, cleanup: () => fs.rmSync(pids, { recursive: true, force: true }) };
}

describe.skipIf(!cli)('dev servers die with the test run that started them', () => {
  test('the run killed with SIGKILL (its worker outlives it): the dev server is stopped', async () => {
    const r = run(['holds-dev-server'], {});
    try {
      const { server, worker } = await r.held();
      expect(isAlive(server)).toBe(true);
      r.child.kill('SIGKILL');
      await r.exited;
      await until('dev server stopped', async () => (isAlive(server) ? undefined : true), GONE_WITHIN_MS, 200);
      // What the harness cannot stop: the orphaned worker still sleeps in its test (killed in afterEach).
      expect(isAlive(worker)).toBe(true);
    } finally {
      r.cleanup();
    }
  }, 180_000);

  test('the run bails (--bail 1) while a file holds a dev server it never tears down: the dev server is stopped', async () => {
    const r = run(['--bail', '1'], { HARNESS_BAIL: '1' });
    try {
      const { server } = await r.held();
      expect(await r.exited, r.output()).toBe(1);
      expect(r.output()).toMatch(/Test Files .*1 failed/);
      await until('dev server stopped', async () => (isAlive(server) ? undefined : true), GONE_WITHIN_MS, 200);
    } finally {
      r.cleanup();
    }
  }, 180_000);
});
