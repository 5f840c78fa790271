/**
 * A mandate verified before is decided without the unlocked read (known-mandates.ts): its key's
 * status and the closed mandate's decision are read under the locks instead. Every answer the read
 * gives first must still come first, in DECISIONS §20's order: each case here presents the mandate
 * once (so it is known), changes one thing, and presents a new closed mandate (or the same again).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { mandateFixture } from '../support/mandates.js';
import { decisionCount, presenting } from '../support/mandate-presenting.js';

let ctx: TestContext;
let acct: TestAccount;
let p: ReturnType<typeof presenting>;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 10_000 });
  acct = await ctx.account('growth');
  p = presenting(ctx);
});
afterAll(() => ctx?.close());

const recurring = { mandate: { budget: 100_000, recurrence: { frequency: 'ON_DEMAND' } } };

/** A recurring mandate presented and approved once: known from now on. */
async function known() {
  const fx = await mandateFixture(acct.test, recurring);
  const first = await p.verify(acct.test, fx, await p.close(fx));
  expect(first.body.status, first.text).toBe('Success');
  return fx;
}

describe('step 4 and 5 still answer before a decision', () => {
  test('its agent key revoked since: invalid_credential (step 4), nothing recorded', async () => {
    const fx = await known();
    expect((await acct.test.delete(`/v1/agents/${fx.agentId}/keys/${fx.agentKeyId}`)).status).toBe(200);
    const res = await p.verify(acct.test, fx, await p.close(fx));
    expect(res.body).toMatchObject({ status: 'Error', error: 'invalid_credential', error_description: 'The agent key the mandate is bound to is revoked.', mandate_id: fx.mandate.id, decision_id: null });
    expect(await decisionCount(ctx, fx.agentId)).toBe(1);
  });

  test('its agent frozen since: invalid_mandate agent_frozen (step 5), nothing recorded; unfrozen, decided', async () => {
    const fx = await known();
    const presentation = await p.close(fx);
    expect((await acct.test.post(`/v1/agents/${fx.agentId}/freeze`, {})).status).toBe(200);
    const res = await p.verify(acct.test, fx, presentation);
    expect(res.body).toMatchObject({ status: 'Error', error: 'invalid_mandate', error_description: 'agent_frozen', decision_id: null });
    expect(await decisionCount(ctx, fx.agentId)).toBe(1);
    expect((await acct.test.post(`/v1/agents/${fx.agentId}/unfreeze`, {})).status).toBe(200);
    expect((await p.verify(acct.test, fx, presentation)).body.status).toBe('Success');
  });

  test('its agent frozen since a presentation was decided: that presentation again is its replay (step 3 comes first)', async () => {
    const fx = await known();
    const presentation = await p.close(fx);
    const first = await p.verify(acct.test, fx, presentation);
    expect(first.body.status).toBe('Success');
    expect((await acct.test.post(`/v1/agents/${fx.agentId}/freeze`, {})).status).toBe(200);
    const again = await p.verify(acct.test, fx, presentation);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });
});

describe('decided under the locks', () => {
  test('the mandate revoked since: mandate_inactive, a denied decision (step 6)', async () => {
    const fx = await known();
    expect((await acct.test.post(`/v1/mandates/${fx.mandate.id}/revoke`, {})).status).toBe(200);
    const res = await p.verify(acct.test, fx, await p.close(fx));
    expect(res.body).toMatchObject({ status: 'Error', error: 'invalid_mandate', mandate_id: fx.mandate.id });
    expect(res.body.decision_id).toMatch(/^dec_/);
    expect(await decisionCount(ctx, fx.agentId)).toBe(2);
  });

  test('one closed mandate presented three times at once: one decision, the others its answer byte for byte', async () => {
    const fx = await known();
    const presentation = await p.close(fx);
    const answers = await Promise.all([1, 2, 3].map(() => p.verify(acct.test, fx, presentation)));
    expect(answers.map((a) => a.body.status)).toEqual(['Success', 'Success', 'Success']);
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(2);
    expect(await decisionCount(ctx, fx.agentId)).toBe(2);
    expect((await acct.test.get(`/v1/mandates/${fx.mandate.id}`)).body.uses).toBe(2);
  });

  test('an agent key of another agent presenting it: not ours (step 2), from what is known of it', async () => {
    const fx = await known();
    const other = await mandateFixture(acct.test, recurring);
    const key = await acct.test.post('/v1/api-keys', { name: 'other agent', role: 'agent', agent_id: other.agentId });
    expect(key.status).toBe(201);
    const res = await p.verify(ctx.client(key.body.key), fx, await p.close(fx));
    expect(res.body).toMatchObject({ status: 'Error', error: 'invalid_credential', mandate_id: null, decision_id: null });
    expect(await decisionCount(ctx, fx.agentId)).toBe(1);
  });
});
