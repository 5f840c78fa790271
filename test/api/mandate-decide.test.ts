/**
 * The decision side of a mandate presentation (DECISIONS §20 steps 5–9), driven directly through
 * `decideMandate` with a hand-made MandateRequest (no SD-JWT): one transaction under the agent's
 * lock and the mandate's, the mandate's refusal recorded as a denied decision, the policy without
 * its hold and duplicate steps, `decisions.mandate` and the audit record's `metadata.mandate`, the
 * mandate's counters and presentation written last, and nothing at all for a frozen agent.
 */
import { generateKeyPairSync } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { decideMandate } from '../../src/authorization/authorization.service.js';
import type { AuthorizationDeps } from '../../src/authorization/authorization.deps.js';
import { DecisionWaiter } from '../../src/authorization/decision-waiter.js';
import type { MandateRefusal, MandateRequest } from '../../src/authorization/mandate-request.js';
import type { Caller } from '../../src/kernel/caller.js';
import { AppError } from '../../src/kernel/errors.js';
import { newId } from '../../src/kernel/ids.js';
import { readSpend } from '../../src/decisions/spend.repository.js';
import { countMandateUse, lockMandate, presentationInsert } from '../../src/mandates/presentations.repository.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;
let deps: AuthorizationDeps;

/** A P-256 public JWK, as an agent registers it. */
function p256Jwk() {
  const { kty, crv, x, y } = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
  return { kty, crv, x, y };
}

async function newAgent(policy: Record<string, unknown> = {}) {
  const p = await acct.test.post('/v1/policies', policyBody(policy));
  expect(p.status).toBe(201);
  const a = await acct.test.post('/v1/agents', { name: 'buyer', policy_id: p.body.id });
  expect(a.status).toBe(201);
  const k = await acct.test.post(`/v1/agents/${a.body.id}/keys`, { jwk: p256Jwk() });
  expect(k.status).toBe(201);
  const caller: Caller = { accountId: acct.id, livemode: false, keyId: newId('key'), role: 'admin', agentId: null, plan: 'growth', rateLimit: null };
  return { agentId: a.body.id as string, policyId: p.body.id as string, keyId: k.body.id as string, caller };
}

/** A mandate row as issuance would leave it (the credential itself does not matter here). */
async function newMandate(agent: { agentId: string; keyId: string }, over: { single_use?: boolean; budget_minor?: number | null; max_occurrences?: number | null } = {}) {
  const id = newId('mdt');
  const now = new Date();
  await ctx.database.db
    .insertInto('mandates')
    .values({
      id,
      account_id: acct.id,
      livemode: false,
      agent_id: agent.agentId,
      agent_key_id: agent.keyId,
      status: 'active',
      credential: 'not-a-credential~',
      open_mandate: JSON.stringify({ vct: 'mandate.payment.open.1' }),
      signing_kid: 'kid',
      currency: 'USD',
      category: null,
      single_use: over.single_use ?? true,
      max_occurrences: over.max_occurrences ?? null,
      budget_minor: over.budget_minor ?? null,
      expires_at: new Date(now.getTime() + 3_600_000),
      revoked_at: null,
      created_at: now,
    })
    .execute();
  return id;
}

let refs = 0;
/**
 * A stand-in for the verify service's request: locks the mandate and reads the agent's spend (the
 * real one in one statement), refuses an inactive mandate or one whose budget the amount would
 * pass, and records the counters and the presentation with the decision.
 */
function request(mandateId: string, amount: number, opts: { refuse?: MandateRefusal } = {}): MandateRequest & { checked: number } {
  const ref = { id: mandateId, reference: `ref-${Date.now()}-${++refs}`, transaction_id: `txn-${refs}` };
  const req = {
    ref,
    closedDigest: `digest-${refs}`,
    checked: 0,
    async check(trx: any, agentId: string, _now: Date, periods: { month: string; day: string }) {
      req.checked++;
      const m = await lockMandate(trx, mandateId);
      const spend = await readSpend(trx, agentId, periods);
      if (!m || m.status !== 'active') return { refusal: { reason_code: 'mandate_inactive', reason: 'The mandate is not active.', receiptError: 'invalid_mandate' } as const, spend };
      if (opts.refuse) return { refusal: opts.refuse, spend };
      if (m.budget_minor !== null && Number(m.budget_used) + amount > Number(m.budget_minor)) {
        return { refusal: { reason_code: 'mandate_constraint_failed', reason: 'payment.budget: over', receiptError: 'invalid_mandate' } as const, spend };
      }
      return { refusal: undefined, spend };
    },
    record(view: any) {
      return [
        view.decision === 'approved' && countMandateUse(ctx.database.db, mandateId, amount, new Date(), 'used'),
        presentationInsert({
          reference: ref.reference,
          closed_digest: `digest-${ref.reference}`,
          account_id: acct.id,
          livemode: false,
          mandate_id: mandateId,
          transaction_id: ref.transaction_id,
          decision_id: view.decision_id,
          outcome: view.decision === 'approved' ? 'approved' : 'denied',
          response_sealed: JSON.stringify(view),
          created_at: new Date(),
        }),
      ];
    },
  };
  return req;
}

const input = (agentId: string, amount: number, vendor = 'shop.example') => ({ agent_id: agentId, amount, currency: 'USD', vendor });

async function mandateRow(id: string) {
  return ctx.database.db.selectFrom('mandates').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 10_000 });
  acct = await ctx.account('growth');
  deps = { db: ctx.database.db, signer: ctx.signer, waiter: new DecisionWaiter() };
});
afterAll(() => ctx?.close());

describe('decideMandate', () => {
  test('approved: the decision and its audit record name the mandate; the counters move; a single-use mandate is used', async () => {
    const agent = await newAgent();
    const mandateId = await newMandate(agent);
    const req = request(mandateId, 700);
    const view = await decideMandate(deps, agent.caller, input(agent.agentId, 700), req);
    expect(view).toMatchObject({ decision: 'approved', reason_code: null, mandate: req.ref, policy_applied: agent.policyId });
    expect(view.authorization_token).toMatch(/^gca_/);
    expect((await ctx.database.db.selectFrom('decisions').select('mandate').where('id', '=', view.decision_id).executeTakeFirstOrThrow()).mandate).toEqual(req.ref);
    const read = await acct.test.get(`/v1/decisions/${view.decision_id}`);
    expect(read.body.mandate).toEqual(req.ref);
    const audit = await acct.test.get(`/v1/audit-logs?agent_id=${agent.agentId}&limit=10`);
    const record = audit.body.data.find((r: any) => r.decision_id === view.decision_id);
    expect(record).toMatchObject({ type: 'authorization.decision', metadata: { mandate: req.ref } });
    expect(await mandateRow(mandateId)).toMatchObject({ uses: 1, status: 'used' });
    expect(Number((await mandateRow(mandateId)).budget_used)).toBe(700);
    expect((await mandateRow(mandateId)).last_used_at).not.toBeNull();
    expect((await acct.test.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true });
  });

  test("the mandate's refusal is a denied decision under the bound policy; the counters stay; the presentation is kept", async () => {
    const agent = await newAgent();
    const mandateId = await newMandate(agent);
    const refuse: MandateRefusal = { reason_code: 'mandate_mismatch', reason: 'payee differs', receiptError: 'invalid_mandate' };
    const view = await decideMandate(deps, agent.caller, input(agent.agentId, 100), request(mandateId, 100, { refuse }));
    expect(view).toMatchObject({ decision: 'denied', reason_code: 'mandate_mismatch', reason: 'payee differs', policy_applied: agent.policyId });
    expect(view.authorization_token).toBeUndefined();
    expect(await mandateRow(mandateId)).toMatchObject({ uses: 0, status: 'active', last_used_at: null });
    const stored = await ctx.database.db.selectFrom('mandate_presentations').selectAll().where('decision_id', '=', view.decision_id).executeTakeFirstOrThrow();
    expect(stored.outcome).toBe('denied');
    // Denied: the agent's spend is untouched.
    const spend = await sql<{ approved: string }>`SELECT coalesce(sum(approved), 0) AS approved FROM agent_spend WHERE agent_id = ${agent.agentId}`.execute(ctx.database.db);
    expect(Number(spend.rows[0]!.approved)).toBe(0);
  });

  test('a used mandate is refused: mandate_inactive', async () => {
    const agent = await newAgent();
    const mandateId = await newMandate(agent);
    expect((await decideMandate(deps, agent.caller, input(agent.agentId, 100), request(mandateId, 100))).decision).toBe('approved');
    const second = await decideMandate(deps, agent.caller, input(agent.agentId, 100), request(mandateId, 100));
    expect(second).toMatchObject({ decision: 'denied', reason_code: 'mandate_inactive' });
  });

  test('the policy decides after the mandate: a single maximum below the amount → budget_exceeded', async () => {
    const agent = await newAgent({ budget_single_max: 500 });
    const view = await decideMandate(deps, agent.caller, input(agent.agentId, 600), request(await newMandate(agent), 600));
    expect(view).toMatchObject({ decision: 'denied', reason_code: 'budget_exceeded' });
  });

  test('no hold step: above require_approval_above, and off a non-empty allowlist → approved', async () => {
    const agent = await newAgent({ require_approval_above: 100 });
    expect((await decideMandate(deps, agent.caller, input(agent.agentId, 5_000), request(await newMandate(agent), 5_000))).decision).toBe('approved');
    const listed = await newAgent({ vendor_allowlist: ['other.example'] });
    expect((await decideMandate(deps, listed.caller, input(listed.agentId, 100), request(await newMandate(listed), 100))).decision).toBe('approved');
  });

  test('no duplicate step: two identical payments inside duplicate_window_seconds → both approved', async () => {
    const agent = await newAgent({ duplicate_window_seconds: 3_600 });
    const a = await decideMandate(deps, agent.caller, input(agent.agentId, 250), request(await newMandate(agent), 250));
    const b = await decideMandate(deps, agent.caller, input(agent.agentId, 250), request(await newMandate(agent), 250));
    expect([a.decision, b.decision]).toEqual(['approved', 'approved']);
  });

  test('a frozen agent is an error (step 5): the mandate is not even checked, and nothing is written', async () => {
    const agent = await newAgent();
    const mandateId = await newMandate(agent);
    expect((await acct.test.post(`/v1/agents/${agent.agentId}/freeze`, {})).status).toBe(200);
    const req = request(mandateId, 100);
    const err = await decideMandate(deps, agent.caller, input(agent.agentId, 100), req).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe('agent_frozen');
    expect(req.checked).toBe(0);
    const n = await ctx.database.db.selectFrom('decisions').select((eb) => eb.fn.countAll<number>().as('n')).where('agent_id', '=', agent.agentId).executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(0);
  });

  test("mandate denials count toward auto_freeze (design Q10): the denial that tips it still gets its answer", async () => {
    const agent = await newAgent({ auto_freeze: { denials: 2, window_seconds: 3_600 } });
    const refuse: MandateRefusal = { reason_code: 'mandate_constraint_failed', reason: 'payment.amount_range: over', receiptError: 'invalid_mandate' };
    for (let i = 0; i < 2; i++) {
      expect((await decideMandate(deps, agent.caller, input(agent.agentId, 100), request(await newMandate(agent), 100, { refuse }))).decision).toBe('denied');
    }
    expect((await acct.test.get(`/v1/agents/${agent.agentId}`)).body.status).toBe('frozen');
  });

  test('concurrent payments against one mandate budget that fits 3: exactly 3 approved, counters exact', async () => {
    const agent = await newAgent();
    const mandateId = await newMandate(agent, { single_use: false, budget_minor: 300 });
    const views = await Promise.all(Array.from({ length: 12 }, () => decideMandate(deps, agent.caller, input(agent.agentId, 100), request(mandateId, 100))));
    expect(views.filter((v) => v.decision === 'approved')).toHaveLength(3);
    expect(views.filter((v) => v.reason_code === 'mandate_constraint_failed')).toHaveLength(9);
    const row = await mandateRow(mandateId);
    expect([row.uses, Number(row.budget_used), row.status]).toEqual([3, 300, 'active']);
  });

  test('max_occurrences reached → used', async () => {
    const agent = await newAgent();
    const mandateId = await newMandate(agent, { single_use: false, max_occurrences: 2, budget_minor: 10_000 });
    await decideMandate(deps, agent.caller, input(agent.agentId, 100), request(mandateId, 100));
    expect((await mandateRow(mandateId)).status).toBe('active');
    await decideMandate(deps, agent.caller, input(agent.agentId, 100), request(mandateId, 100));
    expect(await mandateRow(mandateId)).toMatchObject({ uses: 2, status: 'used' });
  });

  test('a reviewer key cannot ask', async () => {
    const agent = await newAgent();
    const err = await decideMandate(deps, { ...agent.caller, role: 'reviewer' }, input(agent.agentId, 100), request(await newMandate(agent), 100)).catch((e) => e);
    expect(err.code).toBe('forbidden');
  });
});
