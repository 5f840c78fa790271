/**
 * Admission control (docs/operations.md, "Admission control"): a spend request that waited past
 * MAX_QUEUE_MS for its work to start is shed with 503 `service_unavailable` and `Retry-After`, and
 * never decided: no decision, no audit record, no usage count, its Idempotency-Key free for the
 * retry. The wait is made real: the database write of the agent's first request is held (a driver
 * wrapper, the database itself is real), so the agent's next requests queue behind it, in the
 * group-commit batcher or for the agent's turn, past a bound of 200 ms. Shed requests are counted in
 * `shed_total` and every wait in `request_queue_seconds`. Runs on both databases.
 */
import type { CompiledQuery, DatabaseConnection, Driver } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { agentWithPolicy, createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { until } from '../support/wait.js';

const BOUND_MS = 200;

/** Holds the next statement that writes a decision until `release`; every other statement runs. */
function heldWrites() {
  let armed = false;
  let held: { resolve: () => void; promise: Promise<void> } | undefined;
  const state = {
    holding: false,
    arm() {
      armed = true;
      let resolve!: () => void;
      held = { promise: new Promise<void>((r) => (resolve = r)), resolve };
    },
    release() {
      armed = false;
      held?.resolve();
    },
    wrap(driver: Driver): Driver {
      const inner = new WeakMap<DatabaseConnection, DatabaseConnection>();
      const of = (c: DatabaseConnection) => inner.get(c) ?? c;
      return {
        init: () => driver.init(),
        async acquireConnection() {
          const conn = await driver.acquireConnection();
          const wrapped: DatabaseConnection = {
            async executeQuery<R>(q: CompiledQuery) {
              if (armed && held && /insert into "decisions"/i.test(q.sql)) {
                armed = false;
                state.holding = true;
                await held.promise;
                state.holding = false;
              }
              return conn.executeQuery<R>(q);
            },
            streamQuery: (q, chunkSize) => conn.streamQuery(q, chunkSize),
          };
          inner.set(wrapped, conn);
          return wrapped;
        },
        beginTransaction: (c, settings) => driver.beginTransaction(of(c), settings),
        commitTransaction: (c) => driver.commitTransaction(of(c)),
        rollbackTransaction: (c) => driver.rollbackTransaction(of(c)),
        releaseConnection: (c) => driver.releaseConnection(of(c)),
        destroy: () => driver.destroy(),
      };
    },
  };
  return state;
}

describe.each([
  ['grouped (group commit: they wait in the batcher)', undefined],
  ['one by one (AUTHORIZE_BATCH_SIZE 1: they wait for the agent\'s turn)', { size: 1, lingerMs: 0, inFlight: 1 }],
] as const)('%s', (_name, authorizeBatch) => {
const writes = heldWrites();
let ctx: TestContext;
let acct: TestAccount;

beforeAll(async () => {
  ctx = await createTestContext({ maxQueueMs: BOUND_MS, wrapDriver: (d) => writes.wrap(d), testModeRateLimit: 10_000, ...(authorizeBatch ? { authorizeBatch } : {}) });
  acct = await ctx.account('growth');
});
afterAll(() => ctx?.close());

const count = async (table: 'decisions' | 'audit_records', agentId: string) => {
  let q = ctx.database.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('agent_id', '=', agentId);
  if (table === 'audit_records') q = q.where('type', '=', 'authorization.decision');
  return Number((await q.executeTakeFirstOrThrow()).n);
};
const usage = async () => Number((await acct.live!.get('/v1/usage')).body.checks);
const metric = async (line: RegExp) => {
  const m = line.exec((await ctx.raw('/metrics')).text);
  return m ? Number(m[1]) : 0;
};

test('requests that queued past MAX_QUEUE_MS behind a stalled one are shed: 503 with Retry-After, nothing decided, the key free', async () => {
  const client = acct.live!;
  const { agentId } = await agentWithPolicy(client, { budget_monthly: 1_000_000, budget_single_max: 100_000 });
  const body = { agent_id: agentId, amount: 100, currency: 'USD', vendor: 'shop.example' };
  const usageBefore = await usage();
  const shedBefore = await metric(/^shed_total\{route="authorize",reason="queue"\} (\d+)/m);

  writes.arm();
  const first = client.post('/v1/authorize', body);
  await until('the first request is held in its write', async () => (writes.holding ? true : undefined));
  const sentAt = Date.now();
  const queued = [client.post('/v1/authorize', body, { 'Idempotency-Key': 'queued-1' }), client.post('/v1/authorize', body)];
  // The clock is the subject here: the queued requests wait past their bound.
  await until('the queued requests waited past their bound', async () => (Date.now() - sentAt > BOUND_MS * 2 ? true : undefined));
  writes.release();

  expect((await first).body.decision).toBe('approved');
  for (const res of await Promise.all(queued)) {
    expect(res.status, res.text).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.body.error.code).toBe('service_unavailable');
    expect(res.body.error.message).toMatch(/overloaded.*Nothing was decided/);
  }
  // Only the first was decided: one decision, one record, one billable check.
  expect(await count('decisions', agentId)).toBe(1);
  expect(await count('audit_records', agentId)).toBe(1);
  expect(await usage()).toBe(usageBefore + 1);
  expect(await metric(/^shed_total\{route="authorize",reason="queue"\} (\d+)/m)).toBe(shedBefore + 2);
  expect(await metric(/^request_queue_seconds_count\{route="authorize"\} (\d+)/m)).toBeGreaterThanOrEqual(3);

  // The shed request's key was never stored: its retry is decided.
  const retry = await client.post('/v1/authorize', body, { 'Idempotency-Key': 'queued-1' });
  expect(retry.status).toBe(200);
  expect(retry.headers.get('idempotent-replayed')).toBeNull();
  expect(retry.body.decision).toBe('approved');
  expect((await client.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true, ledger_mismatches: 0 });
});

test('a request that did not wait past its bound is decided as always', async () => {
  const { agentId } = await agentWithPolicy(acct.test, { budget_monthly: 1_000_000, budget_single_max: 100_000 });
  const answers = await Promise.all(Array.from({ length: 5 }, () => acct.test.post('/v1/authorize', { agent_id: agentId, amount: 100, currency: 'USD', vendor: 'shop.example' })));
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
});

test('the quick-start /authorize is bound the same way', async () => {
  const q = await acct.test.post('/agents', { name: 'quick' });
  expect(q.status, q.text).toBe(201);
  const v = await acct.test.post('/vaults', { name: 'Groceries', agent_id: q.body.id, daily_limit: 100, max_single_transaction: 40 });
  expect(v.status, v.text).toBe(201);
  const body = { token: v.body.token, amount: 1, merchant_name: 'shop.example' };
  writes.arm();
  const first = acct.test.post('/authorize', body);
  await until('the first request is held in its write', async () => (writes.holding ? true : undefined));
  const sentAt = Date.now();
  const queued = acct.test.post('/authorize', body);
  await until('the queued request waited past its bound', async () => (Date.now() - sentAt > BOUND_MS * 2 ? true : undefined));
  writes.release();
  expect((await first).status).toBe(200);
  const shed = await queued;
  expect(shed.status, shed.text).toBe(503);
  expect(shed.body.error.code).toBe('service_unavailable');
});
});
