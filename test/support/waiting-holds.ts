import { expect } from 'vitest';
import { heldWorkflowId } from '../../src/temporal/ids.js';
import { policyBody, type Client } from './context.js';
import type { EngineStack } from './engine-stack.js';
import { until } from './wait.js';

/**
 * A held request of 50.00 made with `client` (a policy needing `approvalsRequired` approvals above
 * 10.00), returned once its workflow runs with its first task done: a signal or an Update sent
 * straight to the engine then reaches the waiting workflow.
 */
export async function waitingHold(stack: EngineStack, client: Client, approvalsRequired = 1): Promise<string> {
  const rules = approvalsRequired > 1 ? [{ above: 1_000, approvals_required: approvalsRequired }] : [];
  const p = await client.post('/v1/policies', policyBody({ require_approval_above: 100, approval_rules: rules }));
  expect(p.status).toBe(201);
  const agentId = (await client.post('/v1/agents', { name: 'buyer', policy_id: p.body.id })).body.id;
  const res = await client.post('/v1/authorize', { agent_id: agentId, amount: 5_000, currency: 'USD', vendor: 'shop.example' });
  expect(res.body).toMatchObject({ decision: 'held', status: 'pending', approvals_required: approvalsRequired });
  const id = res.body.decision_id as string;
  const handle = stack.server.env.client.workflow.getHandle(heldWorkflowId(id));
  await until(`workflow of ${id} running`, async () => {
    const d = await handle.describe();
    return d.status.name === 'RUNNING' && d.historyLength >= 3 ? d : undefined;
  });
  return id;
}

/** The audit records of one decision, read through its agent's records. */
export async function auditOfDecision(client: Client, id: string): Promise<any[]> {
  const { agent_id } = (await client.get(`/v1/decisions/${id}`)).body;
  return ((await client.get(`/v1/audit-logs?agent_id=${agent_id}&limit=100`)).body.data as any[]).filter((r) => r.decision_id === id);
}
