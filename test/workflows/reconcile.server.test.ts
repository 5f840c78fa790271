/**
 * PostgreSQL and Temporal reconciled, on a real Temporal server: a hold whose workflow an operator
 * terminated is started again while it has time left, and expired (reservation released, audit
 * record, event) once it has none. The reconcile Schedule exists once the worker has started.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { heldWorkflowId } from '../../src/temporal/ids.js';
import { RECONCILE_SCHEDULE_ID } from '../../src/temporal/periodic-jobs.js';
import type { reconcileHeldRequests } from '../../workflows/reconcile-holds.js';
import { policyBody, type TestAccount } from '../support/context.js';
import { openEngineStack, type EngineStack } from '../support/engine-stack.js';
import { serverModeOrSkip } from '../support/temporal-server.js';
import { until } from '../support/wait.js';

const run = promisify(execFile);
const mode = serverModeOrSkip('reconcile');
const cli = mode?.kind === 'dev-server' ? mode.path : undefined;
if (mode && !cli) console.log('[reconcile] skipped: needs TEMPORAL_CLI_PATH (terminates workflows with the CLI)');

describe.skipIf(!cli)('the reconciler on a Temporal server', () => {
  let stack: EngineStack;
  let acct: TestAccount;
  let seq = 0;

  beforeAll(async () => {
    // Holds of any age are compared (in production, those under two minutes are the relay's).
    stack = await openEngineStack(mode!, { deps: { minAgeMs: 0 } });
    acct = await stack.ctx.account('growth');
    // The Schedule's runs (every 300 s, at wall-clock multiples of it) would reconcile the tests'
    // holds too, with this stack's minimum age of 0: the tests run the reconciler themselves.
    await stack.server.env.client.schedule.getHandle(RECONCILE_SCHEDULE_ID).pause('the tests run the reconciler themselves');
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
  });

  const temporal = () => stack.server.env.client;

  async function waitingHold(policy: Record<string, unknown>, amount: number) {
    const p = await acct.test.post('/v1/policies', policyBody({ require_approval_above: 100, ...policy }));
    const agentId = (await acct.test.post('/v1/agents', { name: 'reconciled', policy_id: p.body.id })).body.id as string;
    const res = await acct.test.post('/v1/authorize', { agent_id: agentId, amount, currency: 'USD', vendor: 'shop.example' });
    const id = res.body.decision_id as string;
    const handle = temporal().workflow.getHandle(heldWorkflowId(id));
    await until('workflow waiting', async () => ((await handle.describe()).historyLength >= 3 ? true : undefined));
    return { id, agentId };
  }

  /** `temporal workflow terminate`, as an operator would from the CLI (or the UI's Terminate). */
  const terminate = (id: string) =>
    run(cli!, ['workflow', 'terminate', '--address', stack.server.address, '--namespace', stack.server.namespace, '--workflow-id', heldWorkflowId(id), '--reason', 'operator mistake']);

  const reconcile = () =>
    temporal().workflow.execute<typeof reconcileHeldRequests>('reconcileHeldRequests', { taskQueue: stack.settings.taskQueue, workflowId: `reconcile-test-${++seq}` });

  test('the worker created the reconcile Schedule, every RECONCILE_INTERVAL_SECONDS (300 by default)', async () => {
    const description = await temporal().schedule.getHandle(RECONCILE_SCHEDULE_ID).describe();
    expect(description.action).toMatchObject({ workflowType: 'reconcileHeldRequests', taskQueue: stack.settings.taskQueue });
    expect(description.spec.intervals).toEqual([expect.objectContaining({ every: 300_000 })]);
    expect(description.policies.overlap).toBe('SKIP');
  });

  test('a terminated workflow of a hold with time left is started again, and approval then works', async () => {
    const { id } = await waitingHold({}, 500);
    await terminate(id);
    expect((await temporal().workflow.getHandle(heldWorkflowId(id)).describe()).status.name).toBe('TERMINATED');

    const result = await reconcile();
    expect(result.restarted).toBeGreaterThanOrEqual(1);
    expect(result.failed).toBe(0);
    const handle = temporal().workflow.getHandle(heldWorkflowId(id));
    expect((await handle.describe()).status.name).toBe('RUNNING');

    const approved = await acct.test.post(`/v1/approvals/${id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved' });
    expect(await handle.result()).toMatchObject({ status: 'approved' });
  });

  test('a terminated workflow of a hold whose time is up: the hold is expired, its reservation released, with audit record and event', async () => {
    const { id, agentId } = await waitingHold({ budget_monthly: 1_000, approval_timeout_seconds: 2 }, 950);
    await terminate(id);
    await new Promise((r) => setTimeout(r, 2_500));
    // Still pending and still reserving: nothing else will ever resolve it.
    expect((await acct.test.get(`/v1/decisions/${id}`)).body.status).toBe('pending');
    expect((await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 100, currency: 'USD', vendor: 'shop.example' })).body.reason_code).toBe('budget_exceeded');

    const result = await reconcile();
    expect(result.expired).toBeGreaterThanOrEqual(1);
    expect(await acct.test.get(`/v1/decisions/${id}`).then((r) => r.body)).toMatchObject({ decision: 'denied', status: 'expired', reason_code: 'approval_expired' });
    expect((await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 100, currency: 'USD', vendor: 'shop.example' })).body.decision).toBe('approved');
    const audit = await acct.test.get(`/v1/audit-logs?agent_id=${agentId}`);
    expect(audit.body.data.find((r: any) => r.type === 'approval.completed' && r.decision_id === id)).toMatchObject({ actor: { type: 'system', id: null } });
    const events = await acct.test.get('/v1/events?limit=100');
    expect(events.body.data.find((e: any) => e.event === 'approval.completed' && e.data.decision_id === id)).toMatchObject({ data: { reason_code: 'approval_expired' } });

    // A second run finds nothing more to do for it.
    const again = await reconcile();
    expect(again.expired).toBe(0);
  });

  test('running workflows are left alone', async () => {
    const { id } = await waitingHold({}, 400);
    const result = await reconcile();
    expect(result.running).toBeGreaterThanOrEqual(1);
    const description = await temporal().workflow.getHandle(heldWorkflowId(id)).describe();
    expect(description.status.name).toBe('RUNNING');
    // Still the first run: nothing was started again.
    const runs = await temporal().workflow.list({ query: `WorkflowId = "${heldWorkflowId(id)}"` });
    let count = 0;
    for await (const _ of runs) count += 1;
    expect(count).toBe(1);
  });
});
