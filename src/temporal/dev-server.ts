/**
 * The Temporal CLI's dev server (`temporal server start-dev`) as a child process: what `npm start`
 * runs when no TEMPORAL_ADDRESS is given and a CLI binary is at hand, and what the server tests
 * run. Nothing is ever downloaded: the binary comes from TEMPORAL_CLI_PATH, from `temporal` on
 * PATH, or from the cache scripts/temporal-cli.sh builds into.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { ALL_SEARCH_ATTRIBUTE_KEYS } from './search-attributes.js';

export const DEV_SERVER_START_TIMEOUT_MS = 60_000;
export const DEV_SERVER_STOP_GRACE_MS = 10_000;
/** The release scripts/temporal-cli.sh builds, and the cache folder it builds into. */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';

export interface DevServerOptions {
  cliPath: string;
  /** Serve the Web UI on this port (0: a free one); omitted: headless. */
  uiPort?: number;
  /** SQLite file: the server keeps its state across a restart. Omitted: in memory. */
  dbFile?: string;
  namespace?: string;
  /** gRPC port; default a free one. */
  port?: number;
  ip?: string;
  /** Register the service's search attributes at start (default true). */
  searchAttributes?: boolean;
}

export interface DevServer {
  address: string;
  port: number;
  /** The Web UI's base URL, when started with one. */
  uiUrl?: string;
  namespace: string;
  /** Stops it gracefully (SIGTERM, then SIGKILL after the grace period). */
  stop(): Promise<void>;
  /** Starts it again on the same ports and database file. */
  restart(): Promise<void>;
}

const isExecutableFile = (p: string): boolean => {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
};

/**
 * Where a local Temporal CLI is: the configured path, `temporal` on the search path, or the
 * build cache of scripts/temporal-cli.sh. Undefined when there is none (never downloads one).
 */
export function findTemporalCli(opts: { configured?: string | undefined; searchPath?: string | undefined; home?: string }): string | undefined {
  if (opts.configured) return isExecutableFile(opts.configured) ? opts.configured : undefined;
  for (const dir of (opts.searchPath ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, 'temporal');
    if (isExecutableFile(candidate)) return candidate;
  }
  const cached = path.join(opts.home ?? os.homedir(), '.cache', 'spend-auth', 'temporal-cli', TEMPORAL_CLI_VERSION, 'temporal');
  return isExecutableFile(cached) ? cached : undefined;
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
    '--log-level', 'error',
    ...(uiPort === undefined ? ['--headless'] : ['--ui-port', String(uiPort)]),
    ...(opts.dbFile ? ['--db-filename', opts.dbFile] : []),
    ...(opts.searchAttributes === false ? [] : ALL_SEARCH_ATTRIBUTE_KEYS.flatMap((k) => ['--search-attribute', `${k.name}=${SA_TYPE[k.type]}`])),
    // A search attribute registered at start is visible to the very next query.
    '--dynamic-config-value', 'system.forceSearchAttributesCacheRefreshOnRead=true',
  ];
  const address = `${ip}:${port}`;
  let child: ChildProcess | undefined;
  let log = '';

  const launch = async () => {
    log = '';
    const c = spawn(opts.cliPath, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: os.tmpdir() });
    child = c;
    const keep = (chunk: Buffer) => {
      log = (log + chunk.toString('utf8')).slice(-8_000);
    };
    c.stdout!.on('data', keep);
    c.stderr!.on('data', keep);
    await waitReady(address, namespace, c, () => log);
  };

  const stop = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
    c.kill('SIGTERM');
    const timer = setTimeout(() => c.kill('SIGKILL'), DEV_SERVER_STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  };

  await launch();
  return {
    address,
    port,
    namespace,
    ...(uiPort === undefined ? {} : { uiUrl: `http://${ip}:${uiPort}` }),
    stop,
    restart: async () => {
      await stop();
      await launch();
    },
  };
}
