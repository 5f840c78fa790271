/**
 * The expiry outcome as the workflow itself asks for it, on a real Temporal server with the real
 * worker and activities. The service turns any outcome that reaches it after `expires_at` into an
 * expiry (resolution.service.ts), so the decision reads `expired` even if the workflow asked for
 * `approved`: only the workflow's own request, recorded in its history, shows what it asked.
 *
 * Needs a server (TEMPORAL_CLI_PATH or TEMPORAL_ADDRESS); see test/support/temporal-server.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { heldWorkflowId } from '../../src/temporal/ids.js';
import { policyBody, type TestAccount } from '../support/context.js';
import { openEngineStack, type EngineStack } from '../support/engine-stack.js';
import type { HistoryJson } from '../support/history-builder.js';
import { recordHistory } from '../support/record-history.js';
import { bundleWithRecorder, recordedValues, replayValues } from '../support/replay-recorder.js';
import { serverModeOrSkip } from '../support/temporal-server.js';

const mode = serverModeOrSkip('held expiry outcome');

describe.skipIf(!mode)('a hold nobody decides, on a Temporal server', () => {
  let stack: EngineStack;
  let acct: TestAccount;

  beforeAll(async () => {
    stack = await openEngineStack(mode!);
    acct = await stack.ctx.account('growth');
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
  });

  test('the workflow asks for expired from system, the decision is expired, and its history replays to the same request', async () => {
    const policy = await acct.test.post('/v1/policies', policyBody({ require_approval_above: 100, approval_timeout_seconds: 2 }));
    const agentId = (await acct.test.post('/v1/agents', { name: 'expiring', policy_id: policy.body.id })).body.id;
    const held = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 500, currency: 'USD', vendor: 'shop.example' });
    expect(held.body).toMatchObject({ decision: 'held', status: 'pending' });
    const decisionId = held.body.decision_id as string;

    const handle = stack.server.env.client.workflow.getHandle(heldWorkflowId(decisionId));
    const deadline = Date.now() + 60_000;
    // The relay starts the workflow a moment after the hold; wait for it, then for its result.
    for (;;) {
      try {
        await handle.describe();
        break;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    expect(await handle.result()).toMatchObject({ decisionId, status: 'expired', reasonCode: 'approval_expired', resolvedBy: 'system' });
    expect((await acct.test.get(`/v1/decisions/${decisionId}`)).body).toMatchObject({ decision: 'denied', status: 'expired', reason_code: 'approval_expired' });

    const history = JSON.parse(await recordHistory(stack.server.env.client, heldWorkflowId(decisionId), 'expired')) as HistoryJson;
    const recorded = recordedValues(history);
    expect(recorded.activities).toEqual([{ activityType: 'resolveHeldDecision', args: [{ decisionId, outcome: 'expired', note: null, reviewer: null, via: 'system' }] }]);
    expect(await replayValues(await bundleWithRecorder(), history, heldWorkflowId(decisionId))).toEqual(recorded);
  });
});
