/**
 * The dev server for tests: src/temporal/dev-server.ts, dying with the run that started it. A test
 * file runs in a vitest worker process whose parent is the run itself; a worker outlives a run
 * killed with SIGKILL, and a bailed run may never reach a file's afterAll, so the server watches
 * both (src/temporal/watchdog.ts) and stops when either is gone.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDevServer as startOwnedDevServer, type DevServer, type DevServerOptions } from '../../src/temporal/dev-server.js';

export { freePort, type DevServer } from '../../src/temporal/dev-server.js';

/** This test process and the run that started it. */
export const RUN_PIDS: readonly number[] = [process.pid, process.ppid];

export function startDevServer(opts: DevServerOptions): Promise<DevServer> {
  return startOwnedDevServer({ diesWith: RUN_PIDS, ...opts });
}

/** A fresh directory for a dev server's SQLite file. */
export function tempDbFile(prefix: string): { file: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  return { file: path.join(dir, 'temporal.db'), remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
