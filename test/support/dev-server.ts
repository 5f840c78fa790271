/**
 * The Temporal CLI's dev server (`temporal server start-dev`) as a child process of a test: real
 * engine, SQLite persistence when a file is given (so it survives a restart), and the Web UI on
 * request. Built by scripts/temporal-cli.sh; never downloaded.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { ALL_SEARCH_ATTRIBUTE_KEYS } from '../../src/temporal/search-attributes.js';

export const DEV_SERVER_START_TIMEOUT_MS = 60_000;

export interface DevServerOptions {
  cliPath: string;
  /** Serve the Web UI on this port (0: a free one); omitted: headless. */
  uiPort?: number;
  /** SQLite file: the server keeps its state across a restart. Omitted: in memory. */
  dbFile?: string;
  namespace?: string;
  /** Fixed gRPC port (to restart on the same address); default a free one. */
  port?: number;
}

export interface DevServer {
  address: string;
  port: number;
  /** The Web UI's base URL, when started with one. */
  uiUrl?: string;
  namespace: string;
  /** Stops it gracefully (SIGTERM, then SIGKILL after 10 s). */
  stop(): Promise<void>;
  /** Starts it again on the same ports and database file, after stop(). */
  restart(): Promise<void>;
}

/** A port nothing listens on right now, on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const SA_TYPE: Record<string, string> = { KEYWORD: 'Keyword', INT: 'Int', BOOL: 'Bool' };

/** Waits until the frontend answers and the namespace exists. */
async function waitReady(address: string, namespace: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + DEV_SERVER_START_TIMEOUT_MS;
  let lastError = '';
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`temporal dev server exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${output()}`);
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
  throw new Error(`temporal dev server at ${address} not ready after ${DEV_SERVER_START_TIMEOUT_MS} ms (${lastError}):\n${output()}`);
}

export async function startDevServer(opts: DevServerOptions): Promise<DevServer> {
  const namespace = opts.namespace ?? 'default';
  const port = opts.port ?? (await freePort());
  const uiPort = opts.uiPort === undefined ? undefined : opts.uiPort || (await freePort());
  const args = [
    'server', 'start-dev',
    '--ip', '127.0.0.1',
    '--port', String(port),
    '--namespace', namespace,
    '--log-level', 'error',
    ...(uiPort === undefined ? ['--headless'] : ['--ui-port', String(uiPort)]),
    ...(opts.dbFile ? ['--db-filename', opts.dbFile] : []),
    ...ALL_SEARCH_ATTRIBUTE_KEYS.flatMap((k) => ['--search-attribute', `${k.name}=${SA_TYPE[k.type]}`]),
    // A new search attribute is visible to the very next query (no cache delay).
    '--dynamic-config-value', 'system.forceSearchAttributesCacheRefreshOnRead=true',
  ];
  const address = `127.0.0.1:${port}`;
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
    const timer = setTimeout(() => c.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };

  await launch();
  return {
    address,
    port,
    namespace,
    ...(uiPort === undefined ? {} : { uiUrl: `http://127.0.0.1:${uiPort}` }),
    stop,
    restart: async () => {
      await stop();
      await launch();
    },
  };
}

/** A fresh directory for a dev server's SQLite file. */
export function tempDbFile(prefix: string): { file: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  return { file: path.join(dir, 'temporal.db'), remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
