/**
 * A real HTTP proxy on 127.0.0.1 in front of the service, failing the requests a test tells it
 * to: what a client's retries meet on a real network (a connection reset before the service saw
 * the request, a connection dropped after the service decided, a load balancer's 503 or 429, an
 * answer held up past the client's timeout). Every request that reaches it is recorded, with its
 * headers and the status it was answered with.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault =
  /** Forwarded, the answer passed back. */
  | 'pass'
  /** The connection is destroyed before anything is forwarded: the service never sees it. */
  | 'reset-before'
  /** Forwarded and answered by the service, then the connection is destroyed instead of answering. */
  | 'drop-after'
  /** Never answered (until the client gives up): nothing is forwarded. */
  | 'stall'
  /** Forwarded at once; the service's answer is passed back `holdMs` later (a slow network or gateway). */
  | { holdMs: number }
  /**
   * Answered with `status` by the proxy itself, after forwarding to the service (`forward`: a
   * gateway that timed out waiting for an answer that came) or without: a JSON error envelope, an
   * HTML page (`html`) as a load balancer's own error page is, or exactly `body` (JSON without an
   * envelope, or nothing).
   */
  | { status: number; retryAfter?: string; forward: boolean; html?: boolean; body?: string };

export interface ProxiedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  fault: Fault;
  at: number;
  /** The status the proxy answered with; undefined while unanswered, or when the connection was destroyed. */
  status?: number;
}

export interface FaultyProxy {
  url: string;
  requests: ProxiedRequest[];
  /** The faults of the next requests, in order; once used up, requests pass. */
  plan(...faults: Fault[]): void;
  close(): Promise<void>;
}

export async function startFaultyProxy(target: string): Promise<FaultyProxy> {
  const requests: ProxiedRequest[] = [];
  let planned: Fault[] = [];
  const upstream = new URL(target);

  const forward = (req: http.IncomingMessage, body: Buffer) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const out = http.request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host, connection: 'close' } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      out.on('error', reject);
      out.end(body);
    });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      const fault = planned.shift() ?? 'pass';
      const record: ProxiedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body: body.toString('utf8'), fault, at: Date.now() };
      requests.push(record);
      if (fault === 'reset-before') return req.socket.destroy();
      if (fault === 'stall') return;
      try {
        if (typeof fault === 'object' && 'status' in fault) {
          if (fault.forward) await forward(req, body);
          const headers = { 'content-type': fault.html ? 'text/html' : 'application/json', ...(fault.retryAfter !== undefined ? { 'retry-after': fault.retryAfter } : {}) };
          res.writeHead(fault.status, headers);
          record.status = fault.status;
          const code = fault.status === 429 ? 'rate_limited' : fault.status === 503 ? 'service_unavailable' : 'internal_error';
          return res.end(fault.body ?? (fault.html ? '<html><body>the gateway gave up</body></html>' : JSON.stringify({ error: { code, message: 'The gateway gave up.' } })));
        }
        const answer = await forward(req, body);
        if (fault === 'drop-after') return req.socket.destroy();
        if (typeof fault === 'object') await new Promise((resolve) => setTimeout(resolve, fault.holdMs));
        const { 'transfer-encoding': _te, connection: _c, ...headers } = answer.headers;
        res.writeHead(answer.status, headers);
        record.status = answer.status;
        res.end(answer.body);
      } catch {
        req.socket.destroy();
      }
    });
  });
  // Each attempt on a fresh connection, so a destroyed one never takes a later request with it.
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    plan: (...faults) => void (planned = faults),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
