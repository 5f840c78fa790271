import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkWebhook } from './openapi-conformance.js';

export interface Received {
  method: string;
  headers: http.IncomingHttpHeaders;
  /** The header fields as they arrived: names as sent, in order, repeats kept (name, value, …). */
  rawHeaders: string[];
  body: string;
  /** The body's bytes as received. */
  bytes: Buffer;
  path: string;
}

/** A real HTTP receiver on 127.0.0.1 (webhooks, signed requests) whose answers the test scripts, recording what it got. */
export async function startReceiver(answer: (req: Received, n: number) => { status: number; headers?: Record<string, string>; hang?: boolean } = () => ({ status: 200 })) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const bytes = Buffer.concat(chunks);
      const r = { method: req.method ?? 'GET', headers: req.headers, rawHeaders: req.rawHeaders, body: bytes.toString('utf8'), bytes, path: req.url ?? '/' };
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
