/**
 * A capture, a void and the expiry sweep of one approval, at the same moment: exactly one of them
 * settles it (the agent's row lock, then a conditional update), and the agent's spend is what that
 * one outcome says. The sweep runs with a clock past every deadline while the API's clock is not,
 * so both sides really do try.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { expireUncapturedApprovals } from '../../src/capture/capture.service.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;

beforeAll(async () => {
  // A database of its own on PostgreSQL: the sweep looks at every account's approvals.
  ctx = await createTestContext({ testModeRateLimit: 100_000, ownDatabase: true });
  acct = await ctx.account('growth');
});
afterAll(() => ctx?.close());

const ROUNDS = 12;
const AMOUNT = 100;
const tomorrow = () => new Date(Date.now() + 86_400_000);

async function approvals(n: number) {
  const policy = await acct.test.post('/v1/policies', policyBody({ capture_window_seconds: 60 }));
  const agentId = (await acct.test.post('/v1/agents', { name: 'racer', policy_id: policy.body.id })).body.id as string;
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await acct.test.post('/v1/authorize', { agent_id: agentId, amount: AMOUNT, currency: 'USD', vendor: 'shop.example' })).body.decision_id);
  return { agentId, ids };
}

const monthSpend = async (agentId: string) =>
  Number((await ctx.database.db.selectFrom('agent_spend').select('approved').where('agent_id', '=', agentId).where('period', 'like', 'M:%').executeTakeFirst())?.approved ?? 0);

const settlementRecords = async (decisionId: string) =>
  (await ctx.database.db.selectFrom('audit_records').select('type').where('decision_id', '=', decisionId).where('type', 'in', ['authorization.captured', 'authorization.voided', 'authorization.expired']).execute()).map((r) => r.type);

describe('capture racing expiry', () => {
  test('exactly one wins for every approval, and the spend matches the winners', async () => {
    const { agentId, ids } = await approvals(ROUNDS);
    let expected = 0;
    let captures = 0;
    for (const [round, id] of ids.entries()) {
      // The sweep starts a little later in some rounds, so that both sides get to win.
      const head = (round % 4) * 3;
      const [capture, sweep] = await Promise.all([
        acct.test.post(`/v1/decisions/${id}/capture`, { amount: 60 }),
        new Promise((r) => setTimeout(r, head)).then(() => expireUncapturedApprovals({ db: ctx.database.db, now: tomorrow }, { limit: 1 })),
      ]);
      const final = (await acct.test.get(`/v1/decisions/${id}`)).body.capture.status;
      if (capture.status === 200) {
        captures += 1;
        expected += 60;
        expect(sweep.expired).not.toContain(id);
        expect(final).toBe('captured');
      } else {
        expect(capture.status).toBe(409);
        expect(final).toBe('expired');
      }
      expect(await settlementRecords(id)).toHaveLength(1);
    }
    expect(await monthSpend(agentId)).toBe(expected);
    console.log(`[capture racing expiry] ${captures} of ${ROUNDS} captures won`);
  });

  test('many sweeps at once expire each approval once', async () => {
    const { agentId, ids } = await approvals(6);
    const runs = await Promise.all(Array.from({ length: 4 }, () => expireUncapturedApprovals({ db: ctx.database.db, now: tomorrow })));
    const all = runs.flatMap((r) => r.expired).filter((id) => ids.includes(id));
    expect(all.sort()).toEqual([...ids].sort());
    expect(await monthSpend(agentId)).toBe(0);
    for (const id of ids) expect(await settlementRecords(id)).toEqual(['authorization.expired']);
  });

  test('capture and void at once: one wins, the other answers 409', async () => {
    const { agentId, ids } = await approvals(8);
    let expected = 0;
    for (const id of ids) {
      const [capture, voided] = await Promise.all([acct.test.post(`/v1/decisions/${id}/capture`, { amount: 30 }), acct.test.post(`/v1/decisions/${id}/void`)]);
      expect([capture.status, voided.status].sort()).toEqual([200, 409]);
      if (capture.status === 200) expected += 30;
      expect(await settlementRecords(id)).toHaveLength(1);
    }
    expect(await monthSpend(agentId)).toBe(expected);
  });
});
