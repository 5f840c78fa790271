/**
 * Attack on the velocity and duplicate rules (DECISIONS §14): a decision that is committed before a
 * request is read, but stamped later than that request's clock, must still count. Two ways it was
 * not:
 * - group commit: a quick-start request with an Idempotency-Key is decided inside the batch on the
 *   locked path, which read its own, later clock, while the next member of the same agent was
 *   decided with the batch's earlier one, so its `created_at <= now` queries missed it (velocity
 *   `max_count: 1` approved both; `duplicate_window_seconds` held neither). One clock per batch.
 * - the one-by-one path, unlocked, takes its clock before its read: with `serve --workers N`,
 *   another process's decision stamped after that clock but committed before the read escaped the
 *   windows. Here the reader's clock is set back a few seconds to make that order certain. The
 *   windows now have no upper bound: what is committed before the read counts.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { batchMetrics } from '../support/batch-metrics.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';

const VENDOR = 'instacart.com';

let ctx: TestContext;
let acct: TestAccount;
/** How far this process's clock is behind the one that stamped an earlier decision (second part). */
let behindMs = 0;
/** Called when the app has looked up a vault by its token (the quick-start request is then on its way into the batch). */
let onVaultLookup: (() => void) | undefined;

beforeAll(async () => {
  // AUTHORIZE_BATCH_LINGER_MS=300: requests sent a moment apart meet in one batch; a lone one is
  // still decided on the one-by-one path.
  ctx = await createTestContext({ testModeRateLimit: 1_000_000, now: () => new Date(Date.now() - behindMs),
    onQuery: (text) => {
      if (text.includes('from "vaults" where "token_hash"')) onVaultLookup?.();
    },
    authorizeBatch: { size: 64, lingerMs: 300, inFlight: 1 } });
  acct = await ctx.account('growth');
});
afterAll(() => ctx?.close());

describe('a batch decides every member with one clock', () => {

  /** An agent with a quick-start vault whose policy also has `rules`. */
  async function vaultWith(rules: Record<string, unknown>) {
    const agentId = (await acct.test.post('/agents', { name: 'shopper' })).body.id as string;
    const vault = await acct.test.post('/vaults', { name: 'Groceries', agent_id: agentId, daily_limit: 100, max_single_transaction: 40 });
    expect(vault.status, vault.text).toBe(201);
    const patched = await acct.test.patch(`/v1/policies/${vault.body.policy_id}`, rules);
    expect(patched.status, patched.text).toBe(200);
    return { agentId, token: vault.body.token as string };
  }

  /** The quick-start request (keyed, so it takes the locked path inside the batch), then a /v1 request of the same agent in the same batch. */
  async function sameBatch(agentId: string, token: string) {
    const before = await batchMetrics(ctx);
    const looked = new Promise<void>((resolve) => (onVaultLookup = resolve));
    const quick = acct.test.post('/authorize', { token, amount: 10, merchant_name: VENDOR, merchant_category: 'groceries' }, { 'Idempotency-Key': `qs-${agentId}` });
    // It joins the batch right after its vault lookup: the /v1 request comes after it.
    await looked;
    onVaultLookup = undefined;
    const v1 = acct.test.post('/v1/authorize', { agent_id: agentId, amount: 1_000, currency: 'USD', vendor: VENDOR });
    const [q, v] = await Promise.all([quick, v1]);
    expect([q.status, v.status], `${q.text} ${v.text}`).toEqual([200, 200]);
    const after = await batchMetrics(ctx);
    // The two were one batch.
    expect(after.count - after.single - (before.count - before.single)).toBe(1);
    expect(after.sum - before.sum).toBe(2);
    const rows = await sql<{ decision: string; reason_code: string | null; idempotency_key: string | null }>`
      SELECT decision, reason_code, idempotency_key FROM decisions WHERE agent_id = ${agentId} ORDER BY idempotency_key NULLS LAST`.execute(ctx.database.db);
    return { quick: rows.rows[0]!, v1: rows.rows[1]!, v1Body: v.body };
  }

  test('velocity max_count 1: the keyed quick-start request is approved, the next one of the batch is denied', async () => {
    const { agentId, token } = await vaultWith({ velocity_limits: [{ window_seconds: 3600, max_count: 1 }] });
    const { quick, v1, v1Body } = await sameBatch(agentId, token);
    expect(quick).toMatchObject({ decision: 'approved' });
    expect(v1).toMatchObject({ decision: 'denied', reason_code: 'velocity_exceeded' });
    expect(v1Body).toMatchObject({ decision: 'denied', reason_code: 'velocity_exceeded' });
  });

  test('duplicate_window_seconds: the same spend without a key, in the same batch, is held as a suspected duplicate', async () => {
    const { agentId, token } = await vaultWith({ duplicate_window_seconds: 600 });
    const { quick, v1, v1Body } = await sameBatch(agentId, token);
    expect(quick).toMatchObject({ decision: 'approved' });
    expect(v1).toMatchObject({ decision: 'held', reason_code: 'duplicate_suspected' });
    expect(v1Body).toMatchObject({ decision: 'held', reason_code: 'duplicate_suspected' });
  });
});

describe('the one-by-one path counts a decision stamped after its clock but committed before its read', () => {
  afterAll(() => {
    behindMs = 0;
  });

  async function agentWith(rules: Record<string, unknown>) {
    const p = await acct.test.post('/v1/policies', policyBody({ budget_monthly: 1_000_000, budget_single_max: 10_000, ...rules }));
    expect(p.status, p.text).toBe(201);
    return (await acct.test.post('/v1/agents', { name: 'bot', policy_id: p.body.id })).body.id as string;
  }
  const spend = (agentId: string) => acct.test.post('/v1/authorize', { agent_id: agentId, amount: 1_000, currency: 'USD', vendor: VENDOR });

  test('velocity max_count 1', async () => {
    const agentId = await agentWith({ velocity_limits: [{ window_seconds: 3600, max_count: 1 }] });
    behindMs = 0;
    expect((await spend(agentId)).body.decision).toBe('approved');
    behindMs = 5_000;
    expect((await spend(agentId)).body).toMatchObject({ decision: 'denied', reason_code: 'velocity_exceeded' });
  });

  test('duplicate_window_seconds', async () => {
    const agentId = await agentWith({ duplicate_window_seconds: 600 });
    behindMs = 0;
    expect((await spend(agentId)).body.decision).toBe('approved');
    behindMs = 5_000;
    expect((await spend(agentId)).body).toMatchObject({ decision: 'held', reason_code: 'duplicate_suspected' });
  });
});
