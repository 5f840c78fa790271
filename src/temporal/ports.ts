/**
 * Ports for the dev server, and what to do when it could not bind one.
 *
 * A port found free by binding it and closing is just as free for everyone else's next bind(0):
 * Linux hands those out at random, so under a busy test run another process may be given it before
 * the dev server binds it. The Temporal CLI guards the ports it picks itself (its internal
 * devserver/freeport.go): a connection to the port is closed from the listening side first, and the
 * TIME_WAIT left on the port keeps the kernel from giving it to a bind(0) or a connect() for a
 * minute, while an explicit bind with SO_REUSEADDR (Go's and Node's listeners set it) still
 * succeeds. The ports chosen here get the same guard, and so does a fixed port before each launch:
 * after a server stops, its clients close their connections first, so nothing guards its port.
 *
 * Explicit binds are not held off by the guard: a process binding a port it chose some other way
 * can still take one, and the CLI then exits before it is ready (a gRPC service whose listener
 * failed panics in its Start, exit code 2). Such a start is tried again (`retryPortConflicts`).
 */
import net from 'node:net';

/** How long a launch waits for a fixed port that something else holds. */
export const PORT_WAIT_MS = 20_000;
const GUARD_TIMEOUT_MS = 2_000;

/**
 * Closes `server` after a connection to it was closed from its side first (see the module comment).
 * Every connection it accepts meanwhile is closed at once, ours and anyone else's (a client of the
 * stopped server reconnecting): `close()` waits for the connections it accepted, so one left open
 * would hold the close, and the launch behind it, for as long as that client keeps it.
 */
async function closeGuarded(server: net.Server, port: number, host: string): Promise<void> {
  server.on('connection', (socket) => socket.destroy());
  if (process.platform !== 'win32') {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, GUARD_TIMEOUT_MS);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      const client = net.connect(port, host);
      client.once('error', done);
      // Default allowHalfOpen: the client answers the server's FIN with its own and closes.
      client.once('close', done);
    });
  }
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** Binds `port` (0: any) and releases it guarded; undefined when something holds it. */
export async function reservePort(port: number, host = '127.0.0.1'): Promise<number | undefined> {
  const server = net.createServer();
  const bound = await new Promise<number | undefined>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolve(undefined) : reject(err)));
    server.listen(port, host, () => resolve((server.address() as net.AddressInfo).port));
  });
  if (bound !== undefined) await closeGuarded(server, bound, host);
  return bound;
}

/**
 * A port held by a listener of ours, from the moment it can be bound until `release()` closes it
 * guarded: a stopped server's port then cannot be taken by anyone while it is down. `release()`
 * waits for it to be held first, for at most `timeoutMs`; false when it never was (something else
 * holds it).
 */
export interface HeldPort {
  release(): Promise<boolean>;
}

export function holdPort(port: number, host = '127.0.0.1', timeoutMs = PORT_WAIT_MS): HeldPort {
  const deadline = Date.now() + timeoutMs;
  let released = false;
  const held = (async (): Promise<net.Server | undefined> => {
    for (;;) {
      const server = net.createServer((socket) => socket.destroy());
      const ok = await new Promise<boolean>((resolve) => {
        server.once('error', () => resolve(false));
        server.listen(port, host, () => resolve(true));
      });
      if (ok) return server;
      if (released || Date.now() >= deadline) return undefined;
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    async release() {
      released = true;
      const server = await held;
      if (!server) return waitForPort(port, host, Math.max(0, deadline - Date.now()));
      await closeGuarded(server, port, host);
      return true;
    },
  };
}

/** A port nothing listens on, guarded for the next minute against other processes' bind(0). */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const port = await reservePort(0, host);
  if (port === undefined) throw new Error(`no free port on ${host}`);
  return port;
}

/** The port if it is free on `host` (then guarded), else a free one. */
export async function preferredPort(port: number, host = '127.0.0.1'): Promise<number> {
  return (await reservePort(port, host)) ?? freePort(host);
}

/** Waits until `port` can be bound, and guards it; false when it was still held after `timeoutMs`. */
export async function waitForPort(port: number, host = '127.0.0.1', timeoutMs = PORT_WAIT_MS): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if ((await reservePort(port, host)) !== undefined) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 250));
  }
}

export interface PortConflict {
  /** The port that could not be bound, when the line names it. */
  port?: number;
  /** The server's line that says so. */
  line: string;
}

/**
 * The port conflict in a dev server's output, if it died of one: the CLI's own check ("can't set
 * frontend port …"), a service's listener ("Failed to start gRPC listener", then a panic in the
 * service's Start), the HTTP API's or the UI's listener: all say `bind: address already in use`.
 */
export function portConflict(output: string): PortConflict | undefined {
  const line = output.split('\n').find((l) => /address already in use/i.test(l));
  if (!line) return undefined;
  const port = /:(\d+): bind: address already in use/i.exec(line)?.[1];
  return { line: line.trim().slice(0, 400), ...(port ? { port: Number(port) } : {}) };
}

/**
 * Runs `launch` until it succeeds. A failure `conflictOf` recognizes as a port conflict is tried
 * again after `beforeRetry`, up to `attempts` launches in all; any other failure, or the last one,
 * is thrown.
 */
export async function retryPortConflicts<T>(
  launch: (attempt: number) => Promise<T>,
  opts: { attempts: number; conflictOf: (err: unknown) => PortConflict | undefined; beforeRetry?: (conflict: PortConflict, attempt: number) => Promise<void> | void },
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch(attempt);
    } catch (err) {
      const conflict = opts.conflictOf(err);
      if (!conflict || attempt >= opts.attempts) throw err;
      await opts.beforeRetry?.(conflict, attempt);
    }
  }
}
