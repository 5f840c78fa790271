/**
 * Attack (on the reviewers' trust in the answer): three reviewers approve a hold that needs two at
 * the same moment. The decision is right either way, but a counted reviewer told `409` believes
 * their approval was refused and acts on it (approves again elsewhere, escalates, tells the agent
 * no). Every key whose approval is counted gets `200` with the decision (approved), only the one
 * not counted gets `409`. And the one safe repeat: the key that resolved a hold repeating the same
 * outcome gets `200` with the same decision; another key, or the other outcome, gets `409`.
 * The engine is the FAKE inline gateway, which runs the approval activity as the workflow does,
 * here holding each approval until all three have reached it, so that they reach the database
 * together however the HTTP requests were scheduled; the same race runs on a real Temporal server
 * in test/workflows/approval-chains.server.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestContext, policyBody, type ApiResponse, type Client, type TestAccount, type TestContext } from '../support/context.js';
import type { DecisionRow } from '../../src/decisions/decision.view.js';
import type { ResolutionSummary, ReviewerOutcome } from '../../workflows/held-authorization.types.js';
import { FakeInlineGateway } from '../support/fake-gateway.js';

/** The fake inline engine, holding approvals until `together` of them have arrived (when set). */
class TogetherGateway extends FakeInlineGateway {
  together: number | undefined;
  private waiting: Array<() => void> = [];
  override async resolve(decision: DecisionRow, outcome: ReviewerOutcome): Promise<ResolutionSummary> {
    if (this.together !== undefined) {
      const arrived = new Promise<void>((resolve) => this.waiting.push(resolve));
      if (this.waiting.length === this.together) {
        for (const release of this.waiting) release();
        this.waiting = [];
      }
      await arrived;
    }
    return super.resolve(decision, outcome);
  }
}
let engine: TogetherGateway;

let ctx: TestContext;
let acct: TestAccount;
let reviewers: Array<{ id: string; client: Client }>;

beforeAll(async () => {
  ctx = await createTestContext({ gateway: (deps) => (engine = new TogetherGateway(deps)), testModeRateLimit: 100_000 });
  acct = await ctx.account('growth');
  reviewers = [];
  for (const name of ['Ann', 'Ben', 'Cat']) {
    const res = await acct.test.post('/v1/api-keys', { name, role: 'reviewer' });
    reviewers.push({ id: res.body.id, client: ctx.client(res.body.key) });
  }
});
afterAll(() => ctx?.close());

async function hold(approvalsRequired: number): Promise<string> {
  const rules = approvalsRequired > 1 ? [{ above: 1_000, approvals_required: approvalsRequired }] : [];
  const p = await acct.test.post('/v1/policies', policyBody({ require_approval_above: 100, approval_rules: rules }));
  const agentId = (await acct.test.post('/v1/agents', { name: 'bot', policy_id: p.body.id })).body.id;
  const held = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 5_000, currency: 'USD', vendor: 'shop.example' });
  return held.body.decision_id;
}

describe('three reviewers at once on a quorum of two', () => {
  test.each([1, 2, 3, 4, 5])('round %i: each counted approver gets 200 approved, the one not counted 409', async () => {
    const id = await hold(2);
    engine.together = 3;
    const answers = await Promise.all(reviewers.map((r) => r.client.post(`/v1/approvals/${id}/approve`, { note: 'ok' }))).finally(() => (engine.together = undefined));
    const decision = (await acct.test.get(`/v1/decisions/${id}`)).body;
    expect(decision.status).toBe('approved');
    const counted = new Set(decision.approvals.map((a: { api_key_id: string }) => a.api_key_id));
    expect(counted.size).toBe(2);
    reviewers.forEach((r, i) => {
      const res = answers[i]!;
      if (counted.has(r.id)) {
        expect(res.status, `${r.id} was counted`).toBe(200);
        expect(res.body).toMatchObject({ decision_id: id, decision: 'approved', status: 'approved' });
        expect(res.body.authorization_token).toMatch(/^gca_/);
      } else {
        expect(res.status, `${r.id} was not counted`).toBe(409);
        expect(res.body.error).toMatchObject({ code: 'conflict', param: 'decision_id' });
      }
    });
  });
});

describe('the one safe repeat (a retry after a timeout)', () => {
  const error = (res: ApiResponse) => ({ status: res.status, code: res.body.error?.code });

  test('the key that completed a quorum repeats its approval: 200, the same decision; the other counted key and a third key: 409', async () => {
    const id = await hold(2);
    const [ann, ben, cat] = reviewers as [typeof reviewers[0], typeof reviewers[0], typeof reviewers[0]];
    expect((await ann.client.post(`/v1/approvals/${id}/approve`)).body.status).toBe('pending');
    const resolved = await ben.client.post(`/v1/approvals/${id}/approve`);
    expect(resolved.body.status).toBe('approved');
    const again = await ben.client.post(`/v1/approvals/${id}/approve`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(resolved.body);
    expect(error(await ann.client.post(`/v1/approvals/${id}/approve`))).toEqual({ status: 409, code: 'conflict' });
    expect(error(await cat.client.post(`/v1/approvals/${id}/approve`))).toEqual({ status: 409, code: 'conflict' });
    expect(error(await ben.client.post(`/v1/approvals/${id}/deny`))).toEqual({ status: 409, code: 'conflict' });
  });

  test('the key that denied repeats its denial: 200, the same decision; its approval, or another key, 409', async () => {
    const id = await hold(1);
    const [ann, ben] = reviewers as [typeof reviewers[0], typeof reviewers[0]];
    const denied = await ann.client.post(`/v1/approvals/${id}/deny`, { note: 'no' });
    expect(denied.body.status).toBe('denied');
    const again = await ann.client.post(`/v1/approvals/${id}/deny`, { note: 'no' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(denied.body);
    expect(error(await ann.client.post(`/v1/approvals/${id}/approve`))).toEqual({ status: 409, code: 'conflict' });
    expect(error(await ben.client.post(`/v1/approvals/${id}/deny`))).toEqual({ status: 409, code: 'conflict' });
  });
});
