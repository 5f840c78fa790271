/**
 * Attack: an insider with the database owner's rights (but not the audit key) edits a mandate's
 * counters (DECISIONS §20) so that it can be spent again: `uses` or `budget_used` lowered (by
 * deleting the row and inserting it again, since the immutability trigger refuses a decrease),
 * or raised, or a decision's `mandate` rewritten so that an approval counts under another mandate,
 * under none, or under a mandate of another account. Verify recomputes each mandate's counters
 * from the decisions approved under it and reports kind `mandate`; an untouched ledger stays valid.
 *
 * The mandates are written with SQL here, not through the mandate routes, and their decisions are
 * made by `decideMandate` with a stand-in for the verify service's request (no SD-JWT): each
 * decision, its sealed record (which names the mandate), the agent's spend counters and the
 * mandate's counters are the service's own. A decision's mandate rewritten by hand is then named
 * twice: the decision (its sealed record names another mandate, DECISIONS §7) and the counters.
 * Runs on the embedded database and, with DATABASE_URL, on PostgreSQL.
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { decideMandate } from '../../src/authorization/authorization.service.js';
import { DecisionWaiter } from '../../src/authorization/decision-waiter.js';
import type { MandateRequest } from '../../src/authorization/mandate-request.js';
import { readSpend } from '../../src/decisions/spend.repository.js';
import type { Caller } from '../../src/kernel/caller.js';
import { newId } from '../../src/kernel/ids.js';
import { countMandateUse, presentationInsert } from '../../src/mandates/presentations.repository.js';
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

let presented = 0;
/**
 * A decision made by a presentation of `mandateId`, as the verify path makes it: decided under the
 * agent's and the mandate's locks, the mandate's counters and the presentation written with it.
 */
async function decideUnder(a: { id: string }, agentId: string, mandateId: string, amount: number) {
  const caller: Caller = { accountId: a.id, livemode: false, keyId: newId('key'), role: 'admin', agentId: null, plan: 'growth', rateLimit: null };
  const n = ++presented;
  const ref = { id: mandateId, reference: `ref-${n}-${Date.now()}`, transaction_id: `txn-${n}-${Date.now()}` };
  const request: MandateRequest = {
    ref,
    closedDigest: `digest-${ref.reference}`,
    async check(trx, agent, _now, periods) {
      return { refusal: undefined, spend: await readSpend(trx, agent, periods) };
    },
    record(view) {
      const at = new Date(view.timestamp);
      return [
        view.decision === 'approved' && countMandateUse(db(), mandateId, amount, at, 'used'),
        presentationInsert({
          reference: ref.reference,
          closed_digest: `digest-${ref.reference}`,
          account_id: a.id,
          livemode: false,
          mandate_id: mandateId,
          transaction_id: ref.transaction_id,
          decision_id: view.decision_id,
          outcome: view.decision === 'approved' ? 'approved' : 'denied',
          response_sealed: 'stand-in',
          created_at: at,
        }),
      ];
    },
  };
  const view = await decideMandate({ db: db(), signer: ctx.signer, waiter: new DecisionWaiter() }, caller, { agent_id: agentId, amount, currency: 'USD', vendor: 'cats.example' }, request);
  return { decision_id: view.decision_id, decision: view.decision };
}

/** Names a decision as made by a presentation of `mandateId`, by hand: the `decisions.mandate` reference the verify path writes. */
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

  const recurring = await insertMandate(agentId, key.id, { single_use: false, uses: 0, budget_used: 0, budget_minor: 10_000, max_occurrences: 5 });
  const used = await insertMandate(agentId, key.id, { single_use: true, uses: 0, budget_used: 0 });
  const unused = await insertMandate(agentId, key.id, { single_use: false, uses: 0, budget_used: 0, budget_minor: 5_000 });

  const captured = await decideUnder(a, agentId, recurring, 1_000);
  expect((await a.test.post(`/v1/decisions/${captured.decision_id}/capture`, { amount: 400 })).status).toBe(200);
  const voided = await decideUnder(a, agentId, recurring, 2_000);
  expect((await a.test.post(`/v1/decisions/${voided.decision_id}/void`)).status).toBe(200);
  const open = await decideUnder(a, agentId, recurring, 500);
  const denied = await decideUnder(a, agentId, recurring, 50_000);
  expect(denied.decision).toBe('denied');
  const single = await decideUnder(a, agentId, used, 700);
  expect(await db().selectFrom('mandates').select(['uses', 'budget_used', 'status']).where('id', 'in', [recurring, used]).orderBy('single_use').execute()).toEqual([
    { uses: 3, budget_used: 3_500, status: 'active' },
    { uses: 1, budget_used: 700, status: 'used' },
  ]);

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
      // Its presentations refer to it: they are put back as they were.
      const presentations = await trx.selectFrom('mandate_presentations').selectAll().where('mandate_id', '=', recurring).execute();
      await trx.deleteFrom('mandate_presentations').where('mandate_id', '=', recurring).execute();
      await trx.deleteFrom('mandates').where('id', '=', recurring).execute();
      await trx
        .insertInto('mandates')
        .values({ ...row, open_mandate: JSON.stringify(row.open_mandate), metadata: JSON.stringify(row.metadata), uses: 2, budget_used: 1_500 } as never)
        .execute();
      await trx.insertInto('mandate_presentations').values(presentations).execute();
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
    expect(res).toMatchObject({ valid: false, first_invalid: null, ledger_mismatches: 3 });
    expect(res.ledger_mismatch_examples).toEqual([
      // The decision's sealed record names the mandate it was made under.
      { kind: 'decision', id: open.decision_id, expected: { mandate_id: recurring }, found: { mandate_id: unused } },
      ...[
        { kind: 'mandate', id: recurring, expected: { uses: 2, budget_used: 3_000 }, found: { uses: 3, budget_used: 3_500 } },
        { kind: 'mandate', id: unused, expected: { uses: 1, budget_used: 500 }, found: { uses: 0, budget_used: 0 } },
      ].sort((x, y) => (x.id < y.id ? -1 : 1)),
    ]);
  });

  test('removed (the approval counted under no mandate): the mandate is named', async () => {
    const { a, used, single } = await agentWithMandates();
    await asInsider(sql`UPDATE decisions SET mandate = NULL WHERE id = ${single.decision_id}`);
    const res = await verify(a.test);
    expect(res).toMatchObject({ valid: false, ledger_mismatches: 2 });
    expect(res.ledger_mismatch_examples).toEqual([
      { kind: 'decision', id: single.decision_id, expected: { mandate_id: used }, found: { mandate_id: null } },
      { kind: 'mandate', id: used, expected: { uses: 0, budget_used: 0 }, found: { uses: 1, budget_used: 700 } },
    ]);
  });

  test("a use unlinked with the mandate's counters lowered to match (owner, the row written again): the decision is named by its sealed record", async () => {
    const { a, used, single } = await agentWithMandates();
    await db().transaction().execute(async (trx) => {
      await sql`UPDATE decisions SET mandate = NULL WHERE id = ${single.decision_id}`.execute(trx);
      const row = await trx.selectFrom('mandates').selectAll().where('id', '=', used).executeTakeFirstOrThrow();
      const presentations = await trx.selectFrom('mandate_presentations').selectAll().where('mandate_id', '=', used).execute();
      await trx.deleteFrom('mandate_presentations').where('mandate_id', '=', used).execute();
      await trx.deleteFrom('mandates').where('id', '=', used).execute();
      await trx
        .insertInto('mandates')
        .values({ ...row, open_mandate: JSON.stringify(row.open_mandate), metadata: JSON.stringify(row.metadata), uses: 0, budget_used: 0, status: 'active', last_used_at: null } as never)
        .execute();
      await trx.insertInto('mandate_presentations').values(presentations).execute();
    });
    // The mandate's counters and the decisions now agree; the sealed record does not.
    const res = await verify(a.test);
    expect(res).toMatchObject({ valid: false, first_invalid: null, ledger_mismatches: 1 });
    expect(res.ledger_mismatch_examples).toEqual([{ kind: 'decision', id: single.decision_id, expected: { mandate_id: used }, found: { mandate_id: null } }]);
  });

  test("a denial named as another mandate's: the decision is named, no counter; an approval named as another account's mandate is named with found null, and that account stays valid", async () => {
    const { a, recurring, used, unused, single, denied } = await agentWithMandates();
    await underMandate(denied.decision_id, unused);
    const first = await verify(a.test);
    expect(first).toMatchObject({ valid: false, ledger_mismatches: 1 });
    expect(first.ledger_mismatch_examples).toEqual([{ kind: 'decision', id: denied.decision_id, expected: { mandate_id: recurring }, found: { mandate_id: unused } }]);

    const other = await agentWithMandates();
    await underMandate(single.decision_id, other.unused);

    const res = await verify(a.test);
    expect(res).toMatchObject({ valid: false, ledger_mismatches: 4 });
    expect(res.ledger_mismatch_examples).toEqual(
      expect.arrayContaining([
        { kind: 'decision', id: single.decision_id, expected: { mandate_id: used }, found: { mandate_id: other.unused } },
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
