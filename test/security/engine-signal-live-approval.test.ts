/**
 * Attack: the workflow engine as a back door to approvals. Whoever can reach the Temporal frontend
 * signals `approvalDecision` {"outcome": "approved", "reviewer": "finance-lead"} to a live hold's
 * workflow, or sends it the `resolve` Update by hand, or starts a workflow of their own for the
 * hold, and approves money past the API's roles, four eyes and quorum. In live mode such an
 * approval is refused by the resolving activity: an `approval.refused` audit record (actor
 * operator, id = the outcome's reviewer field), the hold still pending, its workflow still waiting
 * for a reviewer. A denial sent the same way is applied; test-mode holds may still be approved by
 * signal; TEMPORAL_ALLOW_SIGNAL_APPROVALS=live is the operator's opt-in to live approvals by signal.
 *
 * Against a real Temporal dev server (TEMPORAL_CLI_PATH or TEMPORAL_ADDRESS; skipped with one line
 * otherwise), with the real API, relay, worker and activities. The CLI case also needs
 * TEMPORAL_CLI_PATH. With RECORD_HISTORIES=1 it saves two histories into test/histories.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { heldWorkflowId } from '../../src/temporal/ids.js';
import { approvalDecisionSignal, resolveUpdate } from '../../workflows/held-authorization.js';
import type { Client, TestAccount } from '../support/context.js';
import { openEngineStack, type EngineStack } from '../support/engine-stack.js';
import { auditOfDecision, waitingHold } from '../support/waiting-holds.js';
import { recordHistory } from '../support/record-history.js';
import { serverModeOrSkip } from '../support/temporal-server.js';
import { until } from '../support/wait.js';

const run = promisify(execFile);
const mode = serverModeOrSkip('engine signal live approval');
const cli = process.env.TEMPORAL_CLI_PATH?.trim();

describe.skipIf(!mode)('approvals sent straight to the workflow engine', () => {
  let stack: EngineStack;
  let acct: TestAccount;
  let live: Client;
  let reviewer: { id: string; client: Client };
  /** Requests the live holds: an admin key minted beside the reviewer, so the reviewer is not of its line (four eyes). */
  let requester: Client;

  beforeAll(async () => {
    stack = await openEngineStack(mode!);
    acct = await stack.ctx.account('growth');
    live = acct.live!;
    const key = await live.post('/v1/api-keys', { name: 'Finance reviewer', role: 'reviewer' });
    expect(key.status).toBe(201);
    reviewer = { id: key.body.id, client: stack.ctx.client(key.body.key) };
    requester = stack.ctx.client((await live.post('/v1/api-keys', { name: 'Requester', role: 'admin' })).body.key);
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
  });

  const temporal = () => stack.server.env.client;

  const hold = (client: Client, opts: { approvalsRequired?: number } = {}) => waitingHold(stack, client, opts.approvalsRequired);
  const decision = async (client: Client, id: string) => (await client.get(`/v1/decisions/${id}`)).body;
  const auditOf = auditOfDecision;
  /** The refusals recorded for the hold, once there are `n`. */
  const refusals = (client: Client, id: string, n = 1) =>
    until(`${n} approval.refused record(s) of ${id}`, async () => {
      const found = (await auditOf(client, id)).filter((r) => r.type === 'approval.refused');
      return found.length >= n ? found : undefined;
    });

  /** The hold as an attacker must find it after a refused approval: pending, unapproved, its workflow waiting. */
  async function stillPending(client: Client, id: string): Promise<void> {
    const d = await decision(client, id);
    expect(d).toMatchObject({ decision: 'held', status: 'pending', approvals: [] });
    expect(d).not.toHaveProperty('authorization_token');
    expect((await auditOf(client, id)).map((r) => r.type)).not.toContain('approval.completed');
    expect((await temporal().workflow.getHandle(heldWorkflowId(id)).describe()).status.name).toBe('RUNNING');
  }

  test.skipIf(!cli)('`temporal workflow signal` approving a live hold as "finance-lead": refused and recorded; the hold stays pending and a reviewer can still approve it', async () => {
    const id = await hold(requester);
    await run(cli!, [
      'workflow', 'signal',
      '--address', stack.server.address,
      '--namespace', stack.server.namespace,
      '--workflow-id', heldWorkflowId(id),
      '--name', 'approvalDecision',
      '--input', JSON.stringify({ outcome: 'approved', reviewer: 'finance-lead' }),
    ]);
    const [record] = await refusals(live, id);
    expect(record).toMatchObject({
      type: 'approval.refused',
      actor: { type: 'operator', id: 'finance-lead' },
      reason: 'live_approval_outside_api',
      decision_id: id,
      amount: 5_000,
      metadata: { outcome: 'approved', sent_as: 'signal' },
    });
    await stillPending(live, id);

    // The workflow kept waiting: the reviewer's approval through the API resolves the hold.
    const approved = await reviewer.client.post(`/v1/approvals/${id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved', approvals: [{ api_key_id: reviewer.id }] });
    expect(await temporal().workflow.getHandle(heldWorkflowId(id)).result()).toMatchObject({ status: 'approved', resolvedBy: reviewer.id });
    await recordHistory(temporal(), heldWorkflowId(id), 'approval-refused-by-signal-then-approved');
  });

  test('an SDK client signalling approval of a live hold is refused; a denial by signal is applied', async () => {
    const id = await hold(requester);
    const handle = temporal().workflow.getHandle(heldWorkflowId(id));
    // Whatever the payload claims (an API path, a mark), a signal is an operator's.
    await handle.signal(approvalDecisionSignal, { outcome: 'approved', reviewer: 'finance-lead', via: 'api', authority: 'AAAA' });
    await refusals(live, id);
    await stillPending(live, id);

    await handle.signal(approvalDecisionSignal, { outcome: 'denied', note: 'not without a reviewer', reviewer: 'finance-lead' });
    expect(await handle.result()).toMatchObject({ status: 'denied', resolvedBy: 'finance-lead' });
    expect(await decision(live, id)).toMatchObject({ decision: 'denied', status: 'denied', reason_code: 'policy_denied' });
    const completed = (await auditOf(live, id)).find((r) => r.type === 'approval.completed');
    expect(completed).toMatchObject({ actor: { type: 'operator', id: 'finance-lead' }, decision: 'denied' });
  });

  test("an Update sent straight to the engine, in a real reviewer key's name and with a forged mark, is refused; the key then approves through the API", async () => {
    const id = await hold(requester);
    const handle = temporal().workflow.getHandle(heldWorkflowId(id));
    const answer = await handle.executeUpdate(resolveUpdate, { args: [{ outcome: 'approved', reviewer: reviewer.id, via: 'api', authority: 'x'.repeat(43) }] });
    expect(answer).toMatchObject({ status: 'pending', changed: false, refusal: 'live_approval_outside_api' });
    // Without any mark, as a made-up reviewer: the same.
    const bare = await handle.executeUpdate(resolveUpdate, { args: [{ outcome: 'approved', reviewer: 'finance-lead' }] });
    expect(bare).toMatchObject({ status: 'pending', refusal: 'live_approval_outside_api' });
    const records = await refusals(live, id, 2);
    expect(records.map((r) => r.actor).sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      [{ type: 'operator', id: 'finance-lead' }, { type: 'operator', id: reviewer.id }].sort((a, b) => a.id.localeCompare(b.id)),
    );
    expect(records.every((r) => r.metadata.sent_as === 'update')).toBe(true);
    await stillPending(live, id);

    // The refused Update did not count as that key's approval: its own approval goes through.
    const approved = await reviewer.client.post(`/v1/approvals/${id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved' });
    await recordHistory(temporal(), heldWorkflowId(id), 'approval-refused-by-update-then-approved');
  });

  test('a live hold needing two approvals: neither a signal nor a hand-made Update counts towards the quorum', async () => {
    const id = await hold(requester, { approvalsRequired: 2 });
    const handle = temporal().workflow.getHandle(heldWorkflowId(id));
    await handle.signal(approvalDecisionSignal, { outcome: 'approved', reviewer: 'finance-lead' });
    const answer = await handle.executeUpdate(resolveUpdate, { args: [{ outcome: 'approved', reviewer: reviewer.id }] });
    expect(answer).toMatchObject({ status: 'pending', refusal: 'live_approval_outside_api' });
    await refusals(live, id, 2);
    await stillPending(live, id);
    expect((await auditOf(live, id)).map((r) => r.type)).not.toContain('approval.recorded');
    // The key whose name the Update used still has its own approval to give.
    expect((await reviewer.client.post(`/v1/approvals/${id}/approve`)).body).toMatchObject({ status: 'pending', approvals: [{ api_key_id: reviewer.id }] });
  });

  test("a workflow the attacker starts for the hold, with input of their choosing, cannot approve it either (the check is the activity's)", async () => {
    const id = await hold(requester);
    const forged = await temporal().workflow.start('heldAuthorization', {
      workflowId: `forged-${id}`,
      taskQueue: stack.settings.taskQueue,
      args: [{ decisionId: id, expiresAt: new Date(Date.now() + 3_600_000).toISOString(), signalApprovals: true }],
    });
    try {
      await until('forged run waiting', async () => ((await forged.describe()).historyLength >= 3 ? true : undefined));
      await forged.signal(approvalDecisionSignal, { outcome: 'approved', reviewer: 'finance-lead' });
      await refusals(live, id);
      await stillPending(live, id);
    } finally {
      await forged.terminate('test over');
    }
  });

  test('a test-mode hold is still approved by signal (the default allows it in test mode)', async () => {
    const id = await hold(acct.test);
    await temporal().workflow.getHandle(heldWorkflowId(id)).signal(approvalDecisionSignal, { outcome: 'approved', reviewer: 'ops@example.com' });
    expect(await temporal().workflow.getHandle(heldWorkflowId(id)).result()).toMatchObject({ status: 'approved', resolvedBy: 'ops@example.com' });
    expect(await decision(acct.test, id)).toMatchObject({ status: 'approved', approvals: [{ api_key_id: null, name: 'ops@example.com' }] });
    expect((await auditOf(acct.test, id)).map((r) => r.type)).not.toContain('approval.refused');
  });

  test('with TEMPORAL_ALLOW_SIGNAL_APPROVALS=live (the operator opted in) a live hold is approved by signal', async () => {
    const id = await hold(requester);
    await stack.stopWorker();
    try {
      await stack.startWorker({ signalApprovals: 'live' });
      await temporal().workflow.getHandle(heldWorkflowId(id)).signal(approvalDecisionSignal, { outcome: 'approved', reviewer: 'finance-lead' });
      expect(await temporal().workflow.getHandle(heldWorkflowId(id)).result()).toMatchObject({ status: 'approved', resolvedBy: 'finance-lead' });
      expect(await decision(live, id)).toMatchObject({ status: 'approved', approvals: [{ api_key_id: null, name: 'finance-lead' }] });
      const completed = (await auditOf(live, id)).find((r) => r.type === 'approval.completed');
      expect(completed).toMatchObject({ actor: { type: 'operator', id: 'finance-lead' } });
    } finally {
      await stack.stopWorker();
      await stack.startWorker();
    }
  });

  test('the audit chain with approval.refused records still verifies', async () => {
    const verified = await live.get('/v1/audit-logs/verify');
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ valid: true, first_invalid: null, decisions_without_record: 0 });
    expect(verified.body.records).toBeGreaterThan(0);
  });
});
