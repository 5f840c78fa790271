/**
 * The Temporal CLI's dev server (`temporal server start-dev`) as a child process: what `npm start`
 * runs when no TEMPORAL_ADDRESS is given (src/temporal/dev-supervisor.ts), and what the server
 * tests run. The binary comes from src/temporal/cli-acquisition.ts. The server runs in a process
 * group of its own and dies with its owners (src/temporal/watchdog.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { Connection } from '@temporalio/client';
import { ALL_SEARCH_ATTRIBUTE_KEYS } from './search-attributes.js';
import { watchOwners } from './watchdog.js';

export const DEV_SERVER_START_TIMEOUT_MS = 60_000;
export const DEV_SERVER_STOP_GRACE_MS = 10_000;
/** What an early exit's error quotes of the server's output. */
const OUTPUT_TAIL_CHARS = 8_000;

export interface DevServerOptions {
  cliPath: string;
  /** Serve the Web UI on this port (0: a free one); omitted: headless. */
  uiPort?: number;
  /** SQLite file: the server keeps its state across a restart. Omitted: in memory. */
  dbFile?: string;
  /** The state file's pragmas (default SQLITE_FILE_PRAGMAS; [] leaves SQLite's own, for comparison). */
  sqlitePragmas?: readonly string[];
  namespace?: string;
  /** gRPC port; default a free one. */
  port?: number;
  ip?: string;
  /** Register the service's search attributes at start (default true). */
  searchAttributes?: boolean;
  /** The server's own output is appended here; omitted: kept in memory (the last few KB, for errors). */
  logFile?: string;
  /** The server's log level (default `error`). */
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  /** The server is stopped when any of these processes dies (default: this process). */
  diesWith?: readonly number[];
  /** Called when the server exits without stop() having asked it to. */
  onUnexpectedExit?: (exit: { code: number | null; signal: NodeJS.Signals | null; output: string }) => void;
}

export interface DevServer {
  address: string;
  port: number;
  /** The Web UI's base URL, when started with one. */
  uiUrl?: string;
  namespace: string;
  /** The running server's process id (undefined while stopped). */
  pid(): number | undefined;
  /** The pid of the watchdog that stops it if its owners die. */
  watchdogPid(): number | undefined;
  /** Stops it gracefully (SIGTERM, then SIGKILL after the grace period). */
  stop(): Promise<void>;
  /** Starts it again on the same ports and database file. */
  restart(): Promise<void>;
}

/** The last few KB a file gained since `from`. */
function readTail(file: string, from: number): string {
  try {
    const size = fs.statSync(file).size;
    const start = Math.max(from, size - OUTPUT_TAIL_CHARS);
    const fd = fs.openSync(file, 'r');
    try {
      const buffer = Buffer.alloc(Math.max(0, size - start));
      fs.readSync(fd, buffer, 0, buffer.length, start);
      return buffer.toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return '';
  }
}

/** A port nothing listens on right now. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The port if it is free on `host`, else a free one. */
export async function preferredPort(port: number, host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => void freePort(host).then(resolve));
    server.listen(port, host, () => server.close(() => resolve(port)));
  });
}

/**
 * The state file written ahead (WAL), synced at checkpoints rather than at every commit: SQLite's
 * default journal syncs each of the server's many small transactions, which made a workflow start
 * cost twice the CPU and a quarter of the throughput (bench/dev-server-starts.ts). A crash of the
 * server loses nothing; a crash of the machine may lose its last moments (a hold's workflow is
 * then started again by the reconciler).
 */
export const SQLITE_FILE_PRAGMAS = ['journal_mode=wal', 'synchronous=normal'] as const;

const SA_TYPE: Record<string, string> = { KEYWORD: 'Keyword', INT: 'Int', BOOL: 'Bool' };

/** Waits until the frontend answers and the namespace exists. */
async function waitReady(address: string, namespace: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + DEV_SERVER_START_TIMEOUT_MS;
  let lastError = '';
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`temporal dev server exited (${child.exitCode ?? child.signalCode}) before it was ready: ${output().trim().split('\n').slice(-5).join(' | ')}`);
    }
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.workflowService.describeNamespace({ namespace });
        return;
      } finally {
        await connection.close();
      }
    } catch (err) {
      lastError = (err as Error).message;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  child.kill('SIGKILL');
  throw new Error(`temporal dev server at ${address} not ready after ${DEV_SERVER_START_TIMEOUT_MS} ms (${lastError})`);
}

/** Starts the dev server with the service's search attributes registered, and waits until it answers. */
export async function startDevServer(opts: DevServerOptions): Promise<DevServer> {
  const namespace = opts.namespace ?? 'default';
  const ip = opts.ip ?? '127.0.0.1';
  const port = opts.port ?? (await freePort(ip));
  const uiPort = opts.uiPort === undefined ? undefined : opts.uiPort || (await freePort(ip));
  const args = [
    'server', 'start-dev',
    '--ip', ip,
    '--port', String(port),
    '--namespace', namespace,
    ...(uiPort === undefined ? ['--headless'] : ['--ui-port', String(uiPort)]),
    ...(opts.dbFile ? ['--db-filename', opts.dbFile, ...(opts.sqlitePragmas ?? SQLITE_FILE_PRAGMAS).flatMap((p) => ['--sqlite-pragma', p])] : []),
    ...(opts.searchAttributes === false ? [] : ALL_SEARCH_ATTRIBUTE_KEYS.flatMap((k) => ['--search-attribute', `${k.name}=${SA_TYPE[k.type]}`])),
    // A search attribute registered at start is visible to the very next query.
    '--dynamic-config-value', 'system.forceSearchAttributesCacheRefreshOnRead=true',
  ];
  const address = `${ip}:${port}`;
  let child: ChildProcess | undefined;
  let watchdog: number | undefined;
  let memory = '';
  let logStart = 0;
  /** The server's recent output: from the log file since this launch, else from memory. */
  const output = () => (opts.logFile ? readTail(opts.logFile, logStart) : memory);

  const launch = async () => {
    memory = '';
    let fd: number | undefined;
    if (opts.logFile) {
      fd = fs.openSync(opts.logFile, 'a');
      logStart = fs.fstatSync(fd).size;
    }
    // Its own process group: a Ctrl-C at the terminal reaches the owner, which stops the server in its turn.
    const c = spawn(opts.cliPath, [...args, '--log-level', opts.logLevel ?? 'error'], { stdio: ['ignore', fd ?? 'pipe', fd ?? 'pipe'], cwd: os.tmpdir(), detached: true });
    if (fd !== undefined) fs.closeSync(fd);
    child = c;
    const keep = (chunk: Buffer) => {
      memory = (memory + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
    };
    c.stdout?.on('data', keep);
    c.stderr?.on('data', keep);
    if (c.pid !== undefined) watchdog = watchOwners(c.pid, opts.diesWith ?? [process.pid]);
    let ready = false;
    c.once('exit', (code, signal) => {
      // Before it was ready, the failure is launch()'s to report.
      if (ready && child === c && !stopping) opts.onUnexpectedExit?.({ code, signal, output: output() });
    });
    await waitReady(address, namespace, c, output);
    ready = true;
  };

  let stopping = false;
  const stop = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    stopping = true;
    try {
      const exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
      c.kill('SIGTERM');
      const timer = setTimeout(() => c.kill('SIGKILL'), DEV_SERVER_STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    } finally {
      stopping = false;
    }
  };

  await launch();
  return {
    address,
    port,
    namespace,
    ...(uiPort === undefined ? {} : { uiUrl: `http://${ip}:${uiPort}` }),
    pid: () => (child && child.exitCode === null && child.signalCode === null ? child.pid : undefined),
    watchdogPid: () => watchdog,
    stop,
    restart: async () => {
      await stop();
      await launch();
    },
  };
}
