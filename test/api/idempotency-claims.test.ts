/**
 * Idempotency-Key claims (src/idempotency/idempotency.repository.ts), on both databases: each claim
 * has its own id; a second request finds the holding row until the claim is stale (in progress for
 * longer than IDEMPOTENCY_STALE_CLAIM_MS) or the stored response has expired (IDEMPOTENCY_TTL_MS),
 * when it takes the key over; a response is stored, and a key released, only under the claim that
 * holds it; storing under a lost claim fails with the kernel's claim-lost error and writes nothing.
 *
 * The repository functions are called one after another (the embedded engine has one connection),
 * with `now` set by the test. Through the API, a retry taking the key over while the request runs
 * stands for a request stalled past its claim's lifetime: a driver wrapper changes the key's claim
 * right after the request's own claim is written, on the same connection, so it needs no second one.
 */
import { CompiledQuery, type DatabaseConnection, type Driver } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AppError } from '../../src/kernel/errors.js';
import { CLAIM_LOST_SQLSTATE, claimLost } from '../../src/kernel/idempotency.js';
import {
  claimKey,
  completeKey,
  completeKeyStatement,
  IDEMPOTENCY_STALE_CLAIM_MS,
  IDEMPOTENCY_TTL_MS,
  purgeExpiredKeys,
  releaseKey,
  type IdempotencyScope,
} from '../../src/idempotency/idempotency.repository.js';
import { batchMetrics } from '../support/batch-metrics.js';
import { agentWithPolicy, createTestContext, type TestAccount, type TestContext } from '../support/context.js';

/** The claim id a retry that takes the key over gets, in the API tests. */
const RETRY_CLAIM = 'claim-of-the-retry';

/**
 * Right after the claim of the armed key is written (the request's first statement on it), the
 * key's claim becomes another request's, as a retry's takeover would make it.
 */
function takeoverAfterClaim() {
  const armed = new Set<string>();
  const patched = new WeakSet<DatabaseConnection>();
  const state = {
    takeovers: 0,
    arm(...keys: string[]) {
      for (const key of keys) armed.add(key);
    },
    wrap(driver: Driver): Driver {
      const acquireConnection = async () => {
        const conn = await driver.acquireConnection();
        if (!patched.has(conn)) {
          patched.add(conn);
          const execute = conn.executeQuery.bind(conn);
          conn.executeQuery = (async (q: CompiledQuery) => {
            const result = await execute(q);
            const key = q.sql.includes('INSERT INTO idempotency_keys') ? [...armed].find((k) => q.parameters.includes(k)) : undefined;
            if (key !== undefined) {
              armed.delete(key);
              state.takeovers += 1;
              await execute(CompiledQuery.raw('UPDATE idempotency_keys SET claim_id = $1 WHERE key = $2', [RETRY_CLAIM, key]));
            }
            return result;
          }) as DatabaseConnection['executeQuery'];
        }
        return conn;
      };
      return new Proxy(driver, {
        get(target, prop) {
          if (prop === 'acquireConnection') return acquireConnection;
          const value = Reflect.get(target, prop) as unknown;
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
    },
  };
  return state;
}

const takeover = takeoverAfterClaim();
let ctx: TestContext;
let acct: TestAccount;

beforeAll(async () => {
  // A database of this file's own: the purge below counts every expired row it holds.
  ctx = await createTestContext({ testModeRateLimit: 10_000, ownDatabase: true, wrapDriver: (d) => takeover.wrap(d) });
  acct = await ctx.account('growth');
});
afterAll(() => ctx?.close());

const db = () => ctx.database.db;
const scope = (key: string, claimId?: string, apiKeyId = 'key_repo'): IdempotencyScope => ({
  accountId: acct.id,
  livemode: false,
  apiKeyId,
  key,
  ...(claimId !== undefined ? { claimId } : {}),
});
const rowOf = (key: string, apiKeyId = 'key_repo') =>
  db().selectFrom('idempotency_keys').selectAll().where('account_id', '=', acct.id).where('livemode', '=', false).where('api_key_id', '=', apiKeyId).where('key', '=', key).executeTakeFirst();
const at = (base: Date, ms: number) => new Date(base.getTime() + ms);
const JSON_TYPE = 'application/json; charset=utf-8';

/** The row a claim writes: in progress, no response, created at `now`, under `claimId`. */
const claimed = (key: string, requestHash: string, createdAt: Date, claimId: string | null, apiKeyId = 'key_repo') => ({
  account_id: acct.id,
  livemode: false,
  api_key_id: apiKeyId,
  key,
  request_hash: requestHash,
  status: 'in_progress',
  response_status: null,
  response_type: null,
  response_body: null,
  created_at: createdAt,
  claim_id: claimId,
});

/** What completeKey fails with under a lost claim: the kernel's claim-lost error. */
async function expectClaimLost(p: Promise<unknown>) {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  const expected = claimLost();
  expect(err).toMatchObject({ code: 'conflict', param: 'Idempotency-Key', message: expected.message });
  expect((err as AppError).message).toBe(expected.message);
}

/** A request's answer when its claim was lost: 409, naming Idempotency-Key, with the kernel's message. */
function expectLost(res: { status: number; body: any }) {
  expect(res.status).toBe(409);
  expect(res.body.error).toMatchObject({ code: 'conflict', param: 'Idempotency-Key', message: claimLost().message });
}

describe('claimKey', () => {
  test('a fresh key is claimed (undefined), and its row is in progress under the claim id, created at now', async () => {
    const t0 = new Date();
    expect(await claimKey(db(), scope('fresh', 'claim-a'), 'hash-1', t0)).toBeUndefined();
    expect(await rowOf('fresh')).toEqual(claimed('fresh', 'hash-1', t0, 'claim-a'));
  });

  test('a claim without a claim id is stored with a null claim id', async () => {
    const t0 = new Date();
    expect(await claimKey(db(), scope('no-claim-id'), 'hash-1', t0)).toBeUndefined();
    expect(await rowOf('no-claim-id')).toEqual(claimed('no-claim-id', 'hash-1', t0, null));
  });

  test('a second claim while the first is in progress, up to the claim lifetime itself, returns the holding row unchanged', async () => {
    const t0 = new Date();
    await claimKey(db(), scope('held', 'claim-a'), 'hash-1', t0);
    const holding = claimed('held', 'hash-1', t0, 'claim-a');
    for (const later of [0, 1_000, IDEMPOTENCY_STALE_CLAIM_MS - 1, IDEMPOTENCY_STALE_CLAIM_MS]) {
      expect(await claimKey(db(), scope('held', 'claim-b'), 'hash-1', at(t0, later))).toEqual(holding);
    }
    // Another request with the same key: the holding row, with the first request's hash.
    expect(await claimKey(db(), scope('held', 'claim-c'), 'hash-other', at(t0, 30_000))).toEqual(holding);
    expect(await rowOf('held')).toEqual(holding);
  });

  test('an in-progress claim older than the claim lifetime is taken over: the new claim id, request hash and time', async () => {
    expect(IDEMPOTENCY_STALE_CLAIM_MS).toBe(60_000);
    const t0 = new Date();
    await claimKey(db(), scope('stale', 'claim-a'), 'hash-1', t0);
    const later = at(t0, IDEMPOTENCY_STALE_CLAIM_MS + 1);
    expect(await claimKey(db(), scope('stale', 'claim-b'), 'hash-2', later)).toBeUndefined();
    expect(await rowOf('stale')).toEqual(claimed('stale', 'hash-2', later, 'claim-b'));
    // The takeover is a claim like any other: the next request finds it held.
    expect(await claimKey(db(), scope('stale', 'claim-c'), 'hash-2', at(later, 1))).toEqual(claimed('stale', 'hash-2', later, 'claim-b'));
  });

  test('a claim whose age was set back by an UPDATE is stale too', async () => {
    await claimKey(db(), scope('aged', 'claim-a'), 'hash-1', new Date());
    await db().updateTable('idempotency_keys').set({ created_at: new Date(Date.now() - 61_000) }).where('account_id', '=', acct.id).where('key', '=', 'aged').execute();
    const now = new Date();
    expect(await claimKey(db(), scope('aged', 'claim-b'), 'hash-1', now)).toBeUndefined();
    expect(await rowOf('aged')).toEqual(claimed('aged', 'hash-1', now, 'claim-b'));
  });

  test('a completed row is returned until it expires, however long past the claim lifetime; an expired one is taken over and reset', async () => {
    expect(IDEMPOTENCY_TTL_MS).toBe(24 * 3600 * 1000);
    const t0 = new Date();
    await claimKey(db(), scope('done', 'claim-a'), 'hash-1', t0);
    await completeKey(db(), scope('done', 'claim-a'), 201, JSON_TYPE, 'sealed-body');
    const completed = { ...claimed('done', 'hash-1', t0, 'claim-a'), status: 'completed', response_status: 201, response_type: JSON_TYPE, response_body: 'sealed-body' };
    for (const later of [IDEMPOTENCY_STALE_CLAIM_MS + 1, 3600_000, IDEMPOTENCY_TTL_MS - 1, IDEMPOTENCY_TTL_MS]) {
      expect(await claimKey(db(), scope('done', 'claim-b'), 'hash-2', at(t0, later))).toEqual(completed);
    }
    expect(await rowOf('done')).toEqual(completed);

    const expired = at(t0, IDEMPOTENCY_TTL_MS + 1);
    expect(await claimKey(db(), scope('done', 'claim-c'), 'hash-3', expired)).toBeUndefined();
    expect(await rowOf('done')).toEqual(claimed('done', 'hash-3', expired, 'claim-c'));
  });

  test('an in-progress row past its expiry is taken over as well', async () => {
    const t0 = new Date();
    await claimKey(db(), scope('expired-claim', 'claim-a'), 'hash-1', t0);
    const later = at(t0, IDEMPOTENCY_TTL_MS + 1);
    expect(await claimKey(db(), scope('expired-claim', 'claim-b'), 'hash-1', later)).toBeUndefined();
    expect(await rowOf('expired-claim')).toEqual(claimed('expired-claim', 'hash-1', later, 'claim-b'));
  });

  test('keys are per API key: the same key of another API key is claimed apart, and each finds its own row', async () => {
    const t0 = new Date();
    expect(await claimKey(db(), scope('per-key', 'claim-a', 'key_one'), 'hash-one', t0)).toBeUndefined();
    expect(await claimKey(db(), scope('per-key', 'claim-b', 'key_two'), 'hash-two', at(t0, 1))).toBeUndefined();
    expect(await claimKey(db(), scope('per-key', 'claim-c', 'key_one'), 'hash-one', at(t0, 2))).toEqual(claimed('per-key', 'hash-one', t0, 'claim-a', 'key_one'));
    expect(await claimKey(db(), scope('per-key', 'claim-d', 'key_two'), 'hash-two', at(t0, 2))).toEqual(claimed('per-key', 'hash-two', at(t0, 1), 'claim-b', 'key_two'));
  });

  test('the repository keeps the request hash it is given: a different request finds the holder and its hash, the caller compares them', async () => {
    const t0 = new Date();
    await claimKey(db(), scope('hashes', 'claim-a'), 'hash-first', t0);
    await completeKey(db(), scope('hashes', 'claim-a'), 200, JSON_TYPE, 'body');
    const found = await claimKey(db(), scope('hashes', 'claim-b'), 'hash-second', at(t0, 5_000));
    expect(found?.request_hash).toBe('hash-first');
    expect(found?.claim_id).toBe('claim-a');
    expect((await rowOf('hashes'))?.request_hash).toBe('hash-first');
  });
});

describe('completeKey', () => {
  test('under its own claim it stores the response and completes the key', async () => {
    const t0 = new Date();
    await claimKey(db(), scope('own', 'claim-a'), 'hash-1', t0);
    await completeKey(db(), scope('own', 'claim-a'), 202, 'text/plain; charset=utf-8', 'sealed:own');
    expect(await rowOf('own')).toEqual({
      ...claimed('own', 'hash-1', t0, 'claim-a'),
      status: 'completed',
      response_status: 202,
      response_type: 'text/plain; charset=utf-8',
      response_body: 'sealed:own',
    });
  });

  test('under a claim taken over it throws the claim-lost error and writes nothing', async () => {
    const t0 = new Date();
    await claimKey(db(), scope('lost', 'claim-a'), 'hash-1', t0);
    const later = at(t0, IDEMPOTENCY_STALE_CLAIM_MS + 1);
    await claimKey(db(), scope('lost', 'claim-b'), 'hash-1', later);
    await expectClaimLost(completeKey(db(), scope('lost', 'claim-a'), 200, JSON_TYPE, 'sealed:stalled'));
    expect(await rowOf('lost')).toEqual(claimed('lost', 'hash-1', later, 'claim-b'));
    // The holder still stores its own.
    await completeKey(db(), scope('lost', 'claim-b'), 200, JSON_TYPE, 'sealed:retry');
    expect(await rowOf('lost')).toMatchObject({ status: 'completed', response_status: 200, response_body: 'sealed:retry', claim_id: 'claim-b' });
  });

  test('without a claim id it stores only on a row without one; a claim id never stores on a row without one', async () => {
    const t0 = new Date();
    await claimKey(db(), scope('null-claim'), 'hash-1', t0);
    await expectClaimLost(completeKey(db(), scope('null-claim', 'claim-a'), 200, JSON_TYPE, 'sealed:other'));
    expect(await rowOf('null-claim')).toEqual(claimed('null-claim', 'hash-1', t0, null));
    await completeKey(db(), scope('null-claim'), 200, JSON_TYPE, 'sealed:mine');
    expect(await rowOf('null-claim')).toMatchObject({ status: 'completed', response_status: 200, response_type: JSON_TYPE, response_body: 'sealed:mine', claim_id: null });

    await claimKey(db(), scope('claimed-row', 'claim-a'), 'hash-1', t0);
    await expectClaimLost(completeKey(db(), scope('claimed-row'), 200, JSON_TYPE, 'sealed:none'));
    expect(await rowOf('claimed-row')).toEqual(claimed('claimed-row', 'hash-1', t0, 'claim-a'));
  });

  test('a key already completed is left as it is, by its own claim or another (only an in-progress row is written)', async () => {
    const t0 = new Date();
    await claimKey(db(), scope('twice', 'claim-a'), 'hash-1', t0);
    await completeKey(db(), scope('twice', 'claim-a'), 200, JSON_TYPE, 'sealed:first');
    const first = await rowOf('twice');
    await completeKey(db(), scope('twice', 'claim-a'), 500, JSON_TYPE, 'sealed:second');
    await completeKey(db(), scope('twice', 'claim-b'), 500, JSON_TYPE, 'sealed:third');
    expect(await rowOf('twice')).toEqual(first);
    expect(first).toMatchObject({ status: 'completed', response_status: 200, response_body: 'sealed:first' });
  });

  test('a key never claimed is not created', async () => {
    await completeKey(db(), scope('never-claimed', 'claim-a'), 200, JSON_TYPE, 'sealed');
    expect(await rowOf('never-claimed')).toBeUndefined();
  });

  test("another database error is thrown as the database's, not as a lost claim", async () => {
    await claimKey(db(), scope('bad-status', 'claim-a'), 'hash-1', new Date());
    const err = await completeKey(db(), scope('bad-status', 'claim-a'), 2 ** 31, JSON_TYPE, 'sealed').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeDefined();
    expect(err).not.toBeInstanceOf(AppError);
    // integer out of range
    expect((err as { code?: string }).code).toBe('22003');
    expect((await rowOf('bad-status'))?.status).toBe('in_progress');
  });

  test("inside a transaction, the lost claim's failure rolls back what the transaction wrote before it", async () => {
    const t0 = new Date();
    await claimKey(db(), scope('in-trx', 'claim-a'), 'hash-1', t0);
    await claimKey(db(), scope('in-trx', 'claim-b'), 'hash-1', at(t0, IDEMPOTENCY_STALE_CLAIM_MS + 1));
    await expectClaimLost(
      db()
        .transaction()
        .execute(async (trx) => {
          await claimKey(trx, scope('in-trx-side', 'claim-a'), 'hash-1', t0);
          await completeKey(trx, scope('in-trx', 'claim-a'), 200, JSON_TYPE, 'sealed');
        }),
    );
    expect(await rowOf('in-trx-side')).toBeUndefined();
    expect(await rowOf('in-trx')).toMatchObject({ status: 'in_progress', claim_id: 'claim-b', response_body: null });
  });

  test("completeKeyStatement, run as it is, fails under a lost claim with the database's SQLSTATE SA410", async () => {
    const t0 = new Date();
    await claimKey(db(), scope('statement', 'claim-a'), 'hash-1', t0);
    await claimKey(db(), scope('statement', 'claim-b'), 'hash-1', at(t0, IDEMPOTENCY_STALE_CLAIM_MS + 1));
    const err = await completeKeyStatement(db(), scope('statement', 'claim-a'), 200, JSON_TYPE, 'sealed')
      .execute()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect((err as { code?: string }).code).toBe(CLAIM_LOST_SQLSTATE);
    await completeKeyStatement(db(), scope('statement', 'claim-b'), 200, JSON_TYPE, 'sealed:b').execute();
    expect(await rowOf('statement')).toMatchObject({ status: 'completed', response_status: 200, response_type: JSON_TYPE, response_body: 'sealed:b' });
  });
});

describe('releaseKey', () => {
  test('frees the key only under its own claim', async () => {
    const t0 = new Date();
    await claimKey(db(), scope('release', 'claim-a'), 'hash-1', t0);
    await releaseKey(db(), scope('release', 'claim-b'));
    await releaseKey(db(), scope('release'));
    await releaseKey(db(), scope('release', 'claim-a', 'key_other'));
    expect(await rowOf('release')).toEqual(claimed('release', 'hash-1', t0, 'claim-a'));
    await releaseKey(db(), scope('release', 'claim-a'));
    expect(await rowOf('release')).toBeUndefined();
    // Free again: the next claim is fresh.
    expect(await claimKey(db(), scope('release', 'claim-c'), 'hash-2', at(t0, 1))).toBeUndefined();
    expect(await rowOf('release')).toEqual(claimed('release', 'hash-2', at(t0, 1), 'claim-c'));
  });

  test('a stalled request whose claim was taken over never frees the key the retry holds', async () => {
    const t0 = new Date();
    await claimKey(db(), scope('release-lost', 'claim-a'), 'hash-1', t0);
    const later = at(t0, IDEMPOTENCY_STALE_CLAIM_MS + 1);
    await claimKey(db(), scope('release-lost', 'claim-b'), 'hash-1', later);
    await releaseKey(db(), scope('release-lost', 'claim-a'));
    expect(await rowOf('release-lost')).toEqual(claimed('release-lost', 'hash-1', later, 'claim-b'));
  });

  test('a key without a claim id is freed only by a release without one', async () => {
    const t0 = new Date();
    await claimKey(db(), scope('release-null'), 'hash-1', t0);
    await releaseKey(db(), scope('release-null', 'claim-a'));
    expect(await rowOf('release-null')).toEqual(claimed('release-null', 'hash-1', t0, null));
    await releaseKey(db(), scope('release-null'));
    expect(await rowOf('release-null')).toBeUndefined();
  });

  test('a completed key is never freed, even by its own claim', async () => {
    const t0 = new Date();
    await claimKey(db(), scope('release-done', 'claim-a'), 'hash-1', t0);
    await completeKey(db(), scope('release-done', 'claim-a'), 200, JSON_TYPE, 'sealed');
    await releaseKey(db(), scope('release-done', 'claim-a'));
    expect(await rowOf('release-done')).toMatchObject({ status: 'completed', response_status: 200, response_body: 'sealed', claim_id: 'claim-a' });
  });
});

describe('purgeExpiredKeys', () => {
  test('deletes the rows older than the expiry, and counts them', async () => {
    const t0 = new Date();
    await claimKey(db(), scope('purge-old', 'claim-a'), 'hash-1', at(t0, -IDEMPOTENCY_TTL_MS - 1));
    await claimKey(db(), scope('purge-edge', 'claim-a'), 'hash-1', at(t0, -IDEMPOTENCY_TTL_MS));
    await claimKey(db(), scope('purge-new', 'claim-a'), 'hash-1', t0);
    const before = await db().selectFrom('idempotency_keys').select('key').where('created_at', '<', at(t0, -IDEMPOTENCY_TTL_MS)).execute();
    expect(before.map((r) => r.key)).toEqual(['purge-old']);
    expect(await purgeExpiredKeys(db(), t0)).toBe(1);
    expect(await rowOf('purge-old')).toBeUndefined();
    expect(await rowOf('purge-edge')).toBeDefined();
    expect(await rowOf('purge-new')).toBeDefined();
    expect(await purgeExpiredKeys(db(), t0)).toBe(0);
  });
});

describe('through the API: a key taken over while its request runs', () => {
  const claimOf = (key: string) =>
    db().selectFrom('idempotency_keys').selectAll().where('account_id', '=', acct.id).where('livemode', '=', false).where('key', '=', key).executeTakeFirst();
  const decisionsOf = async (agentId: string) => (await db().selectFrom('decisions').select('id').where('agent_id', '=', agentId).execute()).length;

  test('an authorization whose claim is lost answers 409 and decides nothing; the holder keeps the key', async () => {
    const { agentId } = await agentWithPolicy(acct.test, { budget_monthly: 1_000_000, budget_single_max: 100_000 });
    const body = { agent_id: agentId, amount: 500, currency: 'USD', vendor: 'shop.example' };
    takeover.arm('api-authorize');
    const before = takeover.takeovers;
    const res = await acct.test.post('/v1/authorize', body, { 'Idempotency-Key': 'api-authorize' });
    expect(takeover.takeovers).toBe(before + 1);
    expectLost(res);
    expect(await decisionsOf(agentId)).toBe(0);
    expect(await claimOf('api-authorize')).toMatchObject({ status: 'in_progress', claim_id: RETRY_CLAIM, response_status: null, response_body: null });
    // The key is still held by the retry's claim.
    const again = await acct.test.post('/v1/authorize', body, { 'Idempotency-Key': 'api-authorize' });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain('still being processed');
    expect(await decisionsOf(agentId)).toBe(0);
  });

  test('an authorization under its own claim is decided once, stored under that claim, and replayed', async () => {
    const { agentId } = await agentWithPolicy(acct.test, { budget_monthly: 1_000_000, budget_single_max: 100_000 });
    const body = { agent_id: agentId, amount: 500, currency: 'USD', vendor: 'shop.example' };
    const first = await acct.test.post('/v1/authorize', body, { 'Idempotency-Key': 'api-own' });
    expect(first.status).toBe(200);
    const row = await claimOf('api-own');
    expect(row).toMatchObject({ status: 'completed', response_status: 200, response_type: JSON_TYPE });
    expect(row?.claim_id).toMatch(/^[0-9a-f-]{36}$/);
    const again = await acct.test.post('/v1/authorize', body, { 'Idempotency-Key': 'api-own' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await decisionsOf(agentId)).toBe(1);
  });

  test('a capture whose claim is lost answers 409 and captures nothing', async () => {
    const { agentId } = await agentWithPolicy(acct.test, { budget_monthly: 1_000_000, budget_single_max: 100_000 });
    const decided = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 700, currency: 'USD', vendor: 'shop.example' });
    expect(decided.body.decision).toBe('approved');
    const id = decided.body.decision_id as string;
    takeover.arm('api-capture');
    const res = await acct.test.post(`/v1/decisions/${id}/capture`, {}, { 'Idempotency-Key': 'api-capture' });
    expectLost(res);
    const after = await acct.test.get(`/v1/decisions/${id}`);
    expect(after.body.capture).toMatchObject({ status: 'uncaptured', captured_amount: null });
    expect(await claimOf('api-capture')).toMatchObject({ status: 'in_progress', claim_id: RETRY_CLAIM, response_body: null });

    // Under its own claim the capture is made and stored.
    const own = await acct.test.post(`/v1/decisions/${id}/capture`, {}, { 'Idempotency-Key': 'api-capture-own' });
    expect(own.status).toBe(200);
    expect(own.body.capture).toMatchObject({ status: 'captured', captured_amount: 700 });
    expect(await claimOf('api-capture-own')).toMatchObject({ status: 'completed', response_status: 200 });
  });

  test('a void whose claim is lost answers 409 and voids nothing', async () => {
    const { agentId } = await agentWithPolicy(acct.test, { budget_monthly: 1_000_000, budget_single_max: 100_000 });
    const decided = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 900, currency: 'USD', vendor: 'shop.example' });
    const id = decided.body.decision_id as string;
    takeover.arm('api-void');
    expectLost(await acct.test.post(`/v1/decisions/${id}/void`, {}, { 'Idempotency-Key': 'api-void' }));
    expect((await acct.test.get(`/v1/decisions/${id}`)).body.capture).toMatchObject({ status: 'uncaptured' });
  });
});

describe('through the API, decided together (group commit): a key taken over while its request waits for its batch', () => {
  let batched: TestContext;
  let owner: TestAccount;

  beforeAll(async () => {
    // Batches that wait for the requests sent together (the embedded engine answers their claims one at a time).
    batched = await createTestContext({ testModeRateLimit: 10_000, ownDatabase: true, wrapDriver: (d) => takeover.wrap(d), authorizeBatch: { size: 64, lingerMs: 100, inFlight: 1 } });
    owner = await batched.account('growth');
  });
  afterAll(() => batched?.close());

  const claimOf = (key: string) =>
    batched.database.db.selectFrom('idempotency_keys').selectAll().where('account_id', '=', owner.id).where('livemode', '=', false).where('key', '=', key).executeTakeFirst();
  const decisionsOf = async (agentId: string) => (await batched.database.db.selectFrom('decisions').select('id').where('agent_id', '=', agentId).execute()).length;
  const decisionsOfEach = async (agentIds: string[]) => {
    const counts: number[] = [];
    for (const id of agentIds) counts.push(await decisionsOf(id));
    return counts;
  };

  test('each response is stored under its own claim; the requests whose claim is lost answer 409 and decide nothing, the others are decided', async () => {
    const agents: string[] = [];
    for (let i = 0; i < 3; i++) agents.push((await agentWithPolicy(owner.test, { budget_monthly: 1_000_000, budget_single_max: 100_000 })).agentId);
    const send = (round: string, n: number) =>
      Promise.all(
        Array.from({ length: n }, (_, i) =>
          owner.test.post('/v1/authorize', { agent_id: agents[i % 3], amount: 100 + i, currency: 'USD', vendor: 'shop.example' }, { 'Idempotency-Key': `${round}-${i}` }),
        ),
      );
    const grouped = async () => {
      const { count, single } = await batchMetrics(batched);
      return count - single;
    };

    // Every claim held: decided in batches of more than one, each stored under its request's claim.
    const before = await grouped();
    const all = await send('batch', 12);
    expect(all.map((r) => r.status)).toEqual(Array(12).fill(200));
    expect(await grouped()).toBeGreaterThan(before);
    for (let i = 0; i < 12; i++) {
      const row = await claimOf(`batch-${i}`);
      expect(row).toMatchObject({ status: 'completed', response_status: 200, response_type: JSON_TYPE });
      expect(row?.claim_id).toMatch(/^[0-9a-f-]{36}$/);
      const again = await owner.test.post('/v1/authorize', { agent_id: agents[i % 3], amount: 100 + i, currency: 'USD', vendor: 'shop.example' }, { 'Idempotency-Key': `batch-${i}` });
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.text).toBe(all[i]!.text);
    }

    // Some claims lost while their requests wait for a batch: only those are refused.
    const lost = new Set([1, 4, 5, 8, 10, 11]);
    takeover.arm(...[...lost].map((i) => `lost-${i}`));
    const decidedBefore = await decisionsOfEach(agents);
    const mixed = await send('lost', 12);
    for (let i = 0; i < 12; i++) {
      if (lost.has(i)) {
        expectLost(mixed[i]!);
        expect(await claimOf(`lost-${i}`)).toMatchObject({ status: 'in_progress', claim_id: RETRY_CLAIM, response_body: null });
      } else {
        expect(mixed[i]!.status).toBe(200);
        expect(await claimOf(`lost-${i}`)).toMatchObject({ status: 'completed', response_status: 200 });
      }
    }
    const decidedAfter = await decisionsOfEach(agents);
    // Per agent, one decision for each request whose claim held.
    expect(decidedAfter.map((n, a) => n - decidedBefore[a]!)).toEqual([0, 1, 2].map((a) => [...Array(12).keys()].filter((i) => i % 3 === a && !lost.has(i)).length));
  });
});
