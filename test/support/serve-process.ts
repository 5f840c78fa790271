import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generatePrivateJwk } from '../../src/tokens/signing-keys.js';
import { TEST_SERVER_KEYS_ENV } from './server-keys.js';

/** `spend-auth serve` as a real process, for tests that kill or starve it. */
export interface ServeProcess {
  child: ChildProcess;
  base: string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

let signingKey: string | undefined;

/** `extraEnv` is laid over the process's environment last (e.g. a failpoint or a batch setting). */
export async function startServe(databaseUrl: string, port: number, extraEnv: Record<string, string> = {}): Promise<ServeProcess> {
  // One key for every process a test starts, so tokens stay verifiable across restarts.
  signingKey ??= JSON.stringify(await generatePrivateJwk());
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spend-auth-serve-'));
  const child = spawn(process.execPath, ['bin/spend-auth.js', 'serve'], {
    cwd: path.resolve(import.meta.dirname, '../..'),
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'error',
      TOKEN_SIGNING_KEY: signingKey,
      ...TEST_SERVER_KEYS_ENV,
      TEMPORAL_ADDRESS: '127.0.0.1:1',
      ...extraEnv,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString()).slice(-4_000);
  });
  child.once('exit', (code, signal) => {
    if (code && code !== 0) console.error(`[serve] exited with ${code} (${signal ?? ''}):\n${stderr}`);
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error('serve did not start');
    await new Promise((r) => setTimeout(r, 150));
  }
  return {
    child,
    base,
    stop: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      }),
  };
}

/**
 * A random port below Linux's ephemeral range (32768 and up; macOS's starts at 49152), bound
 * explicitly by the spawned process: never one that the kernel gave another process's bind(0), such
 * as a port a Temporal dev server chose and has yet to bind (src/temporal/ports.ts).
 */
export const freePort = () => 20_000 + Math.floor(Math.random() * 12_000);

/** Any `spend-auth` command as a process of its own, with the server keys of the test process; stderr kept for messages. */
export interface SpawnedCommand {
  child: ChildProcess;
  stderr(): string;
  exited: Promise<number | null>;
}

export function spawnSpendAuth(command: string, env: Record<string, string>): SpawnedCommand {
  const child = spawn(process.execPath, ['bin/spend-auth.js', command], {
    cwd: path.resolve(import.meta.dirname, '../..'),
    env: { ...process.env, LOG_LEVEL: 'error', ...TEST_SERVER_KEYS_ENV, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString()).slice(-8_000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stderr: () => stderr, exited };
}
