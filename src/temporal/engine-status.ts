import net from 'node:net';
import type { Logger } from '../kernel/logger.js';

export type EngineState = 'up' | 'down' | 'unknown';

/** A probe of the engine gives up after this; readyz never waits for it (see EngineMonitor.current). */
export const ENGINE_PROBE_TIMEOUT_MS = 2_000;
/** How often a running process looks at the engine on its own, and how old a state readyz may show. */
export const ENGINE_PROBE_INTERVAL_MS = 10_000;
/** readyz waits at most this long for a first probe before it answers `unknown`. */
export const ENGINE_FIRST_PROBE_WAIT_MS = 100;
const MAX_REASON_LENGTH = 120;

/**
 * Why the engine could not be used, in a few words: a transport error of the SDK is a multi-line
 * dump with nested structs and download URLs, never something to log as is.
 */
export function engineFailureReason(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  if (/ConnectionRefused|ECONNREFUSED|connection refused/i.test(text)) return 'connection refused';
  if (/ENOTFOUND|EAI_AGAIN|dns error|failed to lookup|Name or service not known|nodename nor servname/i.test(text)) return 'host name not found';
  if (/EHOSTUNREACH|ENETUNREACH|No route to host|Network is unreachable/i.test(text)) return 'no route to the host';
  if (/before the deadline|deadline exceeded|DEADLINE_EXCEEDED|timed? ?out|ETIMEDOUT/i.test(text)) return 'no answer in time';
  const line = (text.split('\n')[0] ?? '').replace(/\bhttps?:\/\/\S+/g, '…').replace(/\s+/g, ' ').trim() || 'unknown error';
  return line.length > MAX_REASON_LENGTH ? `${line.slice(0, MAX_REASON_LENGTH - 1)}…` : line;
}

const CONNECTIVITY_REASONS = new Set(['connection refused', 'host name not found', 'no route to the host', 'no answer in time']);

/** The engine could not be reached at all (as opposed to refusing something once reached). */
export const isConnectivityFailure = (err: unknown) => CONNECTIVITY_REASONS.has(engineFailureReason(err));

/** Whether anything accepts a TCP connection at `host:port`: tells a refused port from a silent one at once. */
export function tcpReachable(address: string, timeoutMs = ENGINE_PROBE_TIMEOUT_MS): Promise<void> {
  const at = address.lastIndexOf(':');
  const host = address.slice(0, at).replace(/^\[|\]$/g, '') || 'localhost';
  const port = Number(address.slice(at + 1));
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    const done = (err?: Error) => {
      socket.destroy();
      if (err) reject(err);
      else resolve();
    };
    socket.setTimeout(timeoutMs, () => done(new Error(`timed out after ${timeoutMs} ms`)));
    socket.once('connect', () => done());
    socket.once('error', (err) => done(err));
  });
}

/**
 * The one place that knows, and logs, whether the workflow engine answers. Everything that talks to
 * the engine reports what it saw (the outbox relay, the worker supervisor, a periodic probe); a
 * change of state is logged once, in one line, with a short reason. `/readyz` reads the last known
 * state without waiting for the engine.
 */
export class EngineMonitor {
  private state: EngineState = 'unknown';
  private checkedAt = 0;
  private probing?: Promise<void>;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly opts: {
      address: string;
      /** Resolves when the engine answers, rejects with the cause when it does not. */
      probe: () => Promise<void>;
      log?: Logger;
      intervalMs?: number;
    },
  ) {}

  /** What a caller just saw the engine do; logs only a change. */
  report(state: 'up' | 'down', err?: unknown): void {
    // A probe answering during shutdown (the client already closed) says nothing about the engine.
    if (this.stopped) return;
    this.checkedAt = Date.now();
    if (state === this.state) return;
    const before = this.state;
    this.state = state;
    const log = this.opts.log;
    if (state === 'down') {
      log?.warn(
        { address: this.opts.address, reason: engineFailureReason(err) },
        'workflow engine unreachable: held requests stay pending until it answers (authorize keeps working; retrying in the background)',
      );
    } else {
      log?.info({ address: this.opts.address }, before === 'down' ? 'workflow engine reachable again' : 'workflow engine reachable');
    }
  }

  /** Probes now, unless a probe is already under way; never rejects. */
  refresh(): Promise<void> {
    this.probing ??= this.opts
      .probe()
      .then(
        () => this.report('up'),
        (err: unknown) => this.report('down', err),
      )
      .finally(() => {
        this.probing = undefined;
      });
    return this.probing;
  }

  /**
   * The last known state, at once. A state older than the probe interval is refreshed in the
   * background; before the first probe has answered this waits at most a moment, then says `unknown`.
   */
  async current(): Promise<EngineState> {
    const interval = this.opts.intervalMs ?? ENGINE_PROBE_INTERVAL_MS;
    if (Date.now() - this.checkedAt >= interval) void this.refresh();
    if (this.state === 'unknown' && this.probing) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.probing, new Promise((r) => (timer = setTimeout(r, ENGINE_FIRST_PROBE_WAIT_MS)))]);
      clearTimeout(timer);
    }
    return this.state;
  }

  /** Probes periodically so a change is logged even when nothing else talks to the engine. */
  start(): void {
    if (this.timer) return;
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.opts.intervalMs ?? ENGINE_PROBE_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

/**
 * A probe through the gateway's client, after a plain TCP connect so a refused or silent port is
 * named as such (the client only says it failed before its deadline).
 */
export function engineProbe(address: string, health: () => Promise<'up' | 'down'>): () => Promise<void> {
  return async () => {
    await tcpReachable(address);
    if ((await health()) !== 'up') throw new Error('the port answers, but not as a Temporal server within its deadline');
  };
}
