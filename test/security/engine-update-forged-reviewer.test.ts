/**
 * Attack: an Update sent straight to the engine names a reviewer it is not. Where approvals from
 * outside the API are allowed (test mode by default, live with TEMPORAL_ALLOW_SIGNAL_APPROVALS=live)
 * such an Update used to be recorded as the key it named: two made-up ids (`fake1`, `fake2`) filled
 * a quorum of two; one with no reviewer approved a hold needing three with no approver at all; a
 * denial in a real key's name was put on that key (and, naming the requester, read as withdrawn).
 * And since a reviewer's Update id was predictable (`approve-<decision>-<key>`), an Update sent
 * beforehand under it was refused and the engine answered the reviewer's real approval with that
 * old refusal, on every retry. Now an outcome without the API's valid mark is the operator's
 * (actor operator, the operators' one approver), and the reviewer's Update id ends in a digest of
 * the API's mark, which nobody at the engine can make.
 *
 * Against a real Temporal dev server (TEMPORAL_CLI_PATH or TEMPORAL_ADDRESS; skipped with one line
 * otherwise), with the real API, relay, worker and activities.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { heldWorkflowId } from '../../src/temporal/ids.js';
import { resolveUpdate } from '../../workflows/held-authorization.js';
import type { Client, TestAccount } from '../support/context.js';
import { openEngineStack, type EngineStack } from '../support/engine-stack.js';
import { auditOfDecision, waitingHold } from '../support/waiting-holds.js';
import { serverModeOrSkip } from '../support/temporal-server.js';
import { until } from '../support/wait.js';

const mode = serverModeOrSkip('engine update forged reviewer');

describe.skipIf(!mode)('an Update sent straight to the engine in a reviewer it is not', () => {
  let stack: EngineStack;
  let acct: TestAccount;
  /** Requests the live holds: an admin key minted beside the reviewer, so the reviewer is not of its line. */
  let requester: { id: string; client: Client };
  let reviewer: { id: string; client: Client };

  beforeAll(async () => {
    stack = await openEngineStack(mode!);
    acct = await stack.ctx.account('growth');
    const mint = async (name: string, role: 'admin' | 'reviewer') => {
      const key = await acct.live!.post('/v1/api-keys', { name, role });
      expect(key.status).toBe(201);
      return { id: key.body.id as string, client: stack.ctx.client(key.body.key) };
    };
    requester = await mint('Requester', 'admin');
    reviewer = await mint('Finance reviewer', 'reviewer');
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
  });

  const temporal = () => stack.server.env.client;

  const hold = (client: Client, approvalsRequired = 1) => waitingHold(stack, client, approvalsRequired);
  const decision = async (client: Client, id: string) => (await client.get(`/v1/decisions/${id}`)).body;
  const auditOf = auditOfDecision;

  test('two Updates naming made-up reviewers do not fill a quorum of two: they are the operators\' one approval', async () => {
    const id = await hold(acct.test, 2);
    const handle = temporal().workflow.getHandle(heldWorkflowId(id));
    expect(await handle.executeUpdate(resolveUpdate, { args: [{ outcome: 'approved', reviewer: 'fake1' }] })).toMatchObject({ status: 'pending' });
    expect(await handle.executeUpdate(resolveUpdate, { args: [{ outcome: 'approved', reviewer: 'fake2' }] })).toMatchObject({ status: 'pending' });
    const d = await decision(acct.test, id);
    expect(d).toMatchObject({ status: 'pending', approvals: [{ api_key_id: null, name: 'fake1' }] });
    const recorded = (await auditOf(acct.test, id)).filter((r) => r.type === 'approval.recorded');
    expect(recorded.map((r) => r.actor)).toEqual([{ type: 'operator', id: 'fake1' }]);
    // A reviewer key still completes the quorum through the API.
    const testKey = (await acct.test.get('/v1/api-keys/self')).body.id;
    const approved = await acct.test.post(`/v1/approvals/${id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved', approvals: [{ api_key_id: null }, { api_key_id: testKey }] });
  });

  test("an Update naming a real key does not use up that key's approval: the key still approves through the API", async () => {
    const id = await hold(acct.test, 2);
    const testKey = (await acct.test.get('/v1/api-keys/self')).body.id;
    const handle = temporal().workflow.getHandle(heldWorkflowId(id));
    expect(await handle.executeUpdate(resolveUpdate, { args: [{ outcome: 'approved', reviewer: testKey, via: 'api' }] })).toMatchObject({ status: 'pending' });
    expect(await decision(acct.test, id)).toMatchObject({ status: 'pending', approvals: [{ api_key_id: null, name: testKey }] });
    const approved = await acct.test.post(`/v1/approvals/${id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved', approvals: [{ api_key_id: null }, { api_key_id: testKey }] });
  });

  test('an Update with no reviewer, to a run started without the quorum, cannot approve a hold needing three', async () => {
    const id = await hold(acct.test, 3);
    // A run of the attacker's own for the hold, on the single-approval path (no approvalsRequired).
    const forged = await temporal().workflow.start('heldAuthorization', {
      workflowId: `forged-${id}`,
      taskQueue: stack.settings.taskQueue,
      args: [{ decisionId: id, expiresAt: new Date(Date.now() + 3_600_000).toISOString() }],
    });
    try {
      await until('forged run waiting', async () => ((await forged.describe()).historyLength >= 3 ? true : undefined));
      const answer = await forged.executeUpdate(resolveUpdate, { args: [{ outcome: 'approved' }] });
      expect(answer).toMatchObject({ status: 'pending' });
      const d = await decision(acct.test, id);
      expect(d).toMatchObject({ decision: 'held', status: 'pending', approvals: [{ api_key_id: null, name: 'operator' }] });
      expect(d).not.toHaveProperty('authorization_token');
      expect((await auditOf(acct.test, id)).map((r) => r.type)).not.toContain('approval.completed');
    } finally {
      await forged.terminate('test over').catch(() => undefined);
    }
  });

  test("a denial sent by Update in the requesting key's name is applied, but recorded as the operator's, not the key's withdrawal", async () => {
    const id = await hold(requester.client);
    const handle = temporal().workflow.getHandle(heldWorkflowId(id));
    expect(await handle.executeUpdate(resolveUpdate, { args: [{ outcome: 'denied', reviewer: requester.id, via: 'api' }] })).toMatchObject({ status: 'denied' });
    const d = await decision(requester.client, id);
    expect(d).toMatchObject({ decision: 'denied', status: 'denied', reason_code: 'policy_denied' });
    expect(d.reason).not.toContain('Withdrawn');
    const completed = (await auditOf(requester.client, id)).find((r) => r.type === 'approval.completed');
    expect(completed).toMatchObject({ actor: { type: 'operator', id: requester.id }, decision: 'denied' });
  });

  test("an Update sent beforehand under the reviewer's old, predictable Update id does not block the reviewer's approval", async () => {
    const id = await hold(requester.client);
    const handle = temporal().workflow.getHandle(heldWorkflowId(id));
    const squatted = await handle.executeUpdate(resolveUpdate, { args: [{ outcome: 'approved', reviewer: reviewer.id, via: 'api' }], updateId: `approve-${id}-${reviewer.id}` });
    expect(squatted).toMatchObject({ status: 'pending', refusal: 'live_approval_outside_api' });
    for (let attempt = 0; attempt < 2; attempt++) {
      const approved = await reviewer.client.post(`/v1/approvals/${id}/approve`);
      expect(approved.status).toBe(200);
      expect(approved.body).toMatchObject({ status: 'approved', approvals: [{ api_key_id: reviewer.id }] });
    }
  });
});
