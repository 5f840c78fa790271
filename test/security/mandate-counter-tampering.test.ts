/**
 * Attack: an insider with the database owner's rights (but not the audit key) edits a mandate's
 * counters (DECISIONS §20) so that it can be spent again: `uses` or `budget_used` lowered (by
 * deleting the row and inserting it again, since the immutability trigger refuses a decrease),
 * or raised, or a decision's `mandate` rewritten so that an approval counts under another mandate,
 * under none, or under a mandate of another account. Verify recomputes each mandate's counters
 * from the decisions approved under it and reports kind `mandate`; an untouched ledger stays valid.
 *
 * The mandates and their decisions are written with SQL here, not through the mandate routes: each
 * decision is made by `POST /v1/authorize` (so its audit record and the agent's spend counters are
 * real) and then named as a mandate's with the `decisions.mandate` reference the verify path
 * writes. Runs on the embedded database and, with DATABASE_URL, on PostgreSQL.
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newId } from '../../src/kernel/ids.js';
import { agentWithPolicy, createTestContext, type Client, type TestContext } from '../support/context.js';
import { newAgentKey, registerKeyDirect } from '../support/agent-signing.js';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
}, 180_000);
afterAll(() => ctx?.close());

const db = () => ctx.database.db;
const asInsider = (statement: ReturnType<typeof sql>) => statement.execute(db());

const authorize = async (client: Client, agentId: string, amount: number) => {
  const res = await client.post('/v1/authorize', { agent_id: agentId, amount, currency: 'USD', vendor: 'cats.example' });
  expect(res.status, res.text).toBe(200);
  return res.body as { decision_id: string; decision: string };
};

/** A mandate row as the resource writes it; the credential is a stand-in (the ledger check never reads it). */
async function insertMandate(agentId: string, agentKeyId: string, row: { single_use: boolean; uses: number; budget_used: number; budget_minor?: number; max_occurrences?: number }) {
  const agent = await db().selectFrom('agents').select(['account_id', 'livemode']).where('id', '=', agentId).executeTakeFirstOrThrow();
  const id = newId('mdt');
  const now = new Date();
  await db()
    .insertInto('mandates')
    .values({
      id,
      account_id: agent.account_id,
      livemode: agent.livemode,
      agent_id: agentId,
      agent_key_id: agentKeyId,
      status: row.single_use && row.uses > 0 ? 'used' : 'active',
      credential: 'stand-in~',
      open_mandate: JSON.stringify({ vct: 'mandate.payment.open.1', constraints: [] }),
      signing_kid: 'test-kid',
      currency: 'USD',
      category: null,
      single_use: row.single_use,
      max_occurrences: row.max_occurrences ?? null,
      budget_minor: row.budget_minor ?? null,
      uses: row.uses,
      budget_used: row.budget_used,
      last_used_at: row.uses > 0 ? now : null,
      expires_at: new Date(now.getTime() + 3_600_000),
      revoked_at: null,
      created_at: now,
    })
    .execute();
  return id;
}

/** Names a decision as made by a presentation of `mandateId`, as the verify path writes `decisions.mandate`. */
const underMandate = (decisionId: string, mandateId: string) =>
  asInsider(sql`UPDATE decisions SET mandate = ${JSON.stringify({ id: mandateId, reference: createHash('sha256').update(decisionId).digest('base64url'), transaction_id: decisionId })}::jsonb WHERE id = ${decisionId}`);

/**
 * An agent with three mandates whose counters match their decisions: a recurring one with three
 * approvals (one captured, one voided, one left uncaptured: voids free the agent's budget, not the
 * mandate's) and a denial (counts nothing); a single-use one, used; and one never used. Verify
 * answers valid before any tampering.
 */
async function agentWithMandates() {
  const a = await ctx.account();
  const { agentId } = await agentWithPolicy(a.test, { budget_single_max: 20_000 });
  const key = await registerKeyDirect(db(), agentId, await newAgentKey('ecdsa-p256-sha256'));

  const captured = await authorize(a.test, agentId, 1_000);
  expect((await a.test.post(`/v1/decisions/${captured.decision_id}/capture`, { amount: 400 })).status).toBe(200);
  const voided = await authorize(a.test, agentId, 2_000);
  expect((await a.test.post(`/v1/decisions/${voided.decision_id}/void`)).status).toBe(200);
  const open = await authorize(a.test, agentId, 500);
  const denied = await authorize(a.test, agentId, 50_000);
  expect(denied.decision).toBe('denied');
  const single = await authorize(a.test, agentId, 700);

  const recurring = await insertMandate(agentId, key.id, { single_use: false, uses: 3, budget_used: 3_500, budget_minor: 10_000, max_occurrences: 5 });
  const used = await insertMandate(agentId, key.id, { single_use: true, uses: 1, budget_used: 700 });
  const unused = await insertMandate(agentId, key.id, { single_use: false, uses: 0, budget_used: 0, budget_minor: 5_000 });
  for (const d of [captured, voided, open, denied]) await underMandate(d.decision_id, recurring);
  await underMandate(single.decision_id, used);

  const before = await a.test.get('/v1/audit-logs/verify');
  expect(before.status).toBe(200);
  expect(before.body).toMatchObject({ valid: true, decisions_without_record: 0, ledger_mismatches: 0, ledger_mismatch_examples: [] });
  return { a, agentId, keyId: key.id, recurring, used, unused, captured, voided, open, denied, single };
}

const verify = async (client: Client) => {
  const res = await client.get('/v1/audit-logs/verify');
  expect(res.status).toBe(200);
  return res.body as { valid: boolean; first_invalid: unknown; ledger_mismatches: number; ledger_mismatch_examples: Array<{ kind: string; id: string }> };
};

test('an untouched ledger of mandates stays valid, and a void changes nothing of it', async () => {
  const { a, open } = await agentWithMandates();
  expect((await a.test.post(`/v1/decisions/${open.decision_id}/void`)).status).toBe(200);
  expect(await verify(a.test)).toMatchObject({ valid: true, ledger_mismatches: 0, ledger_mismatch_examples: [] });
});

describe("a mandate's counters changed by hand", () => {
  test('lowered: the trigger refuses the UPDATE; deleted and inserted again with less, verify names the mandate', async () => {
    const { a, recurring } = await agentWithMandates();
    // The table refuses a decrease outright...
    await expect(asInsider(sql`UPDATE mandates SET uses = 2, budget_used = 1500 WHERE id = ${recurring}`)).rejects.toThrow(/mandates/);
    // ...so the insider writes the row again, as if the voided approval had given its amount back.
    await db().transaction().execute(async (trx) => {
      const row = await trx.selectFrom('mandates').selectAll().where('id', '=', recurring).executeTakeFirstOrThrow();
      await trx.deleteFrom('mandates').where('id', '=', recurring).execute();
      await trx
        .insertInto('mandates')
        .values({ ...row, open_mandate: JSON.stringify(row.open_mandate), metadata: JSON.stringify(row.metadata), uses: 2, budget_used: 1_500 } as never)
        .execute();
    });

    const res = await verify(a.test);
    // The chain itself is intact: only the books tell.
    expect(res).toMatchObject({ valid: false, first_invalid: null, ledger_mismatches: 1 });
    expect(res.ledger_mismatch_examples).toEqual([{ kind: 'mandate', id: recurring, expected: { uses: 3, budget_used: 3_500 }, found: { uses: 2, budget_used: 1_500 } }]);
  });

  test('raised: verify names the mandate with both sums', async () => {
    const { a, unused, used } = await agentWithMandates();
    await asInsider(sql`UPDATE mandates SET uses = 1, budget_used = 5000, status = 'active' WHERE id = ${unused}`);
    await asInsider(sql`UPDATE mandates SET budget_used = budget_used + 1 WHERE id = ${used}`);

    const res = await verify(a.test);
    expect(res).toMatchObject({ valid: false, ledger_mismatches: 2 });
    expect(res.ledger_mismatch_examples).toEqual(
      [
        { kind: 'mandate', id: unused, expected: { uses: 0, budget_used: 0 }, found: { uses: 1, budget_used: 5_000 } },
        { kind: 'mandate', id: used, expected: { uses: 1, budget_used: 700 }, found: { uses: 1, budget_used: 701 } },
      ].sort((x, y) => (x.id < y.id ? -1 : 1)),
    );
  });
});

describe("a decision's mandate rewritten", () => {
  test('moved to another mandate: both mandates are named', async () => {
    const { a, recurring, unused, open } = await agentWithMandates();
    await underMandate(open.decision_id, unused);

    const res = await verify(a.test);
    expect(res).toMatchObject({ valid: false, first_invalid: null, ledger_mismatches: 2 });
    expect(res.ledger_mismatch_examples).toEqual(
      expect.arrayContaining([
        { kind: 'mandate', id: recurring, expected: { uses: 2, budget_used: 3_000 }, found: { uses: 3, budget_used: 3_500 } },
        { kind: 'mandate', id: unused, expected: { uses: 1, budget_used: 500 }, found: { uses: 0, budget_used: 0 } },
      ]),
    );
    // Nothing else moved: the decisions match their records and the agent's counters.
    expect(res.ledger_mismatch_examples.every((e) => e.kind === 'mandate')).toBe(true);
  });

  test('removed (the approval counted under no mandate): the mandate is named', async () => {
    const { a, used, single } = await agentWithMandates();
    await asInsider(sql`UPDATE decisions SET mandate = NULL WHERE id = ${single.decision_id}`);
    const res = await verify(a.test);
    expect(res).toMatchObject({ valid: false, ledger_mismatches: 1 });
    expect(res.ledger_mismatch_examples).toEqual([{ kind: 'mandate', id: used, expected: { uses: 0, budget_used: 0 }, found: { uses: 1, budget_used: 700 } }]);
  });

  test("a denial named as another mandate's counts nothing; an approval named as another account's mandate is named with found null, and that account stays valid", async () => {
    const { a, used, unused, single, denied } = await agentWithMandates();
    await underMandate(denied.decision_id, unused);
    expect(await verify(a.test)).toMatchObject({ valid: true, ledger_mismatches: 0 });

    const other = await agentWithMandates();
    await underMandate(single.decision_id, other.unused);

    const res = await verify(a.test);
    expect(res).toMatchObject({ valid: false, ledger_mismatches: 2 });
    expect(res.ledger_mismatch_examples).toEqual(
      expect.arrayContaining([
        { kind: 'mandate', id: used, expected: { uses: 0, budget_used: 0 }, found: { uses: 1, budget_used: 700 } },
        { kind: 'mandate', id: other.unused, expected: { uses: 1, budget_used: 700 }, found: { uses: null, budget_used: null } },
      ]),
    );
    // The other account's books are its own decisions only.
    expect(await verify(other.a.test)).toMatchObject({ valid: true, ledger_mismatches: 0 });
  });
});

test("the other mode's mandates are not this mode's: a test-mode mandate tampered leaves live mode valid", async () => {
  const { a, unused } = await agentWithMandates();
  await asInsider(sql`UPDATE mandates SET uses = 4 WHERE id = ${unused}`);
  expect(await verify(a.test)).toMatchObject({ valid: false, ledger_mismatches: 1 });
  expect(a.live).toBeDefined();
  expect(await verify(a.live!)).toMatchObject({ valid: true, ledger_mismatches: 0 });
});

test('counted with the other books: examples list decisions, then spend counters, then mandates', async () => {
  const { a, agentId, recurring, open } = await agentWithMandates();
  // The approval's amount lowered alone: its record, both of the agent's counters and its mandate disagree.
  await asInsider(sql`UPDATE decisions SET amount = 1 WHERE id = ${open.decision_id}`);
  const res = await verify(a.test);
  expect(res).toMatchObject({ valid: false, ledger_mismatches: 4 });
  expect(res.ledger_mismatch_examples.map((e) => [e.kind, e.id])).toEqual([
    ['decision', open.decision_id],
    ['spend', agentId],
    ['spend', agentId],
    ['mandate', recurring],
  ]);
  expect(res.ledger_mismatch_examples[3]).toMatchObject({ expected: { uses: 3, budget_used: 3_001 }, found: { uses: 3, budget_used: 3_500 } });
});
