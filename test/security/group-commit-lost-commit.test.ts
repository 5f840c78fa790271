/**
 * Attack on group commit (docs/operations.md, "Group commit"): a batch's COMMIT loses its answer and
 * the lookup after it fails. A failed lookup is no answer: were it read as "not committed", every
 * request of the batch would be decided again, spending twice and answering an Idempotency-Key with
 * a decision other than the one the key stores. The batch records its transaction id and asks
 * `txid_status` until the database answers. The app runs the real `groupDecisions` over a driver
 * that loses the COMMIT's reply (test/support/lossy-commit.ts); the database is real.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';
import { lossyCommits, type CommitLoss } from '../support/lossy-commit.js';

const lossy = lossyCommits();
let ctx: TestContext;
let acct: TestAccount;

beforeAll(async () => {
  // A linger long enough for the two requests to meet in one batch; one batch at a time.
  ctx = await createTestContext({ testModeRateLimit: 1_000_000, ownDatabase: true, wrapDriver: (d) => lossy.wrap(d), authorizeBatch: { size: 64, lingerMs: 200, inFlight: 1 } });
  acct = await ctx.account('growth');
});
afterAll(() => ctx?.close());

async function spendTwice(loss: CommitLoss, failedLookups: number) {
  const policy = await acct.test.post('/v1/policies', policyBody({ budget_monthly: 1_000, budget_single_max: 1_000 }));
  const agentId = (await acct.test.post('/v1/agents', { name: 'buyer', policy_id: policy.body.id })).body.id as string;
  const key = `lost-commit-${agentId}`;
  const body = (amount: number) => ({ agent_id: agentId, amount, currency: 'USD', vendor: 'openai.com' });
  const lostBefore = lossy.lost;
  const failedBefore = lossy.failed;
  lossy.arm(loss, failedLookups);
  const [keyed, plain] = await Promise.all([acct.test.post('/v1/authorize', body(300), { 'Idempotency-Key': key }), acct.test.post('/v1/authorize', body(200))]);
  // The two met in one batch, and its COMMIT's answer was lost as asked.
  expect(lossy.lost - lostBefore).toBe(1);
  expect(lossy.failed - failedBefore).toBe(failedLookups);
  expect([keyed.status, plain.status]).toEqual([200, 200]);
  expect([keyed.body.decision, plain.body.decision]).toEqual(['approved', 'approved']);

  const stored = await sql<{ id: string; amount: number }>`SELECT id, amount FROM decisions WHERE agent_id = ${agentId} ORDER BY amount DESC`.execute(ctx.database.db);
  // One decision per request, and each is the one its client was answered with.
  expect(stored.rows.map((r) => r.id)).toEqual([keyed.body.decision_id, plain.body.decision_id]);
  const spend = await sql<{ approved: number }>`SELECT approved FROM agent_spend WHERE agent_id = ${agentId} AND period LIKE 'M:%'`.execute(ctx.database.db);
  expect(spend.rows.map((r) => Number(r.approved))).toEqual([500]);
  const records = await sql<{ n: number }>`SELECT count(*)::int AS n FROM audit_records WHERE agent_id = ${agentId} AND type = 'authorization.decision'`.execute(ctx.database.db);
  expect(records.rows[0]!.n).toBe(2);
  // The key stores the decision its client was given.
  const replay = await acct.test.post('/v1/authorize', body(300), { 'Idempotency-Key': key });
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.body).toEqual(keyed.body);
}

test('a COMMIT that committed but whose answer was lost, then a lookup that fails: each request decided once, 500 spent, the keyed answer is the stored one', async () => {
  await spendTwice({ kind: 'committed' }, 1);
});

test('a COMMIT that never reached the database, then a lookup that fails: each request decided again, once', async () => {
  await spendTwice({ kind: 'rolled-back' }, 1);
});

test('a COMMIT whose answer was lost and that is still in progress when asked: its answers stand, nothing is decided again', async () => {
  await spendTwice({ kind: 'late', delayMs: 400 }, 0);
});

test('the audit chain still verifies', async () => {
  expect((await acct.test.get('/v1/audit-logs/verify')).body.valid).toBe(true);
});
