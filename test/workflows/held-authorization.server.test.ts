/**
 * heldAuthorization against a real Temporal server, with a Worker whose activity is a recording fake.
 *
 * Runs only when a server is at hand, and never downloads one:
 *   TEMPORAL_ADDRESS=localhost:7233         an existing server (e.g. `temporal server start-dev`, compose)
 *   TEMPORAL_CLI_PATH=/path/to/temporal     the CLI's dev server, started by the test
 *   TEMPORAL_TEST_SERVER_PATH=/path/to/temporal-test-server   the time-skipping test server
 * The expiry scenario waits a day on the time-skipping server and two seconds on the others.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundle } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { HeldActivities } from '../../activities/held-authorization.js';
import { ApprovalStatusKey } from '../../src/temporal/search-attributes.js';
import { ensureSearchAttributes } from '../../src/temporal/worker.js';
import { sharedWorkflowBundle } from '../support/shared-temporal.js';
import { openServer, serverModeOrSkip, type ServerEnvironment } from '../support/temporal-server.js';
import type { heldAuthorization } from '../../workflows/held-authorization.js';
import type { HeldAuthorizationInput, ResolutionSummary, ResolveActivityInput, ReviewerOutcome } from '../../workflows/held-authorization.types.js';
import { approvalDecisionSignal, resolveUpdate } from '../../workflows/index.js';

const WORKFLOWS_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../workflows/index.ts');

const mode = serverModeOrSkip('workflows');

/** Stands in for activities/held-authorization.ts: records each call and answers like the real one. */
class FakeHeldActivities {
  readonly calls: ResolveActivityInput[] = [];
  /** Resolves when the activity is first called. */
  readonly called: Promise<void>;
  private markCalled!: () => void;
  private gate: Promise<void> = Promise.resolve();
  private openGate: () => void = () => {};

  constructor() {
    this.called = new Promise((resolve) => (this.markCalled = resolve));
  }

  /** Holds the activity (so the workflow stays open) until release() is called. */
  hold(): void {
    this.gate = new Promise((resolve) => (this.openGate = resolve));
  }

  release(): void {
    this.openGate();
  }

  readonly fakeResolveHeldDecision = async (input: ResolveActivityInput): Promise<ResolutionSummary> => {
    this.calls.push(input);
    this.markCalled();
    await this.gate;
    return {
      decisionId: input.decisionId,
      changed: true,
      decision: input.outcome === 'approved' ? 'approved' : 'denied',
      status: input.outcome,
      reasonCode: input.outcome === 'approved' ? null : input.outcome === 'expired' ? 'approval_expired' : 'policy_denied',
      resolvedAt: new Date().toISOString(),
      resolvedBy: input.reviewer ?? 'system',
    };
  };

  /** Registered under the workflow's activity name. */
  get activities(): Pick<HeldActivities, 'resolveHeldDecision'> {
    return { resolveHeldDecision: this.fakeResolveHeldDecision };
  }
}

describe.skipIf(!mode)(`heldAuthorization on a Temporal server (${mode?.kind ?? 'none'})`, () => {
  let server: ServerEnvironment;
  let env: TestWorkflowEnvironment;
  let namespace: string;
  let workflowBundle: WorkflowBundle;
  let seq = 0;

  beforeAll(async () => {
    server = await openServer(mode!);
    env = server.env;
    namespace = env.namespace ?? 'default';
    // The dev server registers them at start; another server may lack them.
    if (mode!.kind !== 'dev-server') await ensureSearchAttributes({ address: env.address, namespace });
    workflowBundle = await sharedWorkflowBundle({ workflowsPath: WORKFLOWS_PATH });
  }, 120_000);

  afterAll(async () => {
    await server?.teardown();
  });

  /** A unique task queue and decision per test, a Worker with the fake, and a started workflow. */
  async function run<T>(expiresInMs: number, body: (ctx: { handle: Awaited<ReturnType<typeof start>>; fake: FakeHeldActivities; decisionId: string }) => Promise<T>, fake = new FakeHeldActivities()): Promise<T> {
    seq += 1;
    const suffix = `${Date.now().toString(36)}-${seq}`;
    const taskQueue = `held-authorization-test-${suffix}`;
    const decisionId = `dec_test_${suffix}`;
    const worker = await Worker.create({ connection: env.nativeConnection, namespace, taskQueue, workflowBundle, activities: fake.activities });
    const now = await env.currentTimeMs();
    const input: HeldAuthorizationInput = { decisionId, expiresAt: new Date(now + expiresInMs).toISOString() };
    return worker.runUntil(async () => {
      const handle = await start(taskQueue, input);
      return body({ handle, fake, decisionId });
    });
  }

  function start(taskQueue: string, input: HeldAuthorizationInput) {
    return env.client.workflow.start<typeof heldAuthorization>('heldAuthorization', {
      workflowId: `held-${input.decisionId}`,
      taskQueue,
      args: [input],
      typedSearchAttributes: [{ key: ApprovalStatusKey, value: 'pending' }],
    });
  }

  const HOUR = 3_600_000;

  test('an Update approves: the reviewer gets the recorded resolution synchronously', async () => {
    const outcome: ReviewerOutcome = { outcome: 'approved', note: 'known vendor', reviewer: 'usr_reviewer_1' };
    await run(HOUR, async ({ handle, fake, decisionId }) => {
      const resolution = await handle.executeUpdate(resolveUpdate, { args: [outcome] });

      expect(resolution).toMatchObject({ decisionId, changed: true, decision: 'approved', status: 'approved', resolvedBy: 'usr_reviewer_1' });
      expect(fake.calls).toEqual([{ decisionId, outcome: 'approved', note: 'known vendor', reviewer: 'usr_reviewer_1', via: 'api' }]);
      expect(await handle.result()).toEqual(resolution);
      const description = await handle.describe();
      expect(description.typedSearchAttributes.get(ApprovalStatusKey)).toBe('approved');
    });
  });

  test('an Update after a signal already decided is rejected by the validator', async () => {
    const fake = new FakeHeldActivities();
    fake.hold(); // keep the workflow open between the signal's resolution and the Update
    await run(
      HOUR,
      async ({ handle, decisionId }) => {
        await handle.signal(approvalDecisionSignal, { outcome: 'denied', note: 'vendor not allowed', reviewer: 'ops@example.com' });
        await fake.called;

        const rejected: unknown = await handle.executeUpdate(resolveUpdate, { args: [{ outcome: 'approved', reviewer: 'usr_reviewer_1' }] }).then(
          () => undefined,
          (err: unknown) => err,
        );
        expect(rejected).toBeInstanceOf(WorkflowUpdateFailedError);
        expect((rejected as WorkflowUpdateFailedError).cause?.message).toBe('already resolved');

        fake.release();
        const result = await handle.result();
        expect(result).toMatchObject({ decisionId, status: 'denied', resolvedBy: 'ops@example.com' });
        expect(fake.calls).toEqual([{ decisionId, outcome: 'denied', note: 'vendor not allowed', reviewer: 'ops@example.com', via: 'operator' }]);
      },
      fake,
    );
  });

  test('a signal (Temporal UI or CLI) approves', async () => {
    await run(HOUR, async ({ handle, fake, decisionId }) => {
      await handle.signal(approvalDecisionSignal, { outcome: 'approved', note: 'approved from the UI', reviewer: 'ops@example.com' });

      const result = await handle.result();
      expect(result).toMatchObject({ decisionId, changed: true, decision: 'approved', status: 'approved', resolvedBy: 'ops@example.com' });
      expect(fake.calls).toEqual([{ decisionId, outcome: 'approved', note: 'approved from the UI', reviewer: 'ops@example.com', via: 'operator' }]);
      const description = await handle.describe();
      expect(description.typedSearchAttributes.get(ApprovalStatusKey)).toBe('approved');
    });
  });

  test('nobody decides: the hold expires and resolves as expired', async () => {
    await run(mode?.kind === 'time-skipping' ? 24 * HOUR : 2_000, async ({ handle, fake, decisionId }) => {
      // Awaiting the result lets the time-skipping server jump to the timer.
      const result = await handle.result();

      expect(result).toMatchObject({ decisionId, status: 'expired', reasonCode: 'approval_expired', resolvedBy: 'system' });
      expect(fake.calls).toEqual([{ decisionId, outcome: 'expired', note: null, reviewer: null, via: 'system' }]);
    });
  });
});
