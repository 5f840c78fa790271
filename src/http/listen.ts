import http, { type Server } from 'node:http';
import { ListenError, listenErrorMessage } from '../kernel/listen.js';

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
    server.listen(port, host, () => resolve());
  });
  return server;
}
