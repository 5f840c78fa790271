/**
 * The dev server's ports (src/temporal/ports.ts): a port chosen or reserved here is released through
 * a TIME_WAIT, as the Temporal CLI releases the ports it picks, so the kernel gives it to no other
 * bind(0) while an explicit bind still succeeds; a held port is reported and waited for; the
 * server's output is read for a port conflict as the CLI 1.9.1 (Server 1.32.0) writes one; and a
 * launch that died of one is launched again, any other failure not.
 */
import fs from 'node:fs';
import net from 'node:net';
import { describe, expect, test } from 'vitest';
import { DevServerExitError } from '../../src/temporal/dev-server.js';
import { freePort, holdPort, portConflict, reservePort, retryPortConflicts, waitForPort, type PortConflict } from '../../src/temporal/ports.js';

const TCP_STATES: Record<string, string> = { '05': 'FIN_WAIT2', '06': 'TIME_WAIT' };

/** States of the 127.0.0.1 sockets whose local port is `port` (Linux's /proc/net/tcp). */
function socketStates(port: number): string[] {
  return fs
    .readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/))
    .filter(([, local]) => local === `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`)
    .map(([, , , state]) => TCP_STATES[state!] ?? state!);
}

const listen = (port: number) =>
  new Promise<net.Server>((resolve, reject) => {
    const server = net.createServer((socket) => socket.destroy());
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
const close = (server: net.Server) => new Promise((r) => server.close(r));

describe('choosing and reserving ports', () => {
  test.skipIf(!fs.existsSync('/proc/net/tcp'))('a chosen port is left with the listening side of a closed connection on it, not free for the next bind(0)', async () => {
    const port = await freePort();
    // The server side closed first: its half of the connection stays (FIN_WAIT2 until the client's FIN, then TIME_WAIT).
    expect(socketStates(port).some((s) => s === 'TIME_WAIT' || s === 'FIN_WAIT2')).toBe(true);
    expect(socketStates(port)).not.toContain('0A'); // no listener left
  });

  test('a chosen port can still be bound explicitly, by the dev server or anyone', async () => {
    const port = await freePort();
    const server = await listen(port);
    await close(server);
    expect(await reservePort(port)).toBe(port);
  });

  test('a held port is not reserved; waiting for it ends once it is let go, or says it is still held', async () => {
    const holder = await listen(0);
    const port = (holder.address() as net.AddressInfo).port;
    expect(await reservePort(port)).toBeUndefined();
    expect(await waitForPort(port, '127.0.0.1', 0)).toBe(false);
    const waited = waitForPort(port);
    await close(holder);
    expect(await waited).toBe(true);
  });
});

// What the Temporal CLI 1.9.1 (Server 1.32.0) wrote when a port it needed was taken, trimmed.
const WORKER_LISTENER = [
  'time=2026-11-27T10:32:10.426 level=ERROR msg="Failed to start gRPC listener" error="listen tcp 127.0.0.1:46343: bind: address already in use" service=worker address=127.0.0.1:46343',
  'Temporal CLI 1.9.1 (Server 1.32.0, UI 2.54.1)',
  '',
  'Temporal Server:      localhost:35217',
  'panic: runtime error: invalid memory address or nil pointer dereference',
  '[signal SIGSEGV: segmentation violation code=0x1 addr=0x20 pc=0xa69a6c]',
  '',
  'goroutine 2839 [running]:',
  'google.golang.org/grpc.(*Server).Serve(0x2eac5a23c008, {0x0, 0x0})',
  '\t/home/runner/go/pkg/mod/google.golang.org/grpc@v1.83.2/server.go:913 +0x14c',
  'go.temporal.io/server/service/worker.(*Service).Start.func1()',
  '\t/home/runner/go/pkg/mod/go.temporal.io/server@v1.32.0/service/worker/service.go:281 +0x6b',
  'created by go.temporal.io/server/service/worker.(*Service).Start in goroutine 2455',
  '\t/home/runner/go/pkg/mod/go.temporal.io/server@v1.32.0/service/worker/service.go:279 +0x287',
].join('\n');
const FRONTEND_CHECK = "Error: can't set frontend port 45277: listen tcp 127.0.0.1:45277: bind: address already in use";
const HTTP_API =
  'time=2026-11-27T10:17:15.903 level=ERROR msg="error returned" component=fx name=go.temporal.io/server/service/frontend.HTTPAPIServerProvider() kind=provide module="" error="received non-nil error: failed listening for HTTP API on 127.0.0.1:39165: listen tcp 127.0.0.1:39165: bind: address already in use"';
const OTHER_PANIC = 'panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\nmain.main()';

describe("reading a port conflict in the server's output", () => {
  test.each([
    ["a service's gRPC listener, then its Start's panic", WORKER_LISTENER, 46343],
    ["the CLI's own check of the frontend port", FRONTEND_CHECK, 45277],
    ["the frontend's HTTP API", HTTP_API, 39165],
  ])('%s', (_name, output, port) => {
    expect(portConflict(output)).toMatchObject({ port });
  });

  test('any other failure is no port conflict', () => {
    expect(portConflict(OTHER_PANIC)).toBeUndefined();
    expect(portConflict('')).toBeUndefined();
  });

  test("an early exit's error names the conflict, though the stack is what the server wrote last", () => {
    const err = new DevServerExitError(2, WORKER_LISTENER);
    expect(err.message).toContain('exited (2) before it was ready');
    expect(err.message).toContain('Failed to start gRPC listener');
    expect(err.message).toContain('service.go:279');
  });
});

describe('launching again after a port conflict', () => {
  const conflictError = (port: number) => new DevServerExitError(2, `level=ERROR msg="Failed to start gRPC listener" error="listen tcp 127.0.0.1:${port}: bind: address already in use" service=worker`);
  const conflictOf = (err: unknown) => (err instanceof DevServerExitError ? portConflict(err.output) : undefined);

  test('a launch that died of a port conflict is launched again, after beforeRetry, until one succeeds', async () => {
    const failures = [conflictError(40001), conflictError(40003)];
    const seen: Array<[number | undefined, number]> = [];
    let launches = 0;
    const result = await retryPortConflicts(
      async (attempt) => {
        launches++;
        expect(attempt).toBe(launches);
        const failure = failures.shift();
        if (failure) throw failure;
        return 'up';
      },
      { attempts: 5, conflictOf, beforeRetry: (c: PortConflict, attempt) => void seen.push([c.port, attempt]) },
    );
    expect(result).toBe('up');
    expect(launches).toBe(3);
    expect(seen).toEqual([
      [40001, 1],
      [40003, 2],
    ]);
  });

  test('any other failure is thrown at once', async () => {
    let launches = 0;
    const other = new DevServerExitError(2, OTHER_PANIC);
    await expect(retryPortConflicts(async () => (launches++, Promise.reject(other)), { attempts: 5, conflictOf })).rejects.toBe(other);
    expect(launches).toBe(1);
  });

  test('after the last attempt the last conflict is thrown', async () => {
    let launches = 0;
    const errors: Error[] = [];
    const launch = async () => {
      launches++;
      const err = conflictError(40000 + launches);
      errors.push(err);
      throw err;
    };
    const thrown = await retryPortConflicts(launch, { attempts: 3, conflictOf }).catch((err: unknown) => err);
    expect(launches).toBe(3);
    expect(thrown).toBe(errors[2]);
  });
});

describe('a port held across a restart (holdPort)', () => {
  test('taken as soon as its server lets go, kept from others until released, then free for an explicit bind', async () => {
    const port = await freePort();
    const old = await listen(port);
    const held = holdPort(port, '127.0.0.1', 5_000);
    // The old server still listens: the hold waits for it.
    await new Promise((r) => setTimeout(r, 150));
    await new Promise<void>((resolve) => old.close(() => resolve()));
    // Within a few polls the hold has it: another process's bind now fails.
    await new Promise((r) => setTimeout(r, 200));
    await expect(listen(port)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    expect(await held.release()).toBe(true);
    const next = await listen(port);
    await new Promise<void>((resolve) => next.close(() => resolve()));
  });

  test("clients reconnecting to the stopped server's port while it is released do not hold the release", async () => {
    const port = await freePort();
    const held = holdPort(port, '127.0.0.1', 5_000);
    await new Promise((r) => setTimeout(r, 100));
    // A worker's gRPC channel reconnects without pause and keeps whatever connection it gets.
    const kept: net.Socket[] = [];
    let connecting = true;
    const reconnect = () => {
      if (!connecting) return;
      const socket = net.connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.on('close', () => setImmediate(reconnect));
      kept.push(socket);
    };
    for (let i = 0; i < 8; i++) reconnect();
    try {
      const released = await Promise.race([held.release(), new Promise((r) => setTimeout(() => r('release still pending after 5 s'), 5_000))]);
      expect(released).toBe(true);
    } finally {
      connecting = false;
      for (const socket of kept) socket.destroy();
    }
  });

  test('a port something else keeps: release reports it after waiting', async () => {
    const port = await freePort();
    const other = await listen(port);
    const held = holdPort(port, '127.0.0.1', 300);
    expect(await held.release()).toBe(false);
    await new Promise<void>((resolve) => other.close(() => resolve()));
  });
});
