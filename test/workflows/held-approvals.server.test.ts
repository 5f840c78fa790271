/**
 * Held requests end to end on a real Temporal server, acted on as users act: agents and reviewers
 * through the HTTP API, operators through the Temporal CLI. The worker runs the real workflows and
 * activities against this file's database; webhooks go to a real receiver on 127.0.0.1.
 *
 * Needs a server (TEMPORAL_CLI_PATH, found or fetched by scripts/temporal-cli.ts, or TEMPORAL_ADDRESS); see
 * test/support/temporal-server.ts. With RECORD_HISTORIES=1 it saves the histories it produces into
 * test/histories (scripts/record-histories.sh).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { verifyWebhookSignature } from '../../src/webhooks/signature.js';
import { ApprovalStatusKey } from '../../src/temporal/search-attributes.js';
import { heldWorkflowId } from '../../src/temporal/ids.js';
import { resolveUpdate } from '../../workflows/held-authorization.js';
import { policyBody, type TestAccount } from '../support/context.js';
import { openEngineStack, type EngineStack } from '../support/engine-stack.js';
import type { HistoryJson } from '../support/history-builder.js';
import { startReceiver } from '../support/receiver.js';
import { recordHistory } from '../support/record-history.js';
import { bundleWithRecorder, recordedValues, replayValues } from '../support/replay-recorder.js';
import { serverModeOrSkip } from '../support/temporal-server.js';
import { until } from '../support/wait.js';

const run = promisify(execFile);
const mode = serverModeOrSkip('held approvals');
const cli = process.env.TEMPORAL_CLI_PATH?.trim();

describe.skipIf(!mode)('held requests on a Temporal server, through the API', () => {
  let stack: EngineStack;
  let acct: TestAccount;

  beforeAll(async () => {
    stack = await openEngineStack(mode!);
    acct = await stack.ctx.account('growth');
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
  });

  const temporal = () => stack.server.env.client;

  async function heldAgent(policy: Record<string, unknown> = {}): Promise<string> {
    const p = await acct.test.post('/v1/policies', policyBody({ require_approval_above: 100, ...policy }));
    expect(p.status).toBe(201);
    return (await acct.test.post('/v1/agents', { name: 'held bot', policy_id: p.body.id })).body.id;
  }

  async function hold(agentId: string, amount = 500): Promise<string> {
    const res = await acct.test.post('/v1/authorize', { agent_id: agentId, amount, currency: 'USD', vendor: 'shop.example' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ decision: 'held', status: 'pending' });
    return res.body.decision_id as string;
  }

  /** Waits until the relay has started the hold's workflow and the worker has run its first task. */
  async function running(decisionId: string) {
    const handle = temporal().workflow.getHandle(heldWorkflowId(decisionId));
    await until(`workflow of ${decisionId} running`, async () => {
      const d = await handle.describe();
      return d.status.name === 'RUNNING' && d.historyLength >= 3 ? d : undefined;
    });
    return handle;
  }

  const decision = async (id: string) => (await acct.test.get(`/v1/decisions/${id}`)).body;

  /** `temporal workflow signal …` as an operator runs it. */
  async function operatorSignal(decisionId: string, input: unknown): Promise<void> {
    await run(cli!, [
      'workflow', 'signal',
      '--address', stack.server.address,
      '--namespace', stack.server.namespace,
      '--workflow-id', heldWorkflowId(decisionId),
      '--name', 'approvalDecision',
      '--input', JSON.stringify(input),
    ]);
  }

  test('held → approved through POST /v1/approvals/:id/approve: a token, the waiting long-poll answers, the webhook is delivered and verifies', async () => {
    const receiver = await startReceiver();
    try {
      const endpoint = await acct.test.post('/v1/webhook-endpoints', { url: receiver.url, events: ['approval.completed'] });
      expect(endpoint.status).toBe(201);
      const agentId = await heldAgent();
      const id = await hold(agentId, 700);
      const handle = await running(id);
      expect((await handle.describe()).typedSearchAttributes.get(ApprovalStatusKey)).toBe('pending');

      // The agent is already waiting when the reviewer approves.
      const longPoll = acct.test.get(`/v1/decisions/${id}?wait=30`);
      await new Promise((r) => setTimeout(r, 300));
      const approved = await acct.test.post(`/v1/approvals/${id}/approve`, { note: 'known vendor' });
      expect(approved.status).toBe(200);
      expect(approved.body).toMatchObject({ decision_id: id, decision: 'approved', status: 'approved', reason_code: null });
      expect(approved.body.authorization_token).toMatch(/^gca_/);

      const polled = await longPoll;
      expect(polled.status).toBe(200);
      expect(polled.body).toMatchObject({ decision: 'approved', status: 'approved' });
      expect(polled.body.authorization_token).toBe(approved.body.authorization_token);

      const result = await handle.result();
      expect(result).toMatchObject({ decisionId: id, changed: true, status: 'approved' });
      expect((await handle.describe()).typedSearchAttributes.get(ApprovalStatusKey)).toBe('approved');

      const hook = await until('approval.completed delivered', () => receiver.received.find((r) => JSON.parse(r.body).data?.decision_id === id));
      const body = JSON.parse(hook.body);
      expect(body).toMatchObject({ event: 'approval.completed', data: { decision_id: id, outcome: 'approved' } });
      expect(verifyWebhookSignature(hook.body, hook.headers['x-service-signature'] as string, endpoint.body.secret)).toBe(true);
      expect(hook.body).not.toContain('gca_');
      await recordHistory(temporal(), heldWorkflowId(id), 'approved-by-update');
    } finally {
      await receiver.close();
    }
  });

  test('held → denied through POST /v1/approvals/:id/deny releases the reservation', async () => {
    const agentId = await heldAgent({ budget_monthly: 1_000 });
    const id = await hold(agentId, 950);
    await running(id);
    // While reserved, 100 more would pass the monthly budget.
    const over = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 100, currency: 'USD', vendor: 'shop.example' });
    expect(over.body).toMatchObject({ decision: 'denied', reason_code: 'budget_exceeded' });

    const denied = await acct.test.post(`/v1/approvals/${id}/deny`, { note: 'not this month' });
    expect(denied.status).toBe(200);
    expect(denied.body).toMatchObject({ decision: 'denied', status: 'denied' });
    expect(denied.body).not.toHaveProperty('authorization_token');
    const after = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 100, currency: 'USD', vendor: 'shop.example' });
    expect(after.body).toMatchObject({ decision: 'approved' });
    expect(await temporal().workflow.getHandle(heldWorkflowId(id)).result()).toMatchObject({ status: 'denied' });
    await recordHistory(temporal(), heldWorkflowId(id), 'denied-by-update');
  });

  test.skipIf(!cli)('an operator approves with `temporal workflow signal --name approvalDecision`', async () => {
    const id = await hold(await heldAgent(), 600);
    await running(id);
    await operatorSignal(id, { outcome: 'approved', note: 'approved from the CLI', reviewer: 'ops@example.com' });

    const d = await until('approved by signal', async () => {
      const v = await decision(id);
      return v.status === 'approved' ? v : undefined;
    });
    expect(d.authorization_token).toMatch(/^gca_/);
    const audit = await acct.test.get(`/v1/audit-logs?agent_id=${d.agent_id}`);
    const record = audit.body.data.find((r: any) => r.type === 'approval.completed' && r.decision_id === id);
    expect(record.actor).toEqual({ type: 'operator', id: 'ops@example.com' });
    expect(await temporal().workflow.getHandle(heldWorkflowId(id)).result()).toMatchObject({ status: 'approved', resolvedBy: 'ops@example.com' });
    await recordHistory(temporal(), heldWorkflowId(id), 'approved-by-signal');
  });

  test.skipIf(!cli)('an operator denies by signal; a malformed signal before it is ignored and the workflow keeps running', async () => {
    const id = await hold(await heldAgent(), 600);
    const handle = await running(id);
    await operatorSignal(id, { outcome: 'maybe', reviewer: 42 });
    await operatorSignal(id, 'not an object');
    // Meant for another hold: never resolves this one.
    await operatorSignal(id, { outcome: 'approved', reviewer: 'ops@example.com', decision_id: 'dec_someoneelse' });
    // The malformed and misdirected signals changed nothing: still running, still pending.
    await until('signals processed', async () => ((await handle.describe()).historyLength >= 13 ? true : undefined));
    expect((await handle.describe()).status.name).toBe('RUNNING');
    expect((await decision(id)).status).toBe('pending');

    await operatorSignal(id, { outcome: 'denied', note: 'vendor not allowed', reviewer: 'ops@example.com' });
    expect(await handle.result()).toMatchObject({ status: 'denied', resolvedBy: 'ops@example.com' });
    expect(await decision(id)).toMatchObject({ decision: 'denied', status: 'denied' });
    await recordHistory(temporal(), heldWorkflowId(id), 'denied-by-signal-after-ignored-signals');
  });

  test('nobody decides within approval_timeout_seconds: expired, approval_expired, the reservation released; a later approval is 409', async () => {
    const agentId = await heldAgent({ budget_monthly: 1_000, approval_timeout_seconds: 2 });
    const id = await hold(agentId, 950);
    const handle = await running(id);
    const blocked = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 100, currency: 'USD', vendor: 'shop.example' });
    expect(blocked.body).toMatchObject({ decision: 'denied', reason_code: 'budget_exceeded' });

    expect(await handle.result()).toMatchObject({ status: 'expired', reasonCode: 'approval_expired', resolvedBy: 'system' });
    expect(await decision(id)).toMatchObject({ decision: 'denied', status: 'expired', reason_code: 'approval_expired' });
    expect((await handle.describe()).typedSearchAttributes.get(ApprovalStatusKey)).toBe('expired');
    const released = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 100, currency: 'USD', vendor: 'shop.example' });
    expect(released.body).toMatchObject({ decision: 'approved' });

    const late = await acct.test.post(`/v1/approvals/${id}/approve`);
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('conflict');
    expect(late.body.error.message).toContain('expired');
    expect(await decision(id)).toMatchObject({ status: 'expired' });
    // The service records an expiry for any outcome that reaches it late, so only the workflow's
    // own request in its history shows that it asked for `expired` (and replays to that request).
    const history = JSON.parse(await recordHistory(temporal(), heldWorkflowId(id), 'expired')) as HistoryJson;
    const recorded = recordedValues(history);
    expect(recorded.activities).toEqual([
      {
        activityType: 'resolveHeldDecision',
        args: [{ decisionId: id, outcome: 'expired', note: null, reviewer: null, via: 'system' }],
        // As the server recorded them: the workflow's timeout and retry policy.
        options: { startToCloseMs: 30_000, scheduleToCloseMs: 0, heartbeatMs: 0, retry: { initialIntervalMs: 1_000, backoffCoefficient: 2, maximumIntervalMs: 60_000, nonRetryableErrorTypes: ['DecisionNotFound'] } },
      },
    ]);
    expect(await replayValues(await bundleWithRecorder(), history, heldWorkflowId(id))).toEqual(recorded);
  });

  test('freezing an agent with pending holds denies them and completes their workflows', async () => {
    const agentId = await heldAgent();
    const ids = [await hold(agentId, 300), await hold(agentId, 400)];
    const handles = await Promise.all(ids.map(running));

    const frozen = await acct.test.post(`/v1/agents/${agentId}/freeze`);
    expect(frozen.status).toBe(200);
    for (const id of ids) expect(await decision(id)).toMatchObject({ decision: 'denied', status: 'denied', reason_code: 'agent_frozen' });
    const results = await Promise.all(handles.map((h) => h.result()));
    for (const r of results) expect(r).toMatchObject({ changed: false, status: 'denied' });
    await recordHistory(temporal(), heldWorkflowId(ids[0]!), 'agent-frozen');
  });

  test('two reviewers approve one hold at once: exactly one wins, the other gets 409', async () => {
    const id = await hold(await heldAgent(), 800);
    await running(id);
    const answers = await Promise.all([acct.test.post(`/v1/approvals/${id}/approve`), acct.test.post(`/v1/approvals/${id}/deny`)]);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 409]);
    const winner = answers.find((a) => a.status === 200)!;
    expect(await decision(id)).toMatchObject({ status: winner.body.status });
    const loser = answers.find((a) => a.status === 409)!;
    expect(loser.body.error.code).toBe('conflict');
  });

  describe('no approval after expiry, while no worker has handled the expiry yet', () => {
    test('the API refuses an approval 1 s after expires_at: 409 conflict (approval_expired); the hold then expires', async () => {
      const id = await hold(await heldAgent({ approval_timeout_seconds: 2 }), 600);
      const handle = await running(id);
      await stack.stopWorker();
      try {
        await new Promise((r) => setTimeout(r, 3_000));
        const late = await acct.test.post(`/v1/approvals/${id}/approve`);
        expect(late.status).toBe(409);
        expect(late.body.error).toMatchObject({ code: 'conflict', param: 'decision_id' });
        expect(late.body.error.message).toContain('approval_expired');
        expect((await decision(id)).status).toBe('pending');
      } finally {
        await stack.startWorker();
      }
      expect(await handle.result()).toMatchObject({ status: 'expired' });
      expect(await decision(id)).toMatchObject({ status: 'expired', reason_code: 'approval_expired' });
    });

    test('the timer and an Update land in one workflow task: the validator refuses the Update (workflow time), the hold expires', async () => {
      const id = await hold(await heldAgent({ approval_timeout_seconds: 2 }), 600);
      const handle = await running(id);
      await stack.stopWorker();
      let update: Promise<unknown>;
      try {
        await new Promise((r) => setTimeout(r, 3_000));
        // Sent straight to the engine (no API check): it waits with the fired timer for a worker.
        update = handle.executeUpdate(resolveUpdate, { args: [{ outcome: 'approved', reviewer: 'key_late' }] }).then(
          () => 'accepted',
          (err: Error & { cause?: Error }) => err.cause?.message ?? err.message,
        );
        await new Promise((r) => setTimeout(r, 500));
      } finally {
        await stack.startWorker();
      }
      expect(await update!).toBe('expired');
      expect(await handle.result()).toMatchObject({ status: 'expired', resolvedBy: 'system' });
      expect(await decision(id)).toMatchObject({ decision: 'denied', status: 'expired' });
      expect((await decision(id)).authorization_token).toBeUndefined();
    });
  });

  test('an approval sent before the relay started the workflow starts it with the Update (update-with-start)', async () => {
    await stack.relay.stop();
    try {
      const id = await hold(await heldAgent(), 650);
      const approved = await acct.test.post(`/v1/approvals/${id}/approve`);
      expect(approved.status).toBe(200);
      expect(approved.body).toMatchObject({ status: 'approved' });
      expect(await temporal().workflow.getHandle(heldWorkflowId(id)).result()).toMatchObject({ status: 'approved' });
      await recordHistory(temporal(), heldWorkflowId(id), 'approved-by-update-with-start');
    } finally {
      stack.relay.start();
    }
  });
});

describe.skipIf(!mode || !cli)('with TEMPORAL_ALLOW_SIGNAL_APPROVALS=false', () => {
  let stack: EngineStack;
  let acct: TestAccount;

  beforeAll(async () => {
    stack = await openEngineStack(mode!, { allowSignalApprovals: false });
    acct = await stack.ctx.account('growth');
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
  });

  async function waitingHold(): Promise<string> {
    const p = await acct.test.post('/v1/policies', policyBody({ require_approval_above: 100 }));
    const agentId = (await acct.test.post('/v1/agents', { name: 'no-signal bot', policy_id: p.body.id })).body.id;
    const res = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 500, currency: 'USD', vendor: 'shop.example' });
    const id = res.body.decision_id as string;
    const handle = stack.server.env.client.workflow.getHandle(heldWorkflowId(id));
    await until('running', async () => ((await handle.describe()).historyLength >= 3 ? true : undefined));
    return id;
  }

  const signal = (id: string, input: unknown) =>
    run(cli!, ['workflow', 'signal', '--address', stack.server.address, '--namespace', stack.server.namespace, '--workflow-id', heldWorkflowId(id), '--name', 'approvalDecision', '--input', JSON.stringify(input)]);

  test("an operator's approval by signal is ignored: the hold stays pending and only the API resolves it", async () => {
    const id = await waitingHold();
    const handle = stack.server.env.client.workflow.getHandle(heldWorkflowId(id));
    await signal(id, { outcome: 'approved', reviewer: 'ops@example.com' });
    // Even one claiming to be the service's own notice only makes the workflow look: it decides nothing.
    await signal(id, { outcome: 'denied', reviewer: 'system' });
    await until('signals processed', async () => ((await handle.describe()).historyLength >= 9 ? true : undefined));
    expect((await acct.test.get(`/v1/decisions/${id}`)).body.status).toBe('pending');

    expect((await handle.describe()).status.name).toBe('RUNNING');

    const approved = await acct.test.post(`/v1/approvals/${id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved' });
    expect(await handle.result()).toMatchObject({ status: 'approved' });
  });

  test('freezing the agent still ends the workflows of its holds', async () => {
    const id = await waitingHold();
    const agentId = (await acct.test.get(`/v1/decisions/${id}`)).body.agent_id;
    await acct.test.post(`/v1/agents/${agentId}/freeze`);
    const result = await stack.server.env.client.workflow.getHandle(heldWorkflowId(id)).result();
    expect(result).toMatchObject({ changed: false, status: 'denied' });
  });
});
