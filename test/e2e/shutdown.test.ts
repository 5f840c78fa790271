/**
 * Graceful shutdown of the real process: `node bin/spend-auth.js dev` on an empty embedded
 * DATA_DIR. On SIGTERM it stops accepting connections, lets an in-flight long poll finish with
 * 200, then closes the worker, the engine client and the database and exits 0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'spend-auth.js');
const TEST_TIMEOUT_MS = 150_000;
const START_TIMEOUT_MS = 90_000;
/** The in-flight request long-polls this long; the process must wait for it, not cut it. */
const IN_FLIGHT_WAIT_SECONDS = 3;
/** From SIGTERM to exit: the in-flight request plus closing everything, well under the 10 s grace. */
const EXIT_BOUND_MS = 9_000;
/** Once the last request is answered, closing the rest takes about a second. */
const PROMPT_EXIT_MS = 2_500;

const tempDirs: string[] = [];
afterAll(async () => {
  await Promise.all(tempDirs.map((dir) => fs.rm(dir, { recursive: true, force: true })));
});

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves with the connection error code, or 'connected'. */
function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('spend-auth dev on SIGTERM', () => {
  it(
    'refuses new connections, finishes the in-flight request with 200, and exits 0',
    async () => {
      const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'spend-auth-shutdown-'));
      tempDirs.push(dataDir);
      const port = await freePort();
      const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info', NODE_ENV: 'development' };
      delete env.DATABASE_URL;
      delete env.TOKEN_SIGNING_KEY;
      // An address nothing listens on: no attempt to download a local dev server; the worker keeps retrying.
      env.TEMPORAL_ADDRESS = '127.0.0.1:1';

      const child: ChildProcess = spawn(process.execPath, [BIN, 'dev'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
      child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      let exit: { code: number | null; signal: NodeJS.Signals | null; at: number } | undefined;
      const exited = new Promise<void>((resolve) =>
        child.once('exit', (code, signal) => {
          exit = { code, signal, at: Date.now() };
          resolve();
        }),
      );

      try {
        await waitFor(async () => {
          if (exit) throw new Error(`dev exited early:\n${stdout}\n${stderr}`);
          if (!stdout.includes('API listening')) return false;
          return fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
        }, START_TIMEOUT_MS, 'the API to listen');
        const key = /Admin test key \(shown once[^)]*\): (gc_test_[0-9A-Za-z]+)/.exec(stdout)?.[1];
        expect(key).toBeDefined();

        const api = (p: string, init: RequestInit = {}) =>
          fetch(`http://127.0.0.1:${port}/v1${p}`, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } });
        const policy = (await (await api('/policies', { method: 'POST', body: JSON.stringify({ name: 'p', budget_monthly: 100_000, budget_single_max: 10_000, require_approval_above: 1_000 }) })).json()) as { id: string };
        const agent = (await (await api('/agents', { method: 'POST', body: JSON.stringify({ name: 'a', policy_id: policy.id }) })).json()) as { id: string };
        const held = (await (await api('/authorize', { method: 'POST', body: JSON.stringify({ agent_id: agent.id, amount: 5_000, currency: 'USD', vendor: 'aws.amazon.com' }) })).json()) as { decision: string; decision_id: string };
        expect(held.decision).toBe('held');

        const started = Date.now();
        const inFlight = api(`/decisions/${held.decision_id}?wait=${IN_FLIGHT_WAIT_SECONDS}`).then(async (res) => ({ status: res.status, body: (await res.json()) as { status: string }, at: Date.now() }));
        // Let the long poll reach the server before the signal.
        await new Promise((r) => setTimeout(r, 500));
        const signalledAt = Date.now();
        child.kill('SIGTERM');

        await waitFor(() => stdout.includes('shutting down'), 5_000, 'the shutdown to begin');
        expect(await tryConnect(port)).toBe('ECONNREFUSED');

        const answer = await inFlight;
        expect(answer.status).toBe(200);
        expect(answer.body.status).toBe('pending');
        expect(answer.at).toBeGreaterThan(signalledAt);
        expect(answer.at - started).toBeGreaterThanOrEqual(IN_FLIGHT_WAIT_SECONDS * 1000 - 100);

        await Promise.race([exited, new Promise((r) => setTimeout(r, EXIT_BOUND_MS))]);
        expect(exit, `still running ${EXIT_BOUND_MS} ms after SIGTERM:\n${stdout}\n${stderr}`).toBeDefined();
        expect({ code: exit!.code, signal: exit!.signal }).toEqual({ code: 0, signal: null });
        expect(exit!.at - signalledAt).toBeLessThan(EXIT_BOUND_MS);
        // Not before the in-flight answer (the drain waited for it), and promptly after it (kept-alive
        // connections do not hold the drain open until their keep-alive timeout).
        expect(exit!.at).toBeGreaterThanOrEqual(answer.at - 50);
        expect(exit!.at - answer.at).toBeLessThan(PROMPT_EXIT_MS);
        expect(stdout).toContain('"msg":"shut down"');
        expect(stdout).not.toContain('restarting');
      } finally {
        if (!exit) {
          child.kill('SIGKILL');
          await exited;
        }
      }
    },
    TEST_TIMEOUT_MS,
  );
});
