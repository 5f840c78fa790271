/**
 * The Temporal CLI's dev server (`temporal server start-dev`) as a child process: what `npm start`
 * runs when no TEMPORAL_ADDRESS is given (src/temporal/dev-supervisor.ts), and what the server
 * tests run. The binary comes from src/temporal/cli-acquisition.ts. The server runs in a process
 * group of its own and dies with its owners (src/temporal/watchdog.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { Connection } from '@temporalio/client';
import { freePort, holdPort, portConflict, preferredPort, reservePort, retryPortConflicts, waitForPort, type HeldPort, type PortConflict } from './ports.js';
import { ALL_SEARCH_ATTRIBUTE_KEYS } from './search-attributes.js';
import { watchOwners } from './watchdog.js';

export { freePort, preferredPort } from './ports.js';

export const DEV_SERVER_START_TIMEOUT_MS = 60_000;
export const DEV_SERVER_STOP_GRACE_MS = 10_000;
/** Launches of one start or restart when the server dies of a port another process took (src/temporal/ports.ts). */
export const DEV_SERVER_START_ATTEMPTS = 5;
/** What is kept of the server's output when it has no log file, and read back of the log file after an early exit. */
const OUTPUT_KEEP_CHARS = 64_000;
/** What an early exit's error quotes of the server's output. */
const OUTPUT_QUOTE_LINES = 5;

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
  /** Without `port`: this gRPC port if it is free at the first start, else a free one. */
  preferPort?: number;
  /** Without `uiPort`: serve the Web UI on this port if it is free at the first start, else on a free one. */
  preferUiPort?: number;
  ip?: string;
  /** Register the service's search attributes at start (default true). */
  searchAttributes?: boolean;
  /** The server's own output is appended here; omitted: kept in memory (the last few KB, for errors). */
  logFile?: string;
  /** The server's log level (default `error`). */
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  /** The server is stopped when any of these processes dies (default: this process). */
  diesWith?: readonly number[];
  /** More arguments for `temporal server start-dev` (e.g. `--log-config`). */
  extraArgs?: readonly string[];
  /** Called when the server exits without stop() having asked it to. */
  onUnexpectedExit?: (exit: { code: number | null; signal: NodeJS.Signals | null; output: string }) => void;
  /** Called when a launch died of a port conflict and is tried again. */
  onPortConflict?: (conflict: PortConflict & { attempt: number }) => void;
}

/** The server exited before it answered; `output` is what it wrote since this launch. */
export class DevServerExitError extends Error {
  constructor(
    readonly code: number | string | null,
    readonly output: string,
  ) {
    const conflict = portConflict(output);
    const last = output.trim().split('\n').slice(-OUTPUT_QUOTE_LINES).join(' | ');
    super(`temporal dev server exited (${code}) before it was ready: ${conflict ? `${conflict.line} … ` : ''}${last}`);
  }
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
  /** What the server printed since its last launch (its log file's tail, else what it wrote to its pipes): for diagnostics. */
  recentOutput(): string;
  /** The last stops, launches and port holds, timed: where a slow start or restart spent its time. */
  timeline(): string[];
}

/** The last `chars` a file gained since `from`. */
function readTail(file: string, from: number, chars = OUTPUT_KEEP_CHARS): string {
  try {
    const size = fs.statSync(file).size;
    const start = Math.max(from, size - chars);
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

/**
 * The state file written ahead (WAL), synced at checkpoints rather than at every commit: SQLite's
 * default journal syncs each of the server's many small transactions, which made a workflow start
 * cost twice the CPU and a quarter of the throughput (bench/dev-server-starts.ts). A crash of the
 * server loses nothing; a crash of the machine may lose its last moments (a hold's workflow is
 * then started again by the reconciler).
 */
export const SQLITE_FILE_PRAGMAS = ['journal_mode=wal', 'synchronous=normal'] as const;

const SA_TYPE: Record<string, string> = { KEYWORD: 'Keyword', INT: 'Int', BOOL: 'Bool' };

/**
 * A server that logged one of these is bound to die: a gRPC service whose listener failed panics
 * once the service starts (grpc Serve on no listener), which may come after the frontend already
 * answers; the UI server panics likewise. Both lines are written before the frontend serves.
 */
const DOOMED = /Failed to start gRPC listener|failed running UI server/;

/** Entries kept in a server's timeline. */
const TIMELINE_KEEP = 60;

/** One readiness probe's deadline. */
const READY_PROBE_DEADLINE_MS = 5_000;

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/** Waits until the frontend answers and the namespace exists, and no service failed to bind its port. */
async function waitReady(address: string, namespace: string, child: ChildProcess, output: () => string, note: (event: string) => void = () => undefined): Promise<void> {
  const deadline = Date.now() + DEV_SERVER_START_TIMEOUT_MS;
  let lastError = '';
  const doomed = async () => {
    if (exited(child) || !DOOMED.test(output())) return false;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await gone;
    return true;
  };
  while (Date.now() < deadline) {
    if (exited(child)) throw new DevServerExitError(child.exitCode ?? child.signalCode, output());
    if (await doomed()) throw new DevServerExitError('SIGKILL: a service could not bind its port', output());
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        // A deadline per probe: a frontend that accepted the connection but does not answer yet must
        // not hold the whole wait on one call.
        await connection.withDeadline(Date.now() + READY_PROBE_DEADLINE_MS, () => connection.workflowService.describeNamespace({ namespace }));
      } finally {
        await connection.close();
      }
      if (await doomed()) throw new DevServerExitError('SIGKILL: a service could not bind its port', output());
      return;
    } catch (err) {
      if (err instanceof DevServerExitError) throw err;
      const message = (err as Error).message;
      // The first failed probe and each change of its error, not every 250 ms.
      if (message !== lastError) note(`probe failed: ${message.split('\n')[0]!.slice(0, 160)}`);
      lastError = message;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  child.kill('SIGKILL');
  const last = output().trim().split('\n').slice(-OUTPUT_QUOTE_LINES).join(' | ');
  throw new Error(`temporal dev server at ${address} not ready after ${DEV_SERVER_START_TIMEOUT_MS} ms (${lastError})${last ? `; its last lines: ${last}` : ''}`);
}

/**
 * Starts the dev server with the service's search attributes registered, and waits until it answers.
 * A launch that dies of a port conflict is tried again (src/temporal/ports.ts): on new ports of its
 * own choosing before the first start succeeded, else on the same ports once they are free.
 */
export async function startDevServer(opts: DevServerOptions): Promise<DevServer> {
  const namespace = opts.namespace ?? 'default';
  const ip = opts.ip ?? '127.0.0.1';
  // Ports chosen here may be chosen again until the first start succeeds; after it, clients hold the address.
  const choseFrontend = opts.port === undefined;
  const choseUi = opts.uiPort === 0 || (opts.uiPort === undefined && opts.preferUiPort !== undefined);
  let port = opts.port ?? (opts.preferPort === undefined ? await freePort(ip) : await preferredPort(opts.preferPort, ip));
  let uiPort = opts.uiPort || (choseUi ? await preferredPort(opts.preferUiPort ?? 0, ip) : undefined);
  if (choseUi && uiPort === port) uiPort = await freePort(ip);
  let started = false;
  const args = () => [
    'server', 'start-dev',
    '--ip', ip,
    '--port', String(port),
    '--namespace', namespace,
    ...(uiPort === undefined ? ['--headless'] : ['--ui-port', String(uiPort)]),
    ...(opts.dbFile ? ['--db-filename', opts.dbFile, ...(opts.sqlitePragmas ?? SQLITE_FILE_PRAGMAS).flatMap((p) => ['--sqlite-pragma', p])] : []),
    ...(opts.searchAttributes === false ? [] : ALL_SEARCH_ATTRIBUTE_KEYS.flatMap((k) => ['--search-attribute', `${k.name}=${SA_TYPE[k.type]}`])),
    // A search attribute registered at start is visible to the very next query.
    '--dynamic-config-value', 'system.forceSearchAttributesCacheRefreshOnRead=true',
    '--log-level', opts.logLevel ?? 'error',
    ...(opts.extraArgs ?? []),
  ];
  let child: ChildProcess | undefined;
  let watchdog: number | undefined;
  let memory = '';
  let logStart = 0;
  /** The server's recent output: from the log file since this launch, else from memory. */
  const output = () => (opts.logFile ? readTail(opts.logFile, logStart) : memory);
  const events: string[] = [];
  let since = Date.now();
  const note = (event: string) => {
    events.push(`+${((Date.now() - since) / 1000).toFixed(1)}s ${event}`);
    if (events.length > TIMELINE_KEEP) events.shift();
  };

  /**
   * The frontend and UI ports guarded before a launch (src/temporal/ports.ts). A restart first waits
   * for them: the old server is gone, but another process may have bound its port meanwhile. A port
   * chosen here and taken since is chosen again.
   */
  let heldPorts: HeldPort[] | undefined;
  const preparePorts = async () => {
    if (started) {
      const held = heldPorts;
      heldPorts = undefined;
      if (held) for (const [i, h] of held.entries()) note(`port ${[port, uiPort][i]} ${(await h.release()) ? 'released' : 'never held (another process has it)'}`);
      else for (const p of [port, uiPort]) if (p !== undefined) note(`port ${p} ${(await waitForPort(p, ip)) ? 'free' : 'still taken'}`);
      return;
    }
    if ((await reservePort(port, ip)) === undefined && choseFrontend) port = await freePort(ip);
    if (uiPort !== undefined && (await reservePort(uiPort, ip)) === undefined && choseUi) uiPort = await freePort(ip);
  };

  const launchOnce = async () => {
    await preparePorts();
    memory = '';
    let fd: number | undefined;
    if (opts.logFile) {
      fd = fs.openSync(opts.logFile, 'a');
      logStart = fs.fstatSync(fd).size;
    }
    // Its own process group: a Ctrl-C at the terminal reaches the owner, which stops the server in its turn.
    const c = spawn(opts.cliPath, args(), { stdio: ['ignore', fd ?? 'pipe', fd ?? 'pipe'], cwd: os.tmpdir(), detached: true });
    if (fd !== undefined) fs.closeSync(fd);
    child = c;
    note(`spawned pid ${c.pid}`);
    const keep = (chunk: Buffer) => {
      memory = (memory + chunk.toString('utf8')).slice(-OUTPUT_KEEP_CHARS);
    };
    c.stdout?.on('data', keep);
    c.stderr?.on('data', keep);
    if (c.pid !== undefined) watchdog = watchOwners(c.pid, opts.diesWith ?? [process.pid]);
    let ready = false;
    c.once('exit', (code, signal) => {
      note(`pid ${c.pid} exited (${signal ?? code})`);
      // Before it was ready, the failure is launch()'s to report.
      if (ready && child === c && !stopping) opts.onUnexpectedExit?.({ code, signal, output: output() });
    });
    await waitReady(`${ip}:${port}`, namespace, c, output, note);
    ready = true;
    note('ready');
  };

  let stopping = false;
  /** Counts stop() calls: a launch stopped on purpose is not tried again. */
  let stops = 0;
  const launch = async () => {
    const stopsBefore = stops;
    await retryPortConflicts(async (attempt) => {
      note(`launch ${attempt}`);
      try {
        return await launchOnce();
      } catch (err) {
        note(`launch ${attempt} failed: ${(err as Error).message.split('\n')[0]!.slice(0, 300)}`);
        throw err;
      }
    }, {
      attempts: DEV_SERVER_START_ATTEMPTS,
      conflictOf: (err) => (err instanceof DevServerExitError && stops === stopsBefore ? portConflict(err.output) : undefined),
      beforeRetry: async (conflict, attempt) => {
        note(`port conflict: ${conflict.line.slice(0, 200)}`);
        opts.onPortConflict?.({ ...conflict, attempt });
        // Another process holds a fixed port: wait for it. A port chosen here is chosen again by
        // preparePorts; any other port was one the CLI picks itself, anew at each launch.
        const fixed = (conflict.port === port && (started || !choseFrontend)) || (conflict.port === uiPort && (started || !choseUi));
        if (fixed) await waitForPort(conflict.port!, ip);
      },
    });
    started = true;
  };

  const stop = async () => {
    stops++;
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    stopping = true;
    try {
      const exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
      note(`SIGTERM to pid ${c.pid}`);
      c.kill('SIGTERM');
      const timer = setTimeout(() => {
        note(`SIGKILL to pid ${c.pid} (still running after ${DEV_SERVER_STOP_GRACE_MS} ms)`);
        c.kill('SIGKILL');
      }, DEV_SERVER_STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    } finally {
      stopping = false;
    }
  };

  await launch();
  return {
    address: `${ip}:${port}`,
    port,
    namespace,
    ...(uiPort === undefined ? {} : { uiUrl: `http://${ip}:${uiPort}` }),
    pid: () => (child && child.exitCode === null && child.signalCode === null ? child.pid : undefined),
    watchdogPid: () => watchdog,
    stop,
    restart: async () => {
      // The ports are held from the moment the old server lets go of them until the new one is
      // spawned: while it is down, no other process (another server's CLI picking ports) can take them.
      events.length = 0;
      since = Date.now();
      note('restart');
      const holding = [port, uiPort].filter((p): p is number => p !== undefined);
      const stopping = stop();
      heldPorts = holding.map((p) => holdPort(p, ip));
      await stopping;
      await launch();
    },
    recentOutput: output,
    timeline: () => [...events],
  };
}
