/**
 * A mandate's state under concurrency and across time (DECISIONS §20, design §5.3): steps 3–9 run
 * in one transaction under the agent's lock and the mandate's, so presentations sent at once never
 * jointly pass a budget, a count or a single use; the same closed mandate sent at once is decided
 * once; recurrence periods are UTC calendar periods on a fake clock. A property test interleaves
 * verifications with authorize calls of the same agent. Runs on the embedded database, and on
 * PostgreSQL with DATABASE_URL.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closeMandate, type CloseMandateOptions } from '../../src/client/mandate-close.js';
import { createTestContext, type Client, type TestAccount, type TestContext } from '../support/context.js';
import { DEFAULT_PAYEE, mandateFixture } from '../support/mandates.js';

let ctx: TestContext;
let acct: TestAccount;
let admin: Client;
/** The service's clock: real time, or a fixed instant a test sets. */
let fixed: Date | undefined;
const clock = () => fixed ?? new Date();

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 1_000_000, now: clock });
  acct = await ctx.account('growth');
  admin = acct.test;
});
afterAll(() => ctx?.close());

type Fixture = Awaited<ReturnType<typeof mandateFixture>>;
const close = (fx: Fixture, over: Partial<CloseMandateOptions> = {}) =>
  closeMandate(fx.mandate.credential, {
    agentJwk: fx.privateJwk,
    transaction_id: randomBytes(16).toString('base64url'),
    payee: DEFAULT_PAYEE,
    payment_amount: { amount: 1_000, currency: 'USD' },
    payment_instrument: { id: 'card-1', type: 'card' },
    aud: ctx.signer.issuer,
    nonce: randomBytes(12).toString('base64url'),
    now: clock,
    ...over,
  });
const verify = (fx: Fixture, presentation: string) => admin.post('/v1/mandates/verify', { presentation, open_checkout_hash: fx.openCheckoutHash });
const mandateOf = async (fx: Fixture) => (await admin.get(`/v1/mandates/${fx.mandate.id}`)).body;

async function agentApproved(agentId: string): Promise<number> {
  const { rows } = await sql<{ n: string }>`SELECT coalesce(sum(amount), 0) AS n FROM decisions WHERE agent_id = ${agentId} AND decision = 'approved'`.execute(ctx.database.db);
  return Number(rows[0]!.n);
}

async function ledgerValid() {
  const res = await admin.get('/v1/audit-logs/verify');
  expect(res.body, res.text).toMatchObject({ valid: true });
}

describe('presentations at once', () => {
  test('50 closed mandates against a budget that fits 7: exactly 7 approved, the counters exact', async () => {
    const fx = await mandateFixture(admin, { policy: { budget_monthly: 1_000_000 }, mandate: { budget: 7 * 1_300 + 1_299, recurrence: { frequency: 'ON_DEMAND' } } });
    const presentations = await Promise.all(Array.from({ length: 50 }, () => close(fx, { payment_amount: { amount: 1_300, currency: 'USD' } })));
    const answers = await Promise.all(presentations.map((p) => verify(fx, p)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.body.status === 'Success')).toHaveLength(7);
    const refused = answers.filter((a) => a.body.status === 'Error');
    expect(refused).toHaveLength(43);
    for (const a of refused) {
      expect(a.body.error).toBe('invalid_mandate');
      expect(a.body.error_description).toMatch(/^payment\.budget: /);
    }
    const m = await mandateOf(fx);
    expect([m.uses, m.budget_used, m.status]).toEqual([7, 7 * 1_300, 'active']);
    expect(await agentApproved(fx.agentId)).toBe(7 * 1_300);
    const { rows } = await sql<{ approved: string }>`SELECT approved FROM agent_spend WHERE agent_id = ${fx.agentId} AND period LIKE 'M:%'`.execute(ctx.database.db);
    expect(Number(rows[0]!.approved)).toBe(7 * 1_300);
    await ledgerValid();
  }, 120_000);

  test('a single-use mandate, 20 different closed mandates at once: exactly one approved, the rest mandate_inactive', async () => {
    const fx = await mandateFixture(admin);
    const answers = await Promise.all((await Promise.all(Array.from({ length: 20 }, () => close(fx)))).map((p) => verify(fx, p)));
    expect(answers.filter((a) => a.body.status === 'Success')).toHaveLength(1);
    const decisions = await Promise.all(answers.filter((a) => a.body.status === 'Error').map((a) => admin.get(`/v1/decisions/${a.body.decision_id}`)));
    expect(decisions.map((d) => d.body.reason_code)).toEqual(Array(19).fill('mandate_inactive'));
    expect(await mandateOf(fx)).toMatchObject({ status: 'used', uses: 1, budget_used: 1_000 });
  }, 60_000);

  test('the same presentation 20 times at once: one decision, 20 identical bodies, 19 of them replays', async () => {
    const fx = await mandateFixture(admin, { mandate: { budget: 100_000, recurrence: { frequency: 'ON_DEMAND' } } });
    const p = await close(fx);
    const answers = await Promise.all(Array.from({ length: 20 }, () => verify(fx, p)));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers[0]!.body.status).toBe('Success');
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(19);
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM decisions WHERE agent_id = ${fx.agentId}`.execute(ctx.database.db);
    expect(Number(rows[0]!.n)).toBe(1);
    expect(await mandateOf(fx)).toMatchObject({ uses: 1, budget_used: 1_000 });
  }, 60_000);
});

describe('recurrence on a fake clock (UTC periods)', () => {
  const at = (iso: string) => {
    fixed = new Date(iso);
  };
  afterAll(() => {
    fixed = undefined;
  });

  async function recurring(frequency: string, start: string, extra: Record<string, unknown> = {}) {
    at(start);
    return mandateFixture(admin, { mandate: { budget: 1_000_000, amount_max: 10_000, recurrence: { frequency, ...extra }, expires_in: 31_622_400 } });
  }
  const payAt = async (fx: Fixture, iso: string) => {
    at(iso);
    return verify(fx, await close(fx));
  };

  test('MONTHLY, max_occurrences 3: Jan 10 ✓, Jan 20 ✗ (same month), Feb 1 ✓, Mar 31 ✓ (now used), Apr 2 ✗', async () => {
    const fx = await recurring('MONTHLY', '2027-01-05T10:00:00Z', { max_occurrences: 3 });
    expect((await payAt(fx, '2027-01-10T10:00:00Z')).body.status).toBe('Success');
    const jan20 = await payAt(fx, '2027-01-20T10:00:00Z');
    expect(jan20.body).toMatchObject({ status: 'Error', error: 'invalid_mandate' });
    expect(jan20.body.error_description).toMatch(/^payment\.agent_recurrence: /);
    expect((await payAt(fx, '2027-02-01T00:00:00Z')).body.status).toBe('Success');
    expect((await payAt(fx, '2027-03-31T23:59:59Z')).body.status).toBe('Success');
    expect(await mandateOf(fx)).toMatchObject({ status: 'used', uses: 3, budget_used: 3_000 });
    const apr2 = await payAt(fx, '2027-04-02T10:00:00Z');
    expect(apr2.body).toMatchObject({ status: 'Error', error: 'invalid_mandate' });
    expect((await admin.get(`/v1/decisions/${apr2.body.decision_id}`)).body.reason_code).toBe('mandate_inactive');
  });

  // [frequency, the first payment, the last second of its period, the first of the next]
  const boundaries: [string, string, string, string][] = [
    ['DAILY', '2027-03-10T12:00:00Z', '2027-03-10T23:59:59Z', '2027-03-11T00:00:00Z'],
    ['WEEKLY', '2027-03-10T12:00:00Z', '2027-03-14T23:59:59Z', '2027-03-15T00:00:00Z'],
    ['MONTHLY', '2027-03-10T12:00:00Z', '2027-03-31T23:59:59Z', '2027-04-01T00:00:00Z'],
    ['QUARTERLY', '2027-02-10T12:00:00Z', '2027-03-31T23:59:59Z', '2027-04-01T00:00:00Z'],
    ['ANNUALLY', '2027-06-01T12:00:00Z', '2027-12-31T23:59:59Z', '2028-01-01T00:00:00Z'],
    ['BIWEEKLY', '2027-03-10T12:00:00Z', '2027-03-24T11:59:59Z', '2027-03-24T12:00:00Z'],
  ];
  test.each(boundaries)('%s: approved at %s, refused at %s, approved again at %s', async (frequency, first, lastOfPeriod, next) => {
    const fx = await recurring(frequency, first);
    expect((await payAt(fx, first)).body.status).toBe('Success');
    const refused = await payAt(fx, lastOfPeriod);
    expect(refused.body.error_description).toMatch(/^payment\.agent_recurrence: /);
    expect((await payAt(fx, next)).body.status).toBe('Success');
  });

  test('ON_DEMAND: no period', async () => {
    const fx = await recurring('ON_DEMAND', '2027-03-10T12:00:00Z');
    expect((await payAt(fx, '2027-03-10T12:00:00Z')).body.status).toBe('Success');
    expect((await payAt(fx, '2027-03-10T12:00:01Z')).body.status).toBe('Success');
  });
});

describe('property: verifications and authorize calls of one agent, interleaved', () => {
  const POLICY = { budget_monthly: 12_000, budget_single_max: 5_000 };
  const MANDATE = { budget: 7_000, amount_max: 5_000, recurrence: { frequency: 'ON_DEMAND', max_occurrences: 5 } };

  /** Runs `tasks` with at most `width` in flight. */
  async function pool<T>(width: number, tasks: (() => Promise<T>)[]): Promise<T[]> {
    const results: T[] = new Array(tasks.length);
    let next = 0;
    await Promise.all(
      Array.from({ length: width }, async () => {
        while (next < tasks.length) {
          const i = next++;
          results[i] = await tasks[i]!();
        }
      }),
    );
    return results;
  }

  test('never past the policy or the mandate; the mandate counters are the sum of its approvals; the ledger verifies', async () => {
    const op = fc.record({ kind: fc.constantFrom('authorize', 'verify', 'verify'), amount: fc.integer({ min: 100, max: 4_000 }) });
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 16 }), fc.integer({ min: 1, max: 8 }), async (ops, width) => {
        const fx = await mandateFixture(admin, { policy: POLICY, mandate: MANDATE });
        const presentations = await Promise.all(ops.map((o) => (o.kind === 'verify' ? close(fx, { payment_amount: { amount: o.amount, currency: 'USD' } }) : undefined)));
        const answers = await pool(
          width,
          ops.map((o, i) => () =>
            o.kind === 'verify' ? verify(fx, presentations[i]!) : admin.post('/v1/authorize', { agent_id: fx.agentId, amount: o.amount, currency: 'USD', vendor: 'shop.example' }),
          ),
        );
        expect(answers.every((a) => a.status === 200)).toBe(true);

        const approved = await agentApproved(fx.agentId);
        expect(approved).toBeLessThanOrEqual(POLICY.budget_monthly);
        const { rows } = await sql<{ uses: string; used: string }>`
          SELECT count(*) AS uses, coalesce(sum(amount), 0) AS used FROM decisions
          WHERE agent_id = ${fx.agentId} AND decision = 'approved' AND mandate->>'id' = ${fx.mandate.id}`.execute(ctx.database.db);
        const m = await mandateOf(fx);
        expect(m.budget_used).toBeLessThanOrEqual(MANDATE.budget);
        expect(m.uses).toBeLessThanOrEqual(MANDATE.recurrence.max_occurrences);
        expect([m.uses, m.budget_used]).toEqual([Number(rows[0]!.uses), Number(rows[0]!.used)]);
        const successes = answers.filter((a, i) => ops[i]!.kind === 'verify' && a.body.status === 'Success');
        expect(successes).toHaveLength(m.uses);
        await ledgerValid();
      }),
      { numRuns: 12 },
    );
    // Each run issues a mandate and makes up to 16 calls: minutes on a loaded machine.
  }, 300_000);
});
