/**
 * `npm start`'s own workflow engine: the Temporal CLI's dev server as a child it owns. Its state is
 * one SQLite file in DATA_DIR, its output goes to DATA_DIR/temporal.log (not into the service's
 * JSON stream), and DATA_DIR/temporal.pid names the running server and its owner, so the next start
 * finds a server left by a `kill -9` and stops it before starting its own: two servers on one state
 * file never happen. A server that dies is restarted with backoff; it stops with the service.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../kernel/logger.js';
import { startDevServer, type DevServer } from './dev-server.js';

export const DEV_SERVER_GRPC_PORT = 7233;
export const DEV_SERVER_UI_PORT = 8233;
export const RESTART_MIN_MS = 1_000;
export const RESTART_MAX_MS = 30_000;
/** A server that ran this long before it died is restarted at once again (the backoff starts over). */
export const RESTART_RESET_AFTER_MS = 60_000;
/** How long the start waits for the Web UI to answer before it says so and goes on. */
export const UI_WAIT_MS = 15_000;
/** Past this size the log is moved to temporal.log.1 at start. */
export const LOG_ROTATE_BYTES = 10 * 1024 * 1024;
const LEFTOVER_STOP_MS = 10_000;
/** How long a start waits for another process that is starting the server on the same state. */
const CLAIM_WAIT_MS = 90_000;

export const devServerFiles = (dataDir: string) => ({
  db: path.join(dataDir, 'temporal.sqlite'),
  log: path.join(dataDir, 'temporal.log'),
  pid: path.join(dataDir, 'temporal.pid'),
});

/** What DATA_DIR/temporal.pid holds. */
export interface DevServerRecord {
  /** The spend-auth process that owns the server. */
  owner: number;
  pid?: number;
  watchdog?: number;
  address?: string;
  ui?: string;
}

export interface SupervisedDevServer {
  address: string;
  uiUrl: string;
  /** Whether the UI answered within UI_WAIT_MS of the start. */
  uiAnswered: boolean;
  logFile: string;
  /** Owned by another live spend-auth process (used, not supervised, never stopped from here). */
  sharedWith?: number;
  stop(): Promise<void>;
}

export function isAlive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function readRecord(file: string): DevServerRecord | undefined {
  try {
    const r = JSON.parse(fs.readFileSync(file, 'utf8')) as DevServerRecord;
    return Number.isSafeInteger(r.owner) ? r : undefined;
  } catch {
    return undefined;
  }
}

/** Written whole (temporary file, then rename): a reader never sees half a record. */
function writeRecord(file: string, record: DevServerRecord): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(record)}\n`);
  fs.renameSync(tmp, file);
}

/** The command line of a process, to be sure a recorded pid is still the dev server of this state file. */
function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    try {
      return execFileSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' });
    } catch {
      return '';
    }
  }
}

async function stopLeftover(pid: number): Promise<void> {
  const signal = (sig: NodeJS.Signals) => {
    try {
      // Started in a process group of its own: stop all of it.
      process.kill(-pid, sig);
    } catch {
      try {
        process.kill(pid, sig);
      } catch {
        // already gone
      }
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + LEFTOVER_STOP_MS;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (isAlive(pid)) signal('SIGKILL');
}

/**
 * Claims the state: stops a server whose owner is gone, or reports the live owner. Creating the
 * pidfile exclusively is the claim, so two starts racing for one state file cannot both win.
 */
async function claim(files: ReturnType<typeof devServerFiles>, log: Logger): Promise<DevServerRecord | undefined> {
  const deadline = Date.now() + CLAIM_WAIT_MS;
  while (Date.now() < deadline) {
    const record = readRecord(files.pid);
    if (record && record.owner !== process.pid && isAlive(record.owner)) {
      if (record.address) return record;
      // Its owner is starting the server this moment: wait for the address.
      await new Promise((r) => setTimeout(r, 250));
      continue;
    }
    if (record?.pid && isAlive(record.pid) && commandLine(record.pid).includes(files.db)) {
      log.warn({ pid: record.pid, owner: record.owner, address: record.address }, 'stopping a Temporal dev server left by an earlier run whose process is gone');
      await stopLeftover(record.pid);
    }
    if (record) fs.rmSync(files.pid, { force: true });
    try {
      fs.writeFileSync(files.pid, `${JSON.stringify({ owner: process.pid } satisfies DevServerRecord)}\n`, { flag: 'wx' });
      return undefined;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      // Another start claimed it this instant: look again.
    }
  }
  throw new Error(`${files.pid} names a process that has been starting a dev server for ${CLAIM_WAIT_MS / 1000} s; stop it or remove the file`);
}

/** Whether the Web UI answers within `timeoutMs`. */
export async function waitForUi(url: string, timeoutMs = UI_WAIT_MS): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await res.body?.cancel();
      if (res.ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

/** Starts (or finds) the dev server on DATA_DIR's state and keeps it running until stop(). */
export async function superviseDevServer(opts: { cliPath: string; dataDir: string; namespace: string; log: Logger; devServerArgs?: readonly string[] }): Promise<SupervisedDevServer> {
  const { log } = opts;
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const files = devServerFiles(opts.dataDir);
  const owner = await claim(files, log);
  if (owner) {
    log.info({ owner: owner.owner, address: owner.address }, 'using the Temporal dev server another spend-auth process runs on this DATA_DIR');
    return { address: owner.address!, uiUrl: owner.ui ?? '', uiAnswered: owner.ui ? await waitForUi(owner.ui, 2_000) : false, logFile: files.log, sharedWith: owner.owner, stop: async () => {} };
  }
  try {
    if (fs.existsSync(files.log) && fs.statSync(files.log).size > LOG_ROTATE_BYTES) fs.renameSync(files.log, `${files.log}.1`);
  } catch {
    // rotation is a nicety
  }

  let stopped = false;
  let delay = RESTART_MIN_MS;
  let upSince = Date.now();
  let timer: NodeJS.Timeout | undefined;
  let server: DevServer;
  const record = () => writeRecord(files.pid, { owner: process.pid, pid: server.pid(), watchdog: server.watchdogPid(), address: server.address, ui: server.uiUrl });
  const restart = async () => {
    if (stopped) return;
    try {
      await server.restart();
      if (stopped) return void (await server.stop());
      upSince = Date.now();
      record();
      log.info({ address: server.address, pid: server.pid() }, 'Temporal dev server restarted');
    } catch (err) {
      delay = Math.min(RESTART_MAX_MS, delay * 2);
      log.warn({ reason: (err as Error).message.split('\n')[0], retry_ms: delay, log: files.log }, 'Temporal dev server did not restart; trying again');
      timer = setTimeout(() => void restart(), delay);
    }
  };

  try {
    server = await startDevServer({
      cliPath: opts.cliPath,
      namespace: opts.namespace,
      // The usual ports when free; either may change only until the first start succeeded.
      preferPort: DEV_SERVER_GRPC_PORT,
      preferUiPort: DEV_SERVER_UI_PORT,
      dbFile: files.db,
      ...(opts.devServerArgs ? { extraArgs: opts.devServerArgs } : {}),
      logFile: files.log,
      logLevel: 'warn',
      // A start or restart that died of a port another process took is launched again (src/temporal/ports.ts).
      onPortConflict: ({ port, line, attempt }) => log.warn({ port, attempt, reason: line, log: files.log }, 'Temporal dev server could not bind a port; starting it again'),
      onUnexpectedExit: ({ code, signal, output }) => {
        if (stopped) return;
        if (Date.now() - upSince > RESTART_RESET_AFTER_MS) delay = RESTART_MIN_MS;
        const last = output.trim().split('\n').pop()?.slice(0, 200);
        log.warn({ code, signal, restart_in_ms: delay, log: files.log, ...(last ? { last_line: last } : {}) }, 'Temporal dev server exited; restarting it');
        timer = setTimeout(() => void restart(), delay);
        delay = Math.min(RESTART_MAX_MS, delay * 2);
      },
    });
  } catch (err) {
    fs.rmSync(files.pid, { force: true });
    throw err;
  }
  record();
  const uiUrl = server.uiUrl!;
  log.info({ address: server.address, pid: server.pid(), log: files.log, state: files.db }, `Temporal dev server started; its own log is ${files.log}`);
  const uiAnswered = await waitForUi(uiUrl);
  if (!uiAnswered) {
    log.warn({ ui: uiUrl, log: files.log }, 'Temporal UI does not answer yet; it is shown once it does');
    void waitForUi(uiUrl, 10 * 60_000).then((ok) => ok && !stopped && log.info({ ui: uiUrl }, `Temporal UI: ${uiUrl}`));
  }
  return {
    address: server.address,
    uiUrl,
    uiAnswered,
    logFile: files.log,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await server.stop();
      if (readRecord(files.pid)?.owner === process.pid) fs.rmSync(files.pid, { force: true });
    },
  };
}
