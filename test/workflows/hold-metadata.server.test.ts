/**
 * On a real Temporal server: a held request's workflow carries Temporal's user metadata (static
 * summary and details) and a memo naming the agent, whether the outbox relay started it or a
 * reviewer's approval did (update-with-start). Read back through the client's describe().
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { heldWorkflowId } from '../../src/temporal/ids.js';
import { shortUtc } from '../../src/temporal/hold-metadata.js';
import { policyBody, type TestAccount } from '../support/context.js';
import { openEngineStack, type EngineStack } from '../support/engine-stack.js';
import { serverModeOrSkip } from '../support/temporal-server.js';
import { until } from '../support/wait.js';

const mode = serverModeOrSkip('hold metadata');

describe.skipIf(!mode)('what operators see of a hold in the Temporal UI', () => {
  let stack: EngineStack;
  let acct: TestAccount;
  let agentId: string;
  let policyId: string;

  beforeAll(async () => {
    stack = await openEngineStack(mode!);
    acct = await stack.ctx.account('growth');
    policyId = (await acct.test.post('/v1/policies', policyBody({ name: 'Research agents', require_approval_above: 5_000 }))).body.id;
    agentId = (await acct.test.post('/v1/agents', { name: 'research-bot', policy_id: policyId })).body.id;
  }, 120_000);
  afterAll(() => stack?.close());

  async function hold(amount: number) {
    const res = await acct.test.post('/v1/authorize', { agent_id: agentId, amount, currency: 'USD', vendor: 'aws.amazon.com' });
    expect(res.body.status).toBe('pending');
    return res.body as { decision_id: string; expires_at: string; reason: string };
  }

  async function described(id: string) {
    const handle = stack.server.env.client.workflow.getHandle(heldWorkflowId(id));
    const d = await until(`workflow of ${id}`, async () => handle.describe().catch(() => undefined));
    return { summary: await d.staticSummary(), details: await d.staticDetails(), memo: d.memo };
  }

  test('started by the outbox relay: the summary reads amount, vendor, agent by name and id, expiry; the details give reason and policy; the memo names the agent', async () => {
    const held = await hold(8_200);
    const { summary, details, memo } = await described(held.decision_id);
    expect(summary).toBe(`82.00 USD at aws.amazon.com for research-bot (${agentId}), expires ${shortUtc(new Date(held.expires_at))}`);
    expect(details).toContain(`**Reason:** ${held.reason}`);
    expect(details).toContain(`**Policy:** Research agents (\`${policyId}\`)`);
    expect(details).toContain(`**Agent:** research-bot (\`${agentId}\`)`);
    expect(memo).toMatchObject({ summary, agentId, agentName: 'research-bot', policyId, policyName: 'Research agents' });
  });

  test('started by the approval itself (update-with-start, before the relay): the same summary', async () => {
    await stack.relay.stop();
    try {
      const held = await hold(6_100);
      const approved = await acct.test.post(`/v1/approvals/${held.decision_id}/approve`);
      expect(approved.body).toMatchObject({ status: 'approved' });
      const { summary, memo } = await described(held.decision_id);
      expect(summary).toBe(`61.00 USD at aws.amazon.com for research-bot (${agentId}), expires ${shortUtc(new Date(held.expires_at))}`);
      expect(memo).toMatchObject({ agentName: 'research-bot' });
    } finally {
      stack.relay.start();
    }
  });
});
