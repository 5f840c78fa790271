import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/kernel/logger.js';
import { EngineMonitor, engineFailureReason, engineProbe, tcpReachable } from '../../src/temporal/engine-status.js';

function capture() {
  const lines: Array<{ level: number; msg: string; reason?: string; address?: string }> = [];
  return { lines, log: createLogger('info', 'spend-auth', { write: (l: string) => void lines.push(JSON.parse(l)) }) };
}

const TONIC =
  'tonic::transport::Error(Transport, ConnectError(ConnectError("tcp connect error", 127.0.0.1:7299, Os { code: 111, kind: ConnectionRefused, message: "Connection refused" })))';

describe('engineFailureReason', () => {
  it.each([
    [TONIC, 'connection refused'],
    ['workflow engine at 127.0.0.1:1 is unreachable: Failed to connect before the deadline', 'no answer in time'],
    ['getaddrinfo ENOTFOUND temporal', 'host name not found'],
  ])('%s → %s', (message, reason) => {
    expect(engineFailureReason(new Error(message))).toBe(reason);
  });

  it('keeps an unknown cause to its first line, without URLs, at most 120 characters', () => {
    const reason = engineFailureReason(new Error(`could not fetch https://temporal.download/cli/archive/v1.5.1?platform=linux&arch=amd64&${'x'.repeat(200)} for the dev server\nsecond line`));
    expect(reason).not.toMatch(/https?:|second line|\n/);
    expect(reason.length).toBeLessThanOrEqual(120);
    expect(reason).toMatch(/^could not fetch …/);
  });
});

describe('EngineMonitor', () => {
  it('logs each change of state once, in one line with a short reason, whoever reports it', () => {
    const { lines, log } = capture();
    const monitor = new EngineMonitor({ address: '127.0.0.1:7299', probe: async () => {}, log });
    for (const state of ['down', 'down', 'down', 'up', 'up', 'down', 'down'] as const) monitor.report(state, new Error(TONIC));
    expect(lines.map((l) => [l.level, l.msg, l.reason ?? null])).toEqual([
      [40, 'workflow engine unreachable: held requests stay pending until it answers (authorize keeps working; retrying in the background)', 'connection refused'],
      [30, 'workflow engine reachable again', null],
      [40, 'workflow engine unreachable: held requests stay pending until it answers (authorize keeps working; retrying in the background)', 'connection refused'],
    ]);
    expect(lines.every((l) => l.address === '127.0.0.1:7299')).toBe(true);
  });

  it('answers the last known state at once and refreshes it in the background', async () => {
    let release!: () => void;
    let probes = 0;
    const monitor = new EngineMonitor({
      address: 'x:1',
      intervalMs: 0,
      probe: () => {
        probes += 1;
        return new Promise<void>((_, reject) => (release = () => reject(new Error('refused'))));
      },
    });
    // The probe has not settled (release() is not called yet): current() answering at all shows it did not wait.
    expect(await monitor.current()).toBe('unknown');
    release();
    await new Promise((r) => setTimeout(r, 0));
    // The probe in flight answered: known now; the next call starts another probe without waiting for it.
    expect(await monitor.current()).toBe('down');
    expect(probes).toBe(2);
  });
});

describe('engine probe', () => {
  it('names a refused port at once, without a client connection attempt', async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const { port } = server.address() as net.AddressInfo;
    await new Promise<void>((r) => server.close(() => r()));
    let asked = false;
    const started = performance.now();
    const err = await engineProbe(`127.0.0.1:${port}`, async () => ((asked = true), 'up'))().catch((e: unknown) => e);
    expect(engineFailureReason(err)).toBe('connection refused');
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(asked).toBe(false);
  });

  it('asks the engine once the port accepts connections', async () => {
    const server = net.createServer((s) => s.destroy());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const { port } = server.address() as net.AddressInfo;
    try {
      await tcpReachable(`127.0.0.1:${port}`);
      await expect(engineProbe(`127.0.0.1:${port}`, async () => 'down')()).rejects.toThrow(/not as a Temporal server/);
      await expect(engineProbe(`127.0.0.1:${port}`, async () => 'up')()).resolves.toBeUndefined();
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
