/**
 * Attack: an insider with the database owner's rights (but not the audit key) edits the books
 * without touching the audit chain: zeroes an agent's spend counter (its budget is free again),
 * lowers a decision's amount, or moves it to another vendor, or turns a denial into an approval.
 * The chain still verifies, so before, verify answered `valid: true`. Now verify compares the
 * decisions with their sealed records and the counters with the sum recomputed from the decisions
 * (`ledger_mismatches`). Runs on the embedded database and, with DATABASE_URL, on PostgreSQL.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { resolveHeldDecision } from '../../src/approvals/resolution.service.js';
import { agentWithPolicy, createTestContext, type Client, type TestContext } from '../support/context.js';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
}, 180_000);
afterAll(() => ctx?.close());

const db = () => ctx.database.db;

/** The insider's SQL, as the table owner: plain UPDATEs of the decisions and the counters (no audit record changes). */
const asInsider = (statement: ReturnType<typeof sql>) => statement.execute(db());

const authorize = async (client: Client, agentId: string, amount: number, vendor = 'shop.example') => {
  const res = await client.post('/v1/authorize', { agent_id: agentId, amount, currency: 'USD', vendor });
  expect(res.status, res.text).toBe(200);
  return res.body as { decision_id: string; decision: string };
};

/**
 * An agent whose books hold every kind of movement: an approval captured in part, one voided, one
 * left uncaptured, a denial, a hold approved, a hold denied and a hold still pending. Verify
 * answers valid before any tampering.
 */
async function agentWithBooks() {
  const a = await ctx.account();
  const { agentId } = await agentWithPolicy(a.test, { require_approval_above: 5_000, budget_single_max: 20_000 });
  const partly = await authorize(a.test, agentId, 1_000);
  expect((await a.test.post(`/v1/decisions/${partly.decision_id}/capture`, { amount: 400 })).status).toBe(200);
  const voided = await authorize(a.test, agentId, 2_000);
  expect((await a.test.post(`/v1/decisions/${voided.decision_id}/void`)).status).toBe(200);
  const open = await authorize(a.test, agentId, 700);
  const denied = await authorize(a.test, agentId, 50_000);
  expect(denied.decision).toBe('denied');
  const resolve = async (outcome: 'approved' | 'denied') => {
    const held = await authorize(a.test, agentId, 6_000);
    expect(held.decision).toBe('held');
    await resolveHeldDecision({ db: db(), signer: ctx.signer }, { decisionId: held.decision_id, outcome, resolvedBy: 'key_r', actor: { type: 'reviewer', id: 'key_r' } });
    return held;
  };
  const heldApproved = await resolve('approved');
  const heldDenied = await resolve('denied');
  const pending = await authorize(a.test, agentId, 7_000);
  expect(pending.decision).toBe('held');

  const before = await a.test.get('/v1/audit-logs/verify');
  expect(before.body).toMatchObject({ valid: true, decisions_without_record: 0, ledger_mismatches: 0, ledger_mismatch_examples: [] });
  // 400 captured + 700 uncaptured + 6,000 approved on hold; 7,000 reserved.
  const month = (await db().selectFrom('agent_spend').selectAll().where('agent_id', '=', agentId).where('period', 'like', 'M:%').executeTakeFirstOrThrow());
  expect({ approved: Number(month.approved), reserved: Number(month.reserved) }).toEqual({ approved: 7_100, reserved: 7_000 });
  return { a, agentId, month: month.period, partly, open, denied, heldApproved, heldDenied, pending };
}

describe('an agent spend counter changed by hand', () => {
  test('zeroed: verify answers invalid, naming the agent, its periods and both sums', async () => {
    const { a, agentId, month } = await agentWithBooks();
    await asInsider(sql`UPDATE agent_spend SET approved = 0 WHERE agent_id = ${agentId}`);

    const res = await a.test.get('/v1/audit-logs/verify');
    expect(res.status).toBe(200);
    // The chain itself is intact: only the books tell.
    expect(res.body).toMatchObject({ valid: false, first_invalid: null, decisions_without_record: 0, ledger_mismatches: 2 });
    expect(res.body.ledger_mismatch_examples).toContainEqual({
      kind: 'spend',
      id: agentId,
      expected: { period: month, approved: 7_100, reserved: 7_000 },
      found: { period: month, approved: 0, reserved: 7_000 },
    });
    expect(res.body.ledger_mismatch_examples.every((e: { kind: string }) => e.kind === 'spend')).toBe(true);
  });

  test('a pending hold’s reservation dropped, or a counter row deleted: invalid too', async () => {
    const { a, agentId } = await agentWithBooks();
    await asInsider(sql`UPDATE agent_spend SET reserved = 0 WHERE agent_id = ${agentId} AND period LIKE 'D:%'`);
    expect((await a.test.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: false, ledger_mismatches: 1, ledger_mismatch_examples: [{ kind: 'spend', id: agentId }] });

    const other = await agentWithBooks();
    await asInsider(sql`DELETE FROM agent_spend WHERE agent_id = ${other.agentId} AND period LIKE 'M:%'`);
    const res = await other.a.test.get('/v1/audit-logs/verify');
    expect(res.body).toMatchObject({ valid: false, ledger_mismatches: 1 });
    expect(res.body.ledger_mismatch_examples[0]).toEqual({
      kind: 'spend',
      id: other.agentId,
      expected: { period: other.month, approved: 7_100, reserved: 7_000 },
      found: { period: other.month, approved: 0, reserved: 0 },
    });
  });
});

describe("a decision's fields changed by hand", () => {
  test("its amount lowered, with the counter lowered to match: the decision differs from its record", async () => {
    const { a, agentId, open } = await agentWithBooks();
    await asInsider(sql`UPDATE decisions SET amount = 1 WHERE id = ${open.decision_id}`);
    await asInsider(sql`UPDATE agent_spend SET approved = approved - 699 WHERE agent_id = ${agentId}`);

    const res = await a.test.get('/v1/audit-logs/verify');
    expect(res.body).toMatchObject({ valid: false, first_invalid: null, ledger_mismatches: 1 });
    expect(res.body.ledger_mismatch_examples).toEqual([{ kind: 'decision', id: open.decision_id, expected: { amount: 700 }, found: { amount: 1 } }]);
  });

  test('its amount lowered alone: the decision and both of its counters are named', async () => {
    const { a, open } = await agentWithBooks();
    await asInsider(sql`UPDATE decisions SET amount = 1 WHERE id = ${open.decision_id}`);
    const res = await a.test.get('/v1/audit-logs/verify');
    expect(res.body).toMatchObject({ valid: false, ledger_mismatches: 3 });
    expect(res.body.ledger_mismatch_examples.map((e: { kind: string }) => e.kind)).toEqual(['decision', 'spend', 'spend']);
  });

  test('its vendor changed', async () => {
    const { a, partly } = await agentWithBooks();
    await asInsider(sql`UPDATE decisions SET vendor = 'elsewhere.example' WHERE id = ${partly.decision_id}`);
    const res = await a.test.get('/v1/audit-logs/verify');
    expect(res.body).toMatchObject({ valid: false, ledger_mismatches: 1 });
    expect(res.body.ledger_mismatch_examples).toEqual([
      { kind: 'decision', id: partly.decision_id, expected: { vendor: 'shop.example' }, found: { vendor: 'elsewhere.example' } },
    ]);
  });

  test('its currency or agent changed', async () => {
    const { a, partly, open } = await agentWithBooks();
    const { agentId: otherAgent } = await agentWithPolicy(a.test);
    await asInsider(sql`UPDATE decisions SET currency = 'EUR' WHERE id = ${partly.decision_id}`);
    await asInsider(sql`UPDATE decisions SET agent_id = ${otherAgent} WHERE id = ${open.decision_id}`);
    const res = await a.test.get('/v1/audit-logs/verify');
    expect(res.body.valid).toBe(false);
    expect(res.body.ledger_mismatch_examples).toContainEqual({ kind: 'decision', id: partly.decision_id, expected: { currency: 'USD' }, found: { currency: 'EUR' } });
    expect(res.body.ledger_mismatch_examples).toContainEqual(expect.objectContaining({ kind: 'decision', id: open.decision_id, found: { agent_id: otherAgent } }));
  });

  test('a denial turned into an approval, and a hold approved by a reviewer turned into a denial, counters made to match', async () => {
    const { a, agentId, denied, heldApproved } = await agentWithBooks();
    await asInsider(sql`UPDATE decisions SET decision = 'approved', status = 'approved', capture_status = 'captured', captured_amount = 50000 WHERE id = ${denied.decision_id}`);
    await asInsider(sql`UPDATE decisions SET decision = 'denied', status = 'denied', capture_status = NULL WHERE id = ${heldApproved.decision_id}`);
    await asInsider(sql`UPDATE agent_spend SET approved = approved + 50000 - 6000 WHERE agent_id = ${agentId}`);

    const res = await a.test.get('/v1/audit-logs/verify');
    expect(res.body).toMatchObject({ valid: false, ledger_mismatches: 2 });
    expect(res.body.ledger_mismatch_examples).toEqual(
      expect.arrayContaining([
        // The capture the records state goes with the outcome: none for a denial, uncaptured for an approval no record settled.
        { kind: 'decision', id: denied.decision_id, expected: { decision: 'denied', capture_status: null, captured_amount: null }, found: { decision: 'approved', capture_status: 'captured', captured_amount: 50000 } },
        // The approval is the latest outcome its records state (its approval.completed record).
        { kind: 'decision', id: heldApproved.decision_id, expected: { decision: 'approved', capture_status: 'uncaptured' }, found: { decision: 'denied', capture_status: null } },
      ]),
    );
  });
});

test('no more than 10 examples, however many mismatches', async () => {
  const a = await ctx.account();
  const { agentId } = await agentWithPolicy(a.test);
  for (let i = 0; i < 12; i++) await authorize(a.test, agentId, 100 + i);
  await asInsider(sql`UPDATE decisions SET vendor = 'elsewhere.example' WHERE agent_id = ${agentId}`);
  const res = await a.test.get('/v1/audit-logs/verify');
  expect(res.body).toMatchObject({ valid: false, ledger_mismatches: 12 });
  expect(res.body.ledger_mismatch_examples).toHaveLength(10);
});
