/**
 * Another process binding a port a Temporal dev server chose and has yet to bind: the fault behind a
 * dev server that dies at start with "bind: address already in use" (src/temporal/ports.ts).
 *
 * The CLI picks its services' gRPC ports itself and binds them a moment later. Started with
 * `--log-config` and a log file, it prints its configuration (every service's port) in between: the
 * taker reads the log as it grows and binds the named service's port first, explicitly (SO_REUSEADDR,
 * as any Node or Go listener), which the CLI's own guard cannot keep off. Only that server's port is
 * taken, never one of another test's. It holds the port until released.
 */
import fs from 'node:fs';
import net from 'node:net';

export const LOG_CONFIG_ARGS = ['--log-config'] as const;

/** The gRPC port of `service` in the configuration the CLI printed (YAML: services → name → rpc → grpcPort). */
export function announcedPort(log: string, service: 'history' | 'matching' | 'worker'): number | undefined {
  const m = new RegExp(`\\n {4}${service}:\\n {8}rpc:\\n {12}grpcPort: (\\d+)\\n`).exec(log);
  return m ? Number(m[1]) : undefined;
}

export interface PortTaker {
  /** Watches the log from its current end and takes the service's port of the next launch. */
  arm(): void;
  /** The port taken since the last arm(): bound before the server bound it. */
  taken(): number | undefined;
  /** Stops watching and closes what it holds. */
  release(): Promise<void>;
}

export function portTaker(logFile: string, service: 'history' | 'matching' | 'worker' = 'worker'): PortTaker {
  let timer: NodeJS.Timeout | undefined;
  let held: net.Server | undefined;
  let taken: number | undefined;
  const stopWatching = () => {
    clearInterval(timer);
    timer = undefined;
  };
  return {
    arm() {
      stopWatching();
      taken = undefined;
      const from = fs.existsSync(logFile) ? fs.statSync(logFile).size : 0;
      let text = '';
      timer = setInterval(() => {
        const size = fs.existsSync(logFile) ? fs.statSync(logFile).size : 0;
        if (size <= from + text.length) return;
        const fd = fs.openSync(logFile, 'r');
        try {
          const buffer = Buffer.alloc(size - from - text.length);
          fs.readSync(fd, buffer, 0, buffer.length, from + text.length);
          text += buffer.toString('utf8');
        } finally {
          fs.closeSync(fd);
        }
        const port = announcedPort(text, service);
        if (port === undefined) return;
        stopWatching();
        const server = net.createServer();
        // The server bound it first: nothing taken this time.
        server.once('error', () => undefined);
        server.listen(port, '127.0.0.1', () => {
          held = server;
          taken = port;
        });
      }, 1);
    },
    taken: () => taken,
    async release() {
      stopWatching();
      const server = held;
      held = undefined;
      if (server) await new Promise((r) => server.close(r));
    },
  };
}
