/**
 * Attack: an agent key is revoked because it leaked, and its holder races to spend the mandates
 * bound to it. Revoked between closing and verifying: `invalid_credential` (DECISIONS §20 step 4).
 * Revoked while a verification is in flight: the revocation revokes the key's mandates in its own
 * transaction, and the verification takes the mandate's row lock before deciding, so it is either
 * approved before the revocation committed or refused (`mandate_inactive`), never approved after.
 * The deterministic version holds the agent's lock from another connection (PostgreSQL only); the
 * race runs on both databases.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { mandateFixture } from '../support/mandates.js';
import { decisionCount, presenting } from '../support/mandate-presenting.js';
import { until } from '../support/wait.js';

let ctx: TestContext;
let acct: TestAccount;
let p: ReturnType<typeof presenting>;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 10_000 });
  acct = await ctx.account('growth');
  p = presenting(ctx);
});
afterAll(() => ctx?.close());

const recurring = { mandate: { budget: 100_000, recurrence: { frequency: 'ON_DEMAND' } } };
const revoke = (fx: Awaited<ReturnType<typeof mandateFixture>>) => acct.test.delete(`/v1/agents/${fx.agentId}/keys/${fx.agentKeyId}`);

test('revoked between closing and verifying → invalid_credential, nothing recorded', async () => {
  const fx = await mandateFixture(acct.test, recurring);
  const presentation = await p.close(fx);
  expect((await revoke(fx)).status).toBe(200);
  const res = await p.verify(acct.test, fx, presentation);
  expect(res.body).toMatchObject({ status: 'Error', error: 'invalid_credential', mandate_id: fx.mandate.id, decision_id: null });
  expect(await decisionCount(ctx, fx.agentId)).toBe(0);
});

test.skipIf(!process.env.DATABASE_URL)('revoked while the verification waits for the agent lock → mandate_inactive', async () => {
  const fx = await mandateFixture(acct.test, recurring);
  const presentation = await p.close(fx);
  const holder = new pg.Client({ connectionString: ctx.databaseUrl });
  await holder.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('SELECT id FROM agents WHERE id = $1 FOR UPDATE', [fx.agentId]);
    const pending = p.verify(acct.test, fx, presentation);
    // The verification has passed steps 1–4 and waits for the agent's lock.
    await until('the verification waits for the agent lock', async () => {
      const { rows } = await holder.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database() AND pid <> pg_backend_pid()`);
      return rows[0].n > 0 ? true : undefined;
    }, 20_000);
    expect((await revoke(fx)).status).toBe(200);
    await holder.query('COMMIT');
    const res = await pending;
    expect(res.body).toMatchObject({ status: 'Error', error: 'invalid_mandate' });
    expect((await acct.test.get(`/v1/decisions/${res.body.decision_id}`)).body.reason_code).toBe('mandate_inactive');
  } finally {
    await holder.query('ROLLBACK').catch(() => undefined);
    await holder.end();
  }
});

test('a race of verifications and the revocation: approved before it committed, or refused; after it, always refused', async () => {
  const fx = await mandateFixture(acct.test, recurring);
  const presentations = await Promise.all(Array.from({ length: 12 }, () => p.close(fx)));
  // The first wave races the revocation; the second starts once its answer (and so its commit) is in.
  const racing = presentations.slice(0, 8).map((x) => p.verify(acct.test, fx, x));
  expect((await revoke(fx)).status).toBe(200);
  const after = await Promise.all(presentations.slice(8).map((x) => p.verify(acct.test, fx, x)));
  const raced = await Promise.all(racing);
  for (const a of raced) {
    expect(a.status).toBe(200);
    if (a.body.status !== 'Success') expect(['invalid_credential', 'invalid_mandate']).toContain(a.body.error);
  }
  for (const a of after) expect(a.body).toMatchObject({ status: 'Error', error: 'invalid_credential' });
  const mandate = (await acct.test.get(`/v1/mandates/${fx.mandate.id}`)).body;
  expect(mandate.status).toBe('revoked');
  // Every approval was counted on the mandate's row under its lock: none slipped past the revocation.
  expect(mandate.uses).toBe(raced.filter((a) => a.body.status === 'Success').length);
});
