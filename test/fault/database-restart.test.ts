import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createAccount } from '../../src/accounts/accounts.service.js';
import { connectDatabase } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { findPgBin, startPgCluster, type PgCluster } from '../support/pg-cluster.js';
import { freePort, startServe, type ServeProcess } from '../support/serve-process.js';
import { useTestAuditKey } from '../support/server-keys.js';

const bin = findPgBin();
if (!bin) console.log('[fault] database-restart skipped: no PostgreSQL server binaries under /usr/lib/postgresql');

describe.skipIf(!bin)('PostgreSQL restarting under load', () => {
  let cluster: PgCluster;
  let serve: ServeProcess | undefined;

  beforeAll(() => {
    // A cluster of this test's own: restarting the shared server would break other test files.
    cluster = startPgCluster(bin!, freePort());
  });
  afterAll(async () => {
    await serve?.stop('SIGKILL');
    cluster?.stop();
  });

  test('requests fail fast with the error envelope while it is down and succeed again without restarting the API', async () => {
    useTestAuditKey();
    const database = await connectDatabase({ databaseUrl: cluster.url, poolSize: 2 });
    await migrateToLatest(database.db);
    const { keys } = await createAccount(database.db, { name: 'restart', plan: 'enterprise', rateLimit: 1_000_000 });
    await database.close();
    serve = await startServe(cluster.url, freePort());
    const h = { authorization: `Bearer ${keys.live!}`, 'content-type': 'application/json' };
    const policy = await (await fetch(`${serve.base}/v1/policies`, { method: 'POST', headers: h, body: JSON.stringify({ name: 'p', budget_monthly: 100_000_000, budget_single_max: 10_000 }) })).json();
    const agent = await (await fetch(`${serve.base}/v1/agents`, { method: 'POST', headers: h, body: JSON.stringify({ name: 'a', policy_id: policy.id }) })).json();

    const statuses: number[] = [];
    const slow: number[] = [];
    let stop = false;
    const worker = async () => {
      while (!stop) {
        const t = performance.now();
        const res = await fetch(`${serve!.base}/v1/authorize`, { method: 'POST', headers: h, body: JSON.stringify({ agent_id: agent.id, amount: 100, currency: 'USD', vendor: 'v.example' }) });
        const body = await res.json();
        statuses.push(res.status);
        if (res.status !== 200) {
          expect(res.status).toBe(503);
          expect(body.error).toMatchObject({ code: 'service_unavailable', message: expect.any(String) });
          expect(JSON.stringify(body)).not.toMatch(/ECONN|terminat|at .+\.(ts|js):\d+/);
        }
        if (performance.now() - t > 6_000) slow.push(performance.now() - t);
      }
    };
    const load = Array.from({ length: 8 }, worker);
    await new Promise((r) => setTimeout(r, 700));
    cluster.restart();
    await new Promise((r) => setTimeout(r, 1_500));
    stop = true;
    await Promise.all(load);

    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(slow).toEqual([]); // bounded by the pool's 5 s connection timeout
    // Recovered: the same API process answers again.
    let ok = false;
    for (let i = 0; i < 20 && !ok; i++) {
      const res = await fetch(`${serve.base}/v1/authorize`, { method: 'POST', headers: h, body: JSON.stringify({ agent_id: agent.id, amount: 100, currency: 'USD', vendor: 'v.example' }) });
      ok = res.status === 200;
      if (!ok) await new Promise((r) => setTimeout(r, 250));
    }
    expect(ok).toBe(true);
    expect((await fetch(`${serve.base}/readyz`)).status).toBe(200);
  }, 120_000);
});
