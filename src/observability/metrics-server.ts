import http from 'node:http';
import type { Logger } from '../kernel/logger.js';
import { closeServerNow, ListenError, listenErrorMessage } from '../kernel/listen.js';
import type { Metrics } from './metrics.js';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * The worker has no API, so it serves its own `GET /metrics` (webhook attempts happen there) and
 * `GET /healthz` (for container health checks) on METRICS_PORT.
 */
export async function startMetricsServer(metrics: Metrics, port: number, log: Logger, host = '0.0.0.0'): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
    } else if (path === '/metrics') {
      metrics.registry.metrics().then(
        (body) => res.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' }).end(body),
        (err: unknown) => {
          log.warn({ err }, 'metrics collection failed');
          res.writeHead(500).end();
        },
      );
    } else if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    } else {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"not_found","message":"Only /metrics and /healthz are served here."}}');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new ListenError(listenErrorMessage(err, port, host, 'METRICS_PORT'))));
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  log.info({ port: actual }, 'worker metrics listening');
  return {
    port: actual,
    close: () => closeServerNow(server),
  };
}
