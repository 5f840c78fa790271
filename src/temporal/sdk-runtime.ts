import { Runtime } from '@temporalio/worker';
import { ListenError } from '../kernel/listen.js';

/** `host:port` as the SDK's Prometheus exporter binds it (an IPv6 host in brackets). */
export function sdkMetricsBindAddress(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * Installs the Temporal SDK's Runtime with its Core metrics (pollers, slots, task latencies,
 * sticky cache) served in Prometheus format on `host:port`. The Runtime is created once per
 * process, on the first NativeConnection: this must run before the worker connects.
 */
export function installSdkRuntime(opts: { host: string; port: number }): void {
  const bindAddress = sdkMetricsBindAddress(opts.host, opts.port);
  try {
    Runtime.install({ telemetryOptions: { metrics: { prometheus: { bindAddress } } } });
  } catch (err) {
    // Core binds the port when the Runtime is created; its error names neither the port nor the setting.
    throw new ListenError(`cannot serve the Temporal SDK metrics on ${bindAddress} (${(err as Error).message.split('\n')[0]}): set TEMPORAL_SDK_METRICS_PORT to a free port`);
  }
}
