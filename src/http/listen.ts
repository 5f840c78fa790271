import http, { type Server } from 'node:http';
import { ListenError, listenErrorMessage } from '../kernel/listen.js';

/**
 * Connections the kernel may complete before the process accepts them (capped by
 * net.core.somaxconn). Node's default, 511, is less than a burst of agents: while the event loop is
 * busy (a batch of decisions, the embedded database), connections past it are reset. With 1,000
 * connections at once on a blocked loop, 66 of 1,000 requests failed with ECONNRESET at 511, none
 * at 4,096.
 */
export const LISTEN_BACKLOG = 4096;

/**
 * Binds the port before anything else starts (migrations, the dev account), so a port that is
 * taken stops the process before it does work for nothing. Until an app is attached, requests
 * are answered 503.
 */
export async function listenHttp(port: number, host: string): Promise<Server> {
  const server = http.createServer((_req, res) => {
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
    res.end(JSON.stringify({ error: { code: 'service_unavailable', message: 'The service is starting; retry shortly.' } }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new ListenError(listenErrorMessage(err, port, host))));
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => resolve());
  });
  return server;
}
