/**
 * Attack (DECISIONS §7, finding 11 of the fifth round): rows that carry authority, edited behind
 * the service. Clearing a live hold's `requested_by` let the requesting key approve its own hold;
 * lowering `approvals_required` from 3 to 1 let one approval resolve it; editing (or deleting) a
 * `mandate_presentations` row let the same closed mandate be approved again. The API and the
 * resolution now take the requester and the quorum from the terms sealed in the decision's record,
 * and a closed mandate's digest is sealed with its decision, so it is decided once whatever its
 * row says. A hold whose record does not verify is approved by nobody, and an approval's token is
 * for the sealed amount. The UPDATEs run as the owner and, on PostgreSQL, as a role with exactly
 * the runtime grants (the DELETEs: owner only).
 * The engine is the FAKE inline gateway (the resolution it calls is the real one).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestContext, policyBody, type Client, type TestAccount, type TestContext } from '../support/context.js';
import { FakeInlineGateway } from '../support/fake-gateway.js';
import { INSIDER_NAMES, insiders, type Insiders } from '../support/insider.js';
import { decisionCount, presenting } from '../support/mandate-presenting.js';
import { mandateFixture } from '../support/mandates.js';

let ctx: TestContext;
let acct: TestAccount;
let who: Insiders;
/** The live requester (an admin key the account's key minted) and three reviewers beside it. */
let requester: { id: string; client: Client };
let reviewers: { id: string; client: Client }[];

beforeAll(async () => {
  ctx = await createTestContext({ gateway: (deps) => new FakeInlineGateway(deps), testModeRateLimit: 100_000 });
  acct = await ctx.account('growth');
  who = await insiders(ctx);
  const mint = async (name: string, role: string) => {
    const res = await acct.live!.post('/v1/api-keys', { name, role });
    expect(res.status).toBe(201);
    return { id: res.body.id as string, client: ctx.client(res.body.key) };
  };
  requester = await mint('Requesting admin', 'admin');
  reviewers = [await mint('Rita', 'reviewer'), await mint('Sam', 'reviewer'), await mint('Tess', 'reviewer')];
});
afterAll(async () => {
  await who?.drop();
  await ctx?.close();
});

const insider = (name: Insiders['all'][number]['name']) => who.named(name);

async function liveHold(approvalsRequired: number): Promise<string> {
  const rules = approvalsRequired > 1 ? [{ above: 1_000, approvals_required: approvalsRequired }] : [];
  const p = await requester.client.post('/v1/policies', policyBody({ require_approval_above: 100, approval_rules: rules }));
  const agentId = (await requester.client.post('/v1/agents', { name: 'bot', policy_id: p.body.id })).body.id;
  const held = await requester.client.post('/v1/authorize', { agent_id: agentId, amount: 5_000, currency: 'USD', vendor: 'shop.example' });
  expect(held.body).toMatchObject({ decision: 'held', status: 'pending', requested_by: requester.id, approvals_required: approvalsRequired });
  return held.body.decision_id;
}

const stillPending = async (id: string, approvals: number) => {
  const d = (await acct.live!.get(`/v1/decisions/${id}`)).body;
  expect(d).toMatchObject({ status: 'pending', decision: 'held' });
  expect(d.approvals).toHaveLength(approvals);
  expect(d).not.toHaveProperty('authorization_token');
};

describe('a live hold', () => {
  test.each(INSIDER_NAMES)("requested_by cleared: the requesting key still cannot approve its own hold (%s)", async (name) => {
    const id = await liveHold(1);
    await insider(name).run(sql`UPDATE decisions SET requested_by = NULL WHERE id = ${id}`);
    const res = await requester.client.post(`/v1/approvals/${id}/approve`);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    await stillPending(id, 0);
  });

  test.each(INSIDER_NAMES)('requested_by set to another key: the requester is still the sealed one (%s)', async (name) => {
    const id = await liveHold(1);
    await insider(name).run(sql`UPDATE decisions SET requested_by = ${reviewers[2]!.id} WHERE id = ${id}`);
    expect((await requester.client.post(`/v1/approvals/${id}/approve`)).status).toBe(403);
    await stillPending(id, 0);
    // The key named by hand is no requester: its approval resolves the hold.
    expect((await reviewers[2]!.client.post(`/v1/approvals/${id}/approve`)).body).toMatchObject({ status: 'approved' });
  });

  test.each(INSIDER_NAMES)('approvals_required lowered from 3 to 1: one approval does not resolve it, three do (%s)', async (name) => {
    const id = await liveHold(3);
    await insider(name).run(sql`UPDATE decisions SET approvals_required = 1 WHERE id = ${id}`);
    expect((await reviewers[0]!.client.post(`/v1/approvals/${id}/approve`)).body).toMatchObject({ status: 'pending' });
    await stillPending(id, 1);
    expect((await reviewers[1]!.client.post(`/v1/approvals/${id}/approve`)).body).toMatchObject({ status: 'pending' });
    expect((await reviewers[2]!.client.post(`/v1/approvals/${id}/approve`)).body).toMatchObject({ status: 'approved' });
  });

  test.each(INSIDER_NAMES)("the amount lowered on the row: the approval's token is for the sealed amount (%s)", async (name) => {
    const id = await liveHold(1);
    await insider(name).run(sql`UPDATE decisions SET amount = 1 WHERE id = ${id}`);
    const approved = await reviewers[0]!.client.post(`/v1/approvals/${id}/approve`);
    expect(approved.body).toMatchObject({ status: 'approved' });
    const token = approved.body.authorization_token as string;
    const claims = JSON.parse(Buffer.from(token.replace(/^gca_/, '').split('.')[1]!, 'base64url').toString());
    expect(claims).toMatchObject({ jti: id, amount: 5_000 });
  });

  test('its decision record removed (owner, triggers off): nobody approves it (409), it can still be denied', async () => {
    const id = await liveHold(1);
    await insider('owner').run(
      sql`ALTER TABLE audit_records DISABLE TRIGGER USER`,
      sql`DELETE FROM audit_records WHERE decision_id = ${id} AND type = 'authorization.decision'`,
      sql`ALTER TABLE audit_records ENABLE TRIGGER USER`,
    );
    const res = await reviewers[0]!.client.post(`/v1/approvals/${id}/approve`);
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'conflict', param: 'decision_id' });
    await stillPending(id, 0);
    expect((await reviewers[0]!.client.post(`/v1/approvals/${id}/deny`)).body).toMatchObject({ status: 'denied' });
  });
});

describe('a mandate presentation decided once, whatever its row says', () => {
  test.each(INSIDER_NAMES)('the row edited (another digest, another transaction, denied): presented again, no second decision (%s)', async (name) => {
    const fx = await mandateFixture(acct.test, { mandate: { recurrence: { frequency: 'ON_DEMAND' }, budget: 100_000 } });
    const p = presenting(ctx);
    const presentation = await p.close(fx);
    expect((await p.verify(acct.test, fx, presentation)).body).toMatchObject({ status: 'Success' });
    await insider(name).run(sql`UPDATE mandate_presentations SET closed_digest = ${`edited-${fx.mandate.id}`}, transaction_id = 'edited', outcome = 'denied' WHERE mandate_id = ${fx.mandate.id}`);
    const again = await p.verify(acct.test, fx, presentation);
    expect(again.status, again.text).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'conflict', param: 'presentation' });
    expect(await decisionCount(ctx, fx.agentId)).toBe(1);
    expect((await acct.test.get(`/v1/mandates/${fx.mandate.id}`)).body).toMatchObject({ uses: 1, budget_used: 1_000 });
  });

  test('the row deleted (owner): presented again, no second decision', async () => {
    const fx = await mandateFixture(acct.test, { mandate: { recurrence: { frequency: 'ON_DEMAND' }, budget: 100_000 } });
    const p = presenting(ctx);
    const presentation = await p.close(fx);
    expect((await p.verify(acct.test, fx, presentation)).body).toMatchObject({ status: 'Success' });
    await insider('owner').run(sql`DELETE FROM mandate_presentations WHERE mandate_id = ${fx.mandate.id}`);
    const again = await p.verify(acct.test, fx, presentation);
    expect(again.status, again.text).toBe(409);
    expect(await decisionCount(ctx, fx.agentId)).toBe(1);
  });

  test("the same transaction closed again (a new closed mandate) after the approved row was edited: refused as the transaction's second approval", async () => {
    const fx = await mandateFixture(acct.test, { mandate: { recurrence: { frequency: 'ON_DEMAND' }, budget: 100_000 } });
    const p = presenting(ctx);
    const first = await p.close(fx, { transaction_id: 'txn-once' });
    expect((await p.verify(acct.test, fx, first)).body).toMatchObject({ status: 'Success' });
    await insider('owner').run(sql`UPDATE mandate_presentations SET outcome = 'denied' WHERE mandate_id = ${fx.mandate.id}`);
    const second = await p.verify(acct.test, fx, await p.close(fx, { transaction_id: 'txn-once' }));
    expect(second.body).toMatchObject({ status: 'Error', error: 'invalid_mandate' });
    expect(second.body.error_description).toMatch(/already approved/);
    expect((await acct.test.get(`/v1/mandates/${fx.mandate.id}`)).body).toMatchObject({ uses: 1 });
  });
});
