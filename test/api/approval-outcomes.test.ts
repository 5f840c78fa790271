/**
 * What a reviewer is told for each way an approval can go, word for word, and what the resolution
 * code records: the engine refusing (expired, already approved, resolved), the engine unreachable
 * after or before it recorded the outcome, someone else resolving first, a hold's reason when its
 * agent stops, and the approval and escalation records of a quorum. The engine is a scripted
 * subclass of the FAKE inline gateway (test/support/fake-gateway.ts): each test sets what it does.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { escalateHold, expireOverdueHolds, isExpired, recordApproval, resolveHeldDecision } from '../../src/approvals/resolution.service.js';
import type { DecisionRow } from '../../src/decisions/decision.view.js';
import { EngineUnavailable, ResolutionRejected } from '../../src/approvals/hold-engine.js';
import type { ResolutionSummary, ReviewerOutcome } from '../../workflows/held-authorization.types.js';
import { createTestContext, policyBody, type Client, type TestAccount, type TestContext } from '../support/context.js';
import { FakeInlineGateway } from '../support/fake-gateway.js';

/** The fake inline engine, with what happens on the next resolve scripted per decision. */
class ScriptedGateway extends FakeInlineGateway {
  readonly next = new Map<string, (decision: DecisionRow, outcome: ReviewerOutcome, inline: () => Promise<ResolutionSummary>) => Promise<ResolutionSummary>>();
  override async resolve(decision: DecisionRow, outcome: ReviewerOutcome): Promise<ResolutionSummary> {
    const script = this.next.get(decision.id);
    return script ? script(decision, outcome, () => super.resolve(decision, outcome)) : super.resolve(decision, outcome);
  }
}

let ctx: TestContext;
let engine: ScriptedGateway;
let acct: TestAccount;

beforeAll(async () => {
  ctx = await createTestContext({ gateway: (deps) => (engine = new ScriptedGateway(deps)), testModeRateLimit: 100_000 });
  acct = await ctx.account('growth');
});
afterAll(() => ctx?.close());

async function agentWith(policy: Record<string, unknown> = {}): Promise<string> {
  const p = await acct.test.post('/v1/policies', policyBody({ require_approval_above: 100, ...policy }));
  return (await acct.test.post('/v1/agents', { name: 'bot', policy_id: p.body.id })).body.id;
}
async function hold(agentId: string, amount = 500): Promise<string> {
  const res = await acct.test.post('/v1/authorize', { agent_id: agentId, amount, currency: 'USD', vendor: 'shop.example' });
  expect(res.body.decision).toBe('held');
  return res.body.decision_id;
}
async function reviewer(name: string): Promise<{ id: string; client: Client }> {
  const res = await acct.test.post('/v1/api-keys', { name, mode: 'test', role: 'reviewer' });
  return { id: res.body.id, client: ctx.client(res.body.key) };
}
const row = (id: string) => ctx.database.db.selectFrom('decisions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const error = (res: { status: number; body: any }) => ({ status: res.status, ...res.body.error });

describe('what the reviewer is told', () => {
  test('no such approval: an unknown id, and a decision that was never held', async () => {
    const agentId = await agentWith();
    const approved = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 50, currency: 'USD', vendor: 'shop.example' });
    for (const id of ['dec_doesnotexist', approved.body.decision_id]) {
      expect(error(await acct.test.post(`/v1/approvals/${id}/approve`))).toMatchObject({ status: 404, code: 'not_found', message: 'No such approval.', param: 'decision_id' });
    }
  });

  test('already resolved, with its status', async () => {
    const id = await hold(await agentWith());
    await acct.test.post(`/v1/approvals/${id}/deny`, { note: 'no' });
    const other = await reviewer('Other');
    expect(error(await other.client.post(`/v1/approvals/${id}/approve`))).toMatchObject({ status: 409, code: 'conflict', message: 'The request was already resolved (denied).', param: 'decision_id' });
  });

  test('expired: when, and that it can no longer be resolved; the engine is not asked', async () => {
    const id = await hold(await agentWith());
    const expiresAt = new Date(Date.now() - 1_000);
    await ctx.database.db.updateTable('decisions').set({ expires_at: expiresAt }).where('id', '=', id).execute();
    engine.next.set(id, async () => {
      throw new Error('the engine must not be asked about an expired hold');
    });
    expect(error(await acct.test.post(`/v1/approvals/${id}/approve`))).toMatchObject({
      status: 409,
      message: `The hold expired at ${expiresAt.toISOString()} and can no longer be resolved by a reviewer (approval_expired).`,
      param: 'decision_id',
    });
  });

  test('a second approval by the same key is refused before the engine is asked; its denial is not', async () => {
    const ann = await reviewer('Ann');
    const id = await hold(await agentWith({ approval_rules: [{ above: 0, approvals_required: 2 }] }));
    expect((await ann.client.post(`/v1/approvals/${id}/approve`)).body.status).toBe('pending');
    engine.next.set(id, async () => {
      throw new Error('the engine must not be asked for a second approval of one key');
    });
    expect(error(await ann.client.post(`/v1/approvals/${id}/approve`))).toMatchObject({
      status: 409,
      message: 'This API key has already approved the request; the next approval must come from another reviewer key.',
      param: 'decision_id',
    });
    engine.next.delete(id);
    expect((await ann.client.post(`/v1/approvals/${id}/deny`, { note: 'changed my mind' })).body).toMatchObject({ status: 'denied', reason: 'Denied by a reviewer. changed my mind' });
  });

  test.each([
    ['expired', 'expired'],
    ['already approved', 'approved'],
    ['already resolved', 'resolved'],
    ['closed', 'resolved'],
  ])('the engine refuses with %s: 409 saying so, the hold unchanged', async (refusal, said) => {
    const id = await hold(await agentWith());
    engine.next.set(id, async () => {
      throw new ResolutionRejected(refusal);
    });
    const res = error(await acct.test.post(`/v1/approvals/${id}/approve`));
    expect(res).toMatchObject({ status: 409, code: 'conflict', param: 'decision_id' });
    const expected = {
      expired: /^The hold expired at .+ and can no longer be resolved by a reviewer \(approval_expired\)\.$/,
      approved: /^This API key has already approved the request/,
      resolved: /^The request was already resolved\.$/,
    }[said]!;
    expect(res.message).toMatch(expected);
    expect((await row(id)).status).toBe('pending');
  });

  test('the engine unreachable before it recorded anything: 503, the hold pending', async () => {
    const id = await hold(await agentWith());
    engine.next.set(id, async () => {
      throw new EngineUnavailable('down');
    });
    expect(error(await acct.test.post(`/v1/approvals/${id}/approve`))).toMatchObject({ status: 503, code: 'service_unavailable', message: 'The workflow engine is unavailable; the request stays pending. Retry later.' });
    expect((await row(id)).status).toBe('pending');
  });

  test('the engine unreachable after it recorded the outcome: the row decides, 200 with the recorded decision', async () => {
    const id = await hold(await agentWith());
    engine.next.set(id, async (_d, _o, inline) => {
      await inline();
      throw new EngineUnavailable('the answer was lost');
    });
    const res = await acct.test.post(`/v1/approvals/${id}/deny`, { note: 'no' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ decision_id: id, status: 'denied' });
  });

  test('the engine unreachable after it counted one approval of a quorum: 200 with the hold, still pending, showing it', async () => {
    const ann = await reviewer('Ann');
    const id = await hold(await agentWith({ approval_rules: [{ above: 0, approvals_required: 2 }] }));
    engine.next.set(id, async (_d, _o, inline) => {
      await inline();
      throw new EngineUnavailable('the answer was lost');
    });
    const res = await ann.client.post(`/v1/approvals/${id}/approve`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'pending', approvals: [{ api_key_id: ann.id }] });
    // A denial after an unreachable engine that recorded nothing is not "counted", by the key whose
    // approval is on the hold or by another.
    engine.next.set(id, async () => {
      throw new EngineUnavailable('down');
    });
    expect((await ann.client.post(`/v1/approvals/${id}/deny`)).status).toBe(503);
    const ben = await reviewer('Ben');
    engine.next.set(id, async () => {
      throw new EngineUnavailable('down');
    });
    expect((await ben.client.post(`/v1/approvals/${id}/deny`)).status).toBe(503);
  });

  test('resolved first by someone else (a freeze) while the engine answered: 409 with the status it has', async () => {
    const agentId = await agentWith();
    const id = await hold(agentId);
    engine.next.set(id, async (decision) => {
      await acct.test.post(`/v1/agents/${agentId}/freeze`);
      return { decisionId: decision.id, changed: false, decision: 'denied', status: 'denied', reasonCode: 'agent_frozen', resolvedAt: new Date().toISOString(), resolvedBy: null };
    });
    expect(error(await acct.test.post(`/v1/approvals/${id}/approve`))).toMatchObject({ status: 409, message: 'The request was already resolved (denied).', param: 'decision_id' });
  });

  test('the engine failing otherwise than unreachable: 500 internal_error, the hold pending', async () => {
    const id = await hold(await agentWith());
    engine.next.set(id, async () => {
      throw new Error('a bug in the engine client');
    });
    expect(error(await acct.test.post(`/v1/approvals/${id}/approve`))).toMatchObject({ status: 500, code: 'internal_error' });
    expect((await row(id)).status).toBe('pending');
  });

  test('the engine claims it recorded this approval, but the row was resolved by someone else: 409 with the row\'s status', async () => {
    const agentId = await agentWith();
    const rita = await reviewer('Rita');
    const id = await hold(agentId);
    engine.next.set(id, async (decision) => {
      await acct.test.post(`/v1/agents/${agentId}/freeze`);
      return { decisionId: decision.id, changed: true, decision: 'approved', status: 'approved', reasonCode: null, resolvedAt: new Date().toISOString(), resolvedBy: rita.id };
    });
    // The admin key froze the agent; the reviewer asked to approve.
    expect(error(await rita.client.post(`/v1/approvals/${id}/approve`))).toMatchObject({ status: 409, message: 'The request was already resolved (denied).', param: 'decision_id' });
  });

  test('one approval of a quorum counted, then the hold denied by a freeze before the answer: 409 with the status it has, not the denied hold as a success', async () => {
    const ann = await reviewer('Ann');
    const agentId = await agentWith({ approval_rules: [{ above: 0, approvals_required: 2 }] });
    const id = await hold(agentId);
    engine.next.set(id, async (_d, _o, inline) => {
      const counted = await inline();
      await acct.test.post(`/v1/agents/${agentId}/freeze`);
      return counted;
    });
    expect(error(await ann.client.post(`/v1/approvals/${id}/approve`))).toMatchObject({ status: 409, message: 'The request was already resolved (denied).', param: 'decision_id' });
    expect(await row(id)).toMatchObject({ status: 'denied', approvals: [expect.objectContaining({ api_key_id: ann.id })] });
  });

  test('expired by the time the engine answered: 409 expired', async () => {
    const id = await hold(await agentWith());
    engine.next.set(id, async (decision) => {
      await ctx.database.db.updateTable('decisions').set({ expires_at: new Date(Date.now() - 1_000) }).where('id', '=', id).execute();
      await expireOverdueHolds({ db: ctx.database.db }, { graceMs: 0, accountId: decision.account_id });
      return { decisionId: decision.id, changed: false, decision: 'denied', status: 'expired', reasonCode: 'approval_expired', resolvedAt: new Date().toISOString(), resolvedBy: 'system' };
    });
    expect(error(await acct.test.post(`/v1/approvals/${id}/approve`))).toMatchObject({ status: 409, message: expect.stringMatching(/^The hold expired at /) });
  });
});

describe('what the resolution records', () => {
  test('a hold denied because its agent was frozen or deactivated says so in words, resolved by the key that stopped it', async () => {
    const frozenAgent = await agentWith();
    const frozen = await hold(frozenAgent);
    await acct.test.post(`/v1/agents/${frozenAgent}/freeze`);
    const goneAgent = await agentWith();
    const gone = await hold(goneAgent);
    await acct.test.delete(`/v1/agents/${goneAgent}`);
    expect((await acct.test.get(`/v1/decisions/${frozen}`)).body).toMatchObject({ status: 'denied', reason_code: 'agent_frozen', reason: 'The agent was frozen while the request awaited review.' });
    expect((await acct.test.get(`/v1/decisions/${gone}`)).body).toMatchObject({ status: 'denied', reason_code: 'agent_deactivated', reason: 'The agent was deactivated while the request awaited review.' });
    const [f, g] = [await row(frozen), await row(gone)];
    expect(f.resolved_by).toMatch(/^key_/);
    expect(g.resolved_by).toBe(f.resolved_by);
  });

  test('a hold denied because runaway protection froze its agent is resolved by the system', async () => {
    const agentId = await agentWith({ auto_freeze: { denials: 1, window_seconds: 3600 }, vendor_denylist: ['bad.example'] });
    const id = await hold(agentId);
    expect((await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 50, currency: 'USD', vendor: 'bad.example' })).body.decision).toBe('denied');
    expect((await acct.test.get(`/v1/agents/${agentId}`)).body.status).toBe('frozen');
    expect(await row(id)).toMatchObject({ status: 'denied', reason_code: 'agent_frozen', resolved_by: 'system' });
  });

  test('an approval asked of a resolver without the token signer is refused before anything is written', async () => {
    const id = await hold(await agentWith());
    await expect(
      resolveHeldDecision({ db: ctx.database.db }, { decisionId: id, outcome: 'approved', note: null, resolvedBy: 'key_x', actor: { type: 'reviewer', id: 'key_x' } }),
    ).rejects.toThrow('approving a hold needs the token signer');
    expect(await row(id)).toMatchObject({ status: 'pending', resolved_by: null, approvals: [] });
  });

  test('a reviewer denial without a note is only the words; an approval keeps the hold reason and records the token expiry', async () => {
    const a = await hold(await agentWith());
    expect((await acct.test.post(`/v1/approvals/${a}/deny`)).body.reason).toBe('Denied by a reviewer.');
    const b = await hold(await agentWith());
    const approved = await acct.test.post(`/v1/approvals/${b}/approve`);
    expect(approved.body.authorization_token).toMatch(/^gca_/);
    const r = await row(b);
    expect(r.token_expires_at).toBeInstanceOf(Date);
    expect(r.token_expires_at!.getTime()).toBeGreaterThan(Date.now());
  });

  test('a hold is expired from the instant of its expires_at, not a millisecond later', () => {
    const at = new Date('2026-01-01T00:00:00.000Z');
    expect(isExpired({ expires_at: at }, new Date(at.getTime() - 1))).toBe(false);
    expect(isExpired({ expires_at: at }, at)).toBe(true);
    expect(isExpired({ expires_at: null }, at)).toBe(false);
  });

  test('resolveHeldDecision at the instant of expiry records the expiry, whatever outcome it was asked for; an unknown decision is not found', async () => {
    const id = await hold(await agentWith());
    const { expires_at } = await row(id);
    const out = await resolveHeldDecision({ db: ctx.database.db, signer: ctx.signer, now: () => expires_at! }, { decisionId: id, outcome: 'approved', note: 'late', resolvedBy: 'key_x', actor: { type: 'reviewer', id: 'key_x' } });
    expect(out).toMatchObject({ changed: true, decision: { status: 'expired', reason_code: 'approval_expired' } });
    expect((await row(id)).resolved_by).toBe('system');
    await expect(resolveHeldDecision({ db: ctx.database.db, signer: ctx.signer }, { decisionId: 'dec_nope', outcome: 'expired', note: null, resolvedBy: 'system', actor: { type: 'system', id: null } })).rejects.toMatchObject({
      code: 'not_found',
      message: 'No such decision.',
      param: 'decision_id',
    });
  });

  test('recordApproval: one of two recorded with its audit metadata; the same approver again is a duplicate; an operator then completes it with a token; afterwards nothing changes', async () => {
    const ann = await reviewer('Ann');
    const id = await hold(await agentWith({ approval_rules: [{ above: 0, approvals_required: 2 }] }));
    const deps = { db: ctx.database.db, signer: ctx.signer };
    const first = await recordApproval(deps, { decisionId: id, note: 'fine by me', actor: { type: 'reviewer', id: ann.id } });
    expect(first).toMatchObject({ changed: true, duplicate: false, decision: { status: 'pending', approvals: [{ api_key_id: ann.id, name: 'Ann', note: 'fine by me' }] } });
    expect(await recordApproval(deps, { decisionId: id, note: null, actor: { type: 'reviewer', id: ann.id } })).toMatchObject({ changed: false, duplicate: true });
    const audit = (await acct.test.get(`/v1/audit-logs?type=approval.recorded&limit=100`)).body.data.filter((r: any) => r.decision_id === id);
    expect(audit.map((r: any) => r.metadata)).toEqual([{ approvals: 1, approvals_required: 2, name: 'Ann', note: 'fine by me' }]);
    const done = await recordApproval(deps, { decisionId: id, note: null, actor: { type: 'operator', id: 'ops@example.com' } });
    expect(done).toMatchObject({ changed: true, duplicate: false, decision: { status: 'approved', approvals: [{ api_key_id: ann.id }, { api_key_id: null, name: 'ops@example.com' }] } });
    expect((await row(id)).resolved_by).toBe('ops@example.com');
    expect((await acct.test.get(`/v1/decisions/${id}`)).body.authorization_token).toMatch(/^gca_/);
    expect(await recordApproval(deps, { decisionId: id, note: null, actor: { type: 'reviewer', id: 'key_late' } })).toMatchObject({ changed: false, duplicate: false, decision: { status: 'approved' } });
  });

  test('recordApproval: an operator without a name is recorded as operator; past its time the hold expires instead; an unknown decision is not found', async () => {
    const id = await hold(await agentWith({ approval_rules: [{ above: 0, approvals_required: 2 }] }));
    const deps = { db: ctx.database.db, signer: ctx.signer };
    expect((await recordApproval(deps, { decisionId: id, note: null, actor: { type: 'operator', id: null } })).decision).toMatchObject({ approvals: [{ api_key_id: null, name: 'operator' }] });
    const { expires_at } = await row(id);
    expect(await recordApproval({ ...deps, now: () => expires_at! }, { decisionId: id, note: null, actor: { type: 'reviewer', id: 'key_late' } })).toMatchObject({ changed: true, duplicate: false, decision: { status: 'expired' } });
    await expect(recordApproval(deps, { decisionId: 'dec_nope', note: null, actor: { type: 'operator', id: null } })).rejects.toMatchObject({ message: 'No such decision.', param: 'decision_id' });
  });

  test('escalateHold: once, with its audit metadata and event; again, or once resolved or expired, nothing; an unknown decision is not found', async () => {
    const id = await hold(await agentWith({ approval_rules: [{ above: 0, approvals_required: 3 }] }));
    const deps = { db: ctx.database.db };
    const first = await escalateHold(deps, id);
    expect(first).toMatchObject({ changed: true, escalated: true });
    expect(await escalateHold(deps, id)).toMatchObject({ changed: false, escalated: true });
    const audit = (await acct.test.get(`/v1/audit-logs?type=approval.escalated&limit=100`)).body.data.filter((r: any) => r.decision_id === id);
    expect(audit.map((r: any) => [r.metadata, r.actor])).toEqual([[{ approvals: 0, approvals_required: 3 }, { type: 'system', id: null }]]);
    const events = (await ctx.database.db.selectFrom('events').selectAll().where('type', '=', 'approval.escalated').execute()).filter((e) => (e.data as any).decision_id === id);
    const { expires_at } = await row(id);
    expect(events.map((e) => e.data)).toEqual([expect.objectContaining({ approvals_required: 3, approvals: [], expires_at: expires_at!.toISOString() })]);

    const expiring = await hold(await agentWith());
    const { expires_at: at } = await row(expiring);
    expect(await escalateHold({ ...deps, now: () => at! }, expiring)).toMatchObject({ changed: false, escalated: false });
    const resolved = await hold(await agentWith());
    await acct.test.post(`/v1/approvals/${resolved}/deny`);
    expect(await escalateHold(deps, resolved)).toMatchObject({ changed: false, escalated: false });
    await expect(escalateHold(deps, 'dec_nope')).rejects.toMatchObject({ message: 'No such decision.', param: 'decision_id' });
  });

  test('expireOverdueHolds returns only the holds it expired', async () => {
    const id = await hold(await agentWith());
    await ctx.database.db.updateTable('decisions').set({ expires_at: new Date(Date.now() - 60_000) }).where('id', '=', id).execute();
    const accountId = (await row(id)).account_id;
    expect(await expireOverdueHolds({ db: ctx.database.db }, { graceMs: 0, accountId })).toEqual([id]);
    expect(await expireOverdueHolds({ db: ctx.database.db }, { graceMs: 0, accountId })).toEqual([]);
    expect((await row(id)).reason_code).toBe('approval_expired');
  });

  test('expireOverdueHolds leaves out a hold resolved by someone else between its list and its lock', async () => {
    const own = await ctx.account('growth');
    const p = await own.test.post('/v1/policies', policyBody({ require_approval_above: 100 }));
    const agentId = (await own.test.post('/v1/agents', { name: 'bot', policy_id: p.body.id })).body.id;
    const id = (await own.test.post('/v1/authorize', { agent_id: agentId, amount: 500, currency: 'USD', vendor: 'shop.example' })).body.decision_id;
    await ctx.database.db.updateTable('decisions').set({ expires_at: new Date(Date.now() - 60_000) }).where('id', '=', id).execute();
    // The real database; the agent is frozen (its holds denied) after the sweep listed the hold and
    // before the sweep's transaction locks it.
    const db = ctx.database.db;
    let frozen = false;
    const racing = new Proxy(db, {
      get(target, prop) {
        if (prop === 'transaction' && !frozen) {
          return () => ({
            execute: async (fn: Parameters<ReturnType<typeof db.transaction>['execute']>[0]) => {
              frozen = true;
              expect((await own.test.post(`/v1/agents/${agentId}/freeze`)).status).toBe(200);
              return target.transaction().execute(fn);
            },
          });
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    expect(await expireOverdueHolds({ db: racing }, { graceMs: 0, accountId: own.id })).toEqual([]);
    expect(frozen).toBe(true);
    expect(await row(id)).toMatchObject({ status: 'denied', reason_code: 'agent_frozen' });
  });
});
