/**
 * `spend-auth serve` with OTEL_EXPORTER_OTLP_ENDPOINT: its request spans reach an OTLP/HTTP
 * collector (here a receiver on 127.0.0.1) at `<endpoint>/v1/traces`, flushed at the latest on
 * SIGTERM. The spans from the API through the workflow are checked on a Temporal server in
 * test/workflows/tracing.server.test.ts.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { freePort, spawnSpendAuth } from '../support/serve-process.js';
import { until } from '../support/wait.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spend-auth-otlp-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

test('request spans are exported over OTLP/HTTP, in the caller\'s trace; SIGTERM flushes them and exits 0', { timeout: 90_000 }, async () => {
  const received: Array<{ url: string; body: string }> = [];
  const collector = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ url: req.url ?? '', body });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(collector.address() as { port: number }).port}`;
  const env = {
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
    DATA_DIR: dataDir,
    TEMPORAL_ADDRESS: '127.0.0.1:1',
  };
  try {
    const migrate = spawnSpendAuth('migrate', env);
    expect(await migrate.exited, migrate.stderr()).toBe(0);
    const port = freePort();
    const serve = spawnSpendAuth('serve', { ...env, PORT: String(port), HOST: '127.0.0.1', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
    const base = `http://127.0.0.1:${port}`;
    await until('serve answers', async () => ((await fetch(`${base}/healthz`)).ok ? true : undefined), 30_000, 150);
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    expect((await fetch(`${base}/healthz`, { headers: { traceparent: `00-${traceId}-b7ad6b7169203331-01` } })).status).toBe(200);
    serve.child.kill('SIGTERM');
    expect(await serve.exited, serve.stderr()).toBe(0);

    const traces = received.filter((r) => r.url === '/v1/traces').map((r) => r.body).join('\n');
    expect(traces).toContain('GET /healthz');
    expect(traces).toContain(traceId);
    expect(traces).toContain('spend-auth');
  } finally {
    collector.close();
  }
});
