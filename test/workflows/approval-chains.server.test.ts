/**
 * Approval chains (docs/api.md, "Approval chains") end to end on a real Temporal server: a quorum
 * of reviewer keys, a denial after one approval, an operator's signals counting as one approver,
 * and escalation. Reviewers act through the HTTP API with keys of their own; operators through the
 * Temporal CLI.
 *
 * Escalation: the API accepts `escalate_after_seconds` from 60 s. To keep this file fast, the
 * escalation test writes 2 s into the policy's row directly (the database allows any positive
 * value; only the API enforces the minimum, and test/api/approval-chains.test.ts checks that). The
 * hold then carries an escalation time 2 s after it was held, and the workflow's timer, activity,
 * event and search attribute are the real ones; nothing in the workflow is shortened for tests.
 *
 * With RECORD_HISTORIES=1 it saves the histories it produces into test/histories
 * (scripts/record-histories.sh); test/workflows/replay.test.ts replays them.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ApprovalStatusKey } from '../../src/temporal/search-attributes.js';
import { heldWorkflowId } from '../../src/temporal/ids.js';
import { verifyWebhookSignature } from '../../src/webhooks/signature.js';
import { policyBody, type Client, type TestAccount } from '../support/context.js';
import { openEngineStack, type EngineStack } from '../support/engine-stack.js';
import { startReceiver } from '../support/receiver.js';
import { recordHistory } from '../support/record-history.js';
import { serverModeOrSkip } from '../support/temporal-server.js';
import { until } from '../support/wait.js';

const run = promisify(execFile);
const mode = serverModeOrSkip('approval chains');
const cli = process.env.TEMPORAL_CLI_PATH?.trim();

describe.skipIf(!mode)('approval chains on a Temporal server, through the API', () => {
  let stack: EngineStack;
  let acct: TestAccount;
  /** Two reviewer keys of the account's test mode: two people. */
  let alice: { id: string; client: Client };
  let bob: { id: string; client: Client };

  beforeAll(async () => {
    stack = await openEngineStack(mode!);
    acct = await stack.ctx.account('growth');
    const reviewer = async (name: string) => {
      const res = await acct.test.post('/v1/api-keys', { name, mode: 'test', role: 'reviewer' });
      expect(res.status).toBe(201);
      return { id: res.body.id as string, client: stack.ctx.client(res.body.key as string) };
    };
    [alice, bob] = [await reviewer('Alice (finance)'), await reviewer('Bob (ops)')];
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
  });

  const temporal = () => stack.server.env.client;

  /** An agent whose holds above 1,000 need two approvals. */
  async function quorumAgent(policy: Record<string, unknown> = {}): Promise<{ agentId: string; policyId: string }> {
    const p = await acct.test.post('/v1/policies', policyBody({ require_approval_above: 100, approval_rules: [{ above: 1_000, approvals_required: 2 }], ...policy }));
    expect(p.status).toBe(201);
    const a = await acct.test.post('/v1/agents', { name: 'quorum bot', policy_id: p.body.id });
    return { agentId: a.body.id, policyId: p.body.id };
  }

  async function hold(agentId: string, amount: number): Promise<string> {
    const res = await acct.test.post('/v1/authorize', { agent_id: agentId, amount, currency: 'USD', vendor: 'shop.example' });
    expect(res.body).toMatchObject({ decision: 'held', status: 'pending' });
    return res.body.decision_id as string;
  }

  async function running(decisionId: string) {
    const handle = temporal().workflow.getHandle(heldWorkflowId(decisionId));
    await until(`workflow of ${decisionId} running`, async () => {
      const d = await handle.describe();
      return d.status.name === 'RUNNING' && d.historyLength >= 3 ? d : undefined;
    });
    return handle;
  }

  const decision = async (id: string) => (await acct.test.get(`/v1/decisions/${id}`)).body;
  /** The audit records of one hold (its agent's records, which are few). */
  async function auditOf(id: string): Promise<any[]> {
    const { agent_id } = await decision(id);
    return (await acct.test.get(`/v1/audit-logs?agent_id=${agent_id}&limit=100`)).body.data.filter((r: any) => r.decision_id === id);
  }

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

  test('a quorum of two: the first approval answers pending, the same key again is 409, the second key approves with a token', async () => {
    const { agentId } = await quorumAgent();
    const id = await hold(agentId, 5_000);
    expect(await decision(id)).toMatchObject({ status: 'pending', approvals_required: 2, approvals: [] });
    const handle = await running(id);

    const first = await alice.client.post(`/v1/approvals/${id}/approve`, { note: 'invoice checked' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ decision_id: id, decision: 'held', status: 'pending', approvals_required: 2 });
    expect(first.body.approvals).toEqual([{ api_key_id: alice.id, name: 'Alice (finance)', note: 'invoice checked', at: expect.any(String) }]);
    expect(first.body).not.toHaveProperty('authorization_token');
    expect((await handle.describe()).status.name).toBe('RUNNING');

    const again = await alice.client.post(`/v1/approvals/${id}/approve`, { note: 'me again' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'conflict', param: 'decision_id' });
    expect((await decision(id)).approvals).toHaveLength(1);

    const listed = (await bob.client.get('/v1/approvals?status=pending')).body.data.find((a: any) => a.decision_id === id);
    expect(listed).toMatchObject({ approvals_required: 2, approvals: [{ api_key_id: alice.id, name: 'Alice (finance)' }] });

    const second = await bob.client.post(`/v1/approvals/${id}/approve`, { note: 'ok from ops' });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ decision: 'approved', status: 'approved', approvals_required: 2 });
    expect(second.body.authorization_token).toMatch(/^gca_/);
    expect(second.body.approvals.map((a: any) => [a.api_key_id, a.name, a.note])).toEqual([
      [alice.id, 'Alice (finance)', 'invoice checked'],
      [bob.id, 'Bob (ops)', 'ok from ops'],
    ]);

    expect(await handle.result()).toMatchObject({ status: 'approved', changed: true, resolvedBy: bob.id });
    expect((await handle.describe()).typedSearchAttributes.get(ApprovalStatusKey)).toBe('approved');
    const third = await alice.client.post(`/v1/approvals/${id}/approve`);
    expect(third.status).toBe(409);

    // Every individual approval has its audit record, and the chain still verifies.
    const audit = await auditOf(id);
    const recorded = audit.filter((r: any) => r.type === 'approval.recorded');
    expect(recorded.map((r: any) => r.actor).sort((a: any, b: any) => a.id.localeCompare(b.id))).toEqual(
      [{ type: 'reviewer', id: alice.id }, { type: 'reviewer', id: bob.id }].sort((a, b) => a.id.localeCompare(b.id)),
    );
    expect(audit.filter((r: any) => r.type === 'approval.completed')).toEqual([expect.objectContaining({ actor: { type: 'reviewer', id: bob.id }, decision: 'approved' })]);
    expect((await acct.test.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true });
    await recordHistory(temporal(), heldWorkflowId(id), 'approved-by-quorum');
  });

  test('three reviewers at once on a quorum of two: each counted key gets 200 with the approved decision, the one not counted 409', async () => {
    const carolKey = await acct.test.post('/v1/api-keys', { name: 'Carol (legal)', mode: 'test', role: 'reviewer' });
    const carol = { id: carolKey.body.id as string, client: stack.ctx.client(carolKey.body.key as string) };
    for (let round = 0; round < 3; round++) {
      const { agentId } = await quorumAgent();
      const id = await hold(agentId, 5_000);
      const handle = await running(id);
      const keys = [alice, bob, carol];
      const answers = await Promise.all(keys.map((k) => k.client.post(`/v1/approvals/${id}/approve`, { note: `round ${round}` })));
      const final = await decision(id);
      expect(final.status).toBe('approved');
      const counted = new Set(final.approvals.map((a: any) => a.api_key_id));
      expect(counted.size).toBe(2);
      keys.forEach((k, i) => {
        const res = answers[i]!;
        if (!counted.has(k.id)) {
          expect(res.status).toBe(409);
          return;
        }
        expect(res.status).toBe(200);
        // A counted approval answered before the other one arrived shows the hold pending with it;
        // one answered with another in flight waits for it, and then shows the quorum complete.
        if (res.body.status === 'pending') expect(res.body.approvals.map((a: any) => a.api_key_id)).toEqual([k.id]);
        else expect(res.body).toMatchObject({ status: 'approved', authorization_token: expect.stringMatching(/^gca_/) });
      });
      expect(answers.filter((a) => a.status === 200 && a.body.status === 'approved').length).toBeGreaterThanOrEqual(1);
      expect(await handle.result()).toMatchObject({ status: 'approved', changed: true });
      if (round === 0) await recordHistory(temporal(), heldWorkflowId(id), 'approved-by-three-at-once');
    }
  });

  test('a key and the key it minted count as one approver, one after the other and at once; a key minted beside them completes the quorum', async () => {
    const leadKey = await acct.test.post('/v1/api-keys', { name: 'Team lead', mode: 'test', role: 'admin' });
    const lead = { id: leadKey.body.id as string, client: stack.ctx.client(leadKey.body.key as string) };
    const childKey = await lead.client.post('/v1/api-keys', { name: "Lead's reviewer", mode: 'test', role: 'reviewer' });
    expect(childKey.body.created_by).toBe(lead.id);
    const child = { id: childKey.body.id as string, client: stack.ctx.client(childKey.body.key as string) };
    const { agentId } = await quorumAgent();

    const id = await hold(agentId, 5_000);
    const handle = await running(id);
    expect((await lead.client.post(`/v1/approvals/${id}/approve`)).body).toMatchObject({ status: 'pending' });
    const refused = await child.client.post(`/v1/approvals/${id}/approve`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'conflict', param: 'decision_id' });
    expect((await decision(id)).approvals.map((a: any) => a.api_key_id)).toEqual([lead.id]);
    expect((await bob.client.post(`/v1/approvals/${id}/approve`)).body).toMatchObject({ status: 'approved' });
    expect(await handle.result()).toMatchObject({ status: 'approved', changed: true, resolvedBy: bob.id });

    // At once: both reach the workflow (its validator knows key ids only); the resolving write,
    // under the hold's lock, counts one of them.
    const atOnce = await hold(agentId, 5_000);
    const atOnceHandle = await running(atOnce);
    const answers = await Promise.all([lead.client.post(`/v1/approvals/${atOnce}/approve`), child.client.post(`/v1/approvals/${atOnce}/approve`)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect((await decision(atOnce))).toMatchObject({ status: 'pending', approvals: [expect.anything()] });
    expect((await handle.describe()).status.name).toBe('COMPLETED');
    expect((await atOnceHandle.describe()).status.name).toBe('RUNNING');
    expect((await alice.client.post(`/v1/approvals/${atOnce}/approve`)).body).toMatchObject({ status: 'approved' });
    expect(await atOnceHandle.result()).toMatchObject({ status: 'approved', changed: true, resolvedBy: alice.id });
  });

  test('a hold at or under the rule needs one approval, as before', async () => {
    const { agentId } = await quorumAgent();
    const id = await hold(agentId, 1_000);
    expect(await decision(id)).toMatchObject({ approvals_required: 1 });
    await running(id);
    const res = await alice.client.post(`/v1/approvals/${id}/approve`, { note: 'small' });
    expect(res.body).toMatchObject({ status: 'approved', approvals_required: 1, approvals: [{ api_key_id: alice.id, name: 'Alice (finance)', note: 'small' }] });
  });

  test('one denial after one approval denies at once and releases the reservation', async () => {
    const { agentId } = await quorumAgent({ budget_monthly: 6_000 });
    const id = await hold(agentId, 5_000);
    const handle = await running(id);
    expect((await alice.client.post(`/v1/approvals/${id}/approve`)).body).toMatchObject({ status: 'pending' });
    // Still reserved: 2,000 more would pass the monthly budget.
    expect((await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 2_000, currency: 'USD', vendor: 'shop.example' })).body).toMatchObject({ reason_code: 'budget_exceeded' });

    const denied = await bob.client.post(`/v1/approvals/${id}/deny`, { note: 'not this quarter' });
    expect(denied.status).toBe(200);
    expect(denied.body).toMatchObject({ decision: 'denied', status: 'denied', reason_code: 'policy_denied', approvals: [{ api_key_id: alice.id }] });
    expect(denied.body).not.toHaveProperty('authorization_token');
    expect(await handle.result()).toMatchObject({ status: 'denied', resolvedBy: bob.id });
    // Released: the same 2,000 is now within budget (and held for review, not denied).
    expect((await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 2_000, currency: 'USD', vendor: 'shop.example' })).body).toMatchObject({ decision: 'held', reason_code: 'approval_required' });
    const late = await alice.client.post(`/v1/approvals/${id}/approve`);
    expect(late.status).toBe(409);
    await recordHistory(temporal(), heldWorkflowId(id), 'denied-after-one-approval');
  });

  test.skipIf(!cli)("operators' signals count as one approver: two signals and a reviewer key make a quorum of three", async () => {
    const { agentId } = await quorumAgent({ approval_rules: [{ above: 1_000, approvals_required: 3 }] });
    const id = await hold(agentId, 5_000);
    const handle = await running(id);
    await operatorSignal(id, { outcome: 'approved', note: 'from the CLI', reviewer: 'ops@example.com' });
    const one = await until('operator approval recorded', async () => {
      const d = await decision(id);
      return d.approvals.length === 1 ? d : undefined;
    });
    expect(one).toMatchObject({ status: 'pending', approvals: [{ api_key_id: null, name: 'ops@example.com', note: 'from the CLI' }] });
    // Another name in the signal is not another person: the engine cannot tell operators apart.
    await operatorSignal(id, { outcome: 'approved', reviewer: 'someone-else@example.com' });
    expect((await alice.client.post(`/v1/approvals/${id}/approve`)).body).toMatchObject({ status: 'pending' });
    expect((await decision(id)).approvals.map((a: any) => a.api_key_id)).toEqual([null, alice.id]);

    const done = await bob.client.post(`/v1/approvals/${id}/approve`);
    expect(done.body).toMatchObject({ status: 'approved' });
    expect(done.body.approvals).toHaveLength(3);
    expect(await handle.result()).toMatchObject({ status: 'approved' });
    const audit = await auditOf(id);
    expect(audit.filter((r: any) => r.type === 'approval.recorded').map((r: any) => r.actor.type).sort()).toEqual(['operator', 'reviewer', 'reviewer']);
    await recordHistory(temporal(), heldWorkflowId(id), 'approved-by-operator-and-reviewers');
  });

  test('a hold still pending at its escalation time emits one approval.escalated event and ApprovalStatus becomes escalated', async () => {
    const receiver = await startReceiver();
    try {
      const endpoint = await acct.test.post('/v1/webhook-endpoints', { url: receiver.url, events: ['approval.escalated'] });
      expect(endpoint.status).toBe(201);
      const { agentId, policyId } = await quorumAgent({ escalate_after_seconds: 60, approval_timeout_seconds: 3_600 });
      // Shortened under the API's 60 s minimum, straight in the row (see the header of this file).
      await stack.ctx.database.db.updateTable('policies').set({ escalate_after_seconds: 2 }).where('id', '=', policyId).execute();
      const id = await hold(agentId, 5_000);
      const handle = await running(id);
      expect((await handle.describe()).typedSearchAttributes.get(ApprovalStatusKey)).toBe('pending');

      await until('escalated', async () => ((await handle.describe()).typedSearchAttributes.get(ApprovalStatusKey) === 'escalated' ? true : undefined), 20_000);
      const hook = await until('approval.escalated delivered', () => receiver.received.find((r) => JSON.parse(r.body).data?.decision_id === id));
      const body = JSON.parse(hook.body);
      expect(body).toMatchObject({ event: 'approval.escalated', data: { decision_id: id, approvals_required: 2, approvals: [], amount: 5_000 } });
      expect(verifyWebhookSignature(hook.body, hook.headers['x-service-signature'] as string, endpoint.body.secret)).toBe(true);
      expect((await decision(id)).status).toBe('pending');

      // Still pending well after: one escalation only.
      await new Promise((r) => setTimeout(r, 1_500));
      const events = (await acct.test.get('/v1/events?type=approval.escalated&limit=100')).body.data.filter((e: any) => e.data.decision_id === id);
      expect(events).toHaveLength(1);
      expect((await auditOf(id)).filter((r: any) => r.type === 'approval.escalated')).toEqual([expect.objectContaining({ actor: { type: 'system', id: null } })]);

      await alice.client.post(`/v1/approvals/${id}/approve`);
      expect((await bob.client.post(`/v1/approvals/${id}/approve`)).body).toMatchObject({ status: 'approved' });
      expect(await handle.result()).toMatchObject({ status: 'approved' });
      expect((await handle.describe()).typedSearchAttributes.get(ApprovalStatusKey)).toBe('approved');
      expect((await acct.test.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true });
      await recordHistory(temporal(), heldWorkflowId(id), 'escalated-then-approved');
    } finally {
      await receiver.close();
    }
  });

  test('a hold resolved before its escalation time never escalates', async () => {
    const { agentId, policyId } = await quorumAgent({ escalate_after_seconds: 60 });
    await stack.ctx.database.db.updateTable('policies').set({ escalate_after_seconds: 3 }).where('id', '=', policyId).execute();
    const id = await hold(agentId, 500);
    const handle = await running(id);
    expect((await bob.client.post(`/v1/approvals/${id}/approve`)).body).toMatchObject({ status: 'approved' });
    expect(await handle.result()).toMatchObject({ status: 'approved' });
    await new Promise((r) => setTimeout(r, 3_500));
    expect((await acct.test.get('/v1/events?type=approval.escalated&limit=100')).body.data.filter((e: any) => e.data.decision_id === id)).toEqual([]);
    expect((await handle.describe()).typedSearchAttributes.get(ApprovalStatusKey)).toBe('approved');
  });
});
