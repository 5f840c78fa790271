import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkWebhook } from './openapi-conformance.js';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  path: string;
}

/** A real webhook receiver on 127.0.0.1 whose answers the test scripts, recording what it got. */
export async function startReceiver(answer: (req: Received, n: number) => { status: number; headers?: Record<string, string>; hang?: boolean } = () => ({ status: 200 })) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), path: req.url ?? '/' };
      received.push(r);
      if (req.headers['x-service-event'] !== undefined) checkWebhook(req.headers, r.body);
      const a = answer(r, received.length);
      if (a.hang) return;
      res.writeHead(a.status, a.headers ?? {});
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
