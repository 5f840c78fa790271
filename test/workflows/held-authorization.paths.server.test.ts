/**
 * Every branch of heldAuthorization's handlers and waits, on a real Temporal server: the Update
 * validator, the signal guards, notices, quorum, escalation and expiry, on both paths (the
 * approval-chains path of new runs, and the single-approval path that holds started before that
 * change still take). Replay cannot judge these: a validator is not run again on replay, and a
 * refused Update or an ignored signal leaves nothing in the history.
 *
 * The activities are a scripted fake (ScriptedHold), named as such: what is under test here is the
 * workflow's choice of activity, input and outcome. The real activities run against PostgreSQL in
 * test/activities/held-authorization.test.ts, and the whole chain in the other .server files.
 *
 * The bundles come from bundleForReplay, so under mutation testing (docs/testing.md) the worker
 * runs the mutant that is switched on. Waits are one to three seconds of real time on the dev
 * server; where a signal or Update must come first, the hold gives it three seconds.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WorkflowUpdateFailedError, WorkflowUpdateStage, type WorkflowHandle } from '@temporalio/client';
import { DefaultLogger, Runtime, Worker, type WorkflowBundle } from '@temporalio/worker';
import { defineSignal, defineUpdate } from '@temporalio/workflow';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ApprovalStatusKey } from '../../src/temporal/search-attributes.js';
import { bundleForReplay } from '../support/replay-bundle.js';
import { openServer, serverModeOrSkip, type ServerEnvironment } from '../support/temporal-server.js';
import { until } from '../support/wait.js';
import type { heldAuthorization } from '../../workflows/held-authorization.js';
import type { ApprovalActivityInput, EscalationSummary, HeldAuthorizationInput, ResolutionSummary, ResolveActivityInput, ReviewerOutcome } from '../../workflows/held-authorization.types.js';

// The workflow's signal and Update by their names, as the Temporal UI and the API send them. Importing
// the workflow module instead would load it into this process, which under mutation testing runs
// its mutated code here as well and makes Stryker read coverage it cannot have (docs/testing.md).
const approvalDecisionSignal = defineSignal<[ReviewerOutcome]>('approvalDecision');
const resolveUpdate = defineUpdate<ResolutionSummary, [ReviewerOutcome]>('resolve');

const here = path.dirname(fileURLToPath(import.meta.url));
const BUNDLES = {
  'approval chains (runs started now)': path.resolve(here, '../../workflows/index.ts'),
  'single approval (runs started before approval chains)': path.resolve(here, '../support/workflows-before-approval-chains.ts'),
} as const;
type PathName = keyof typeof BUNDLES;
const PATHS = Object.keys(BUNDLES) as PathName[];
const CHAINS: PathName = PATHS[0]!;

const mode = serverModeOrSkip('held-authorization paths');

type Call =
  | { activity: 'resolveHeldDecision'; input: ResolveActivityInput }
  | { activity: 'recordApproval'; input: ApprovalActivityInput }
  | { activity: 'escalateHold'; input: { decisionId: string } };

/** A fake of activities/held-authorization.ts for one hold: records each call and answers as scripted. */
class ScriptedHold {
  readonly calls: Call[] = [];
  /** Resolves at the first call of any activity. */
  readonly firstCall: Promise<void>;
  private markCalled!: () => void;
  private gate: Promise<void> = Promise.resolve();
  private openGate: () => void = () => {};
  private approvals = 0;

  constructor(
    private readonly script: {
      /** What a notice's check finds (the hold's status elsewhere). Default: denied. */
      noticeFinds?: 'pending' | 'denied';
      /** What a reviewer's or operator's resolution finds, when not the outcome asked (a quorum hold on the single-approval path stays pending). */
      outcomeFinds?: 'pending';
      /** What escalateHold answers. Default: escalated. */
      escalated?: boolean;
      /** Approvals recordApproval counts before it answers approved. Default: 2. */
      quorum?: number;
    } = {},
  ) {
    this.firstCall = new Promise((resolve) => (this.markCalled = resolve));
  }

  /** Holds resolveHeldDecision (the workflow stays open) until release(). */
  hold(): void {
    this.gate = new Promise((resolve) => (this.openGate = resolve));
  }

  release(): void {
    this.openGate();
  }

  /** The inputs of one activity's calls, in order. */
  of(activity: Call['activity']): unknown[] {
    return this.calls.filter((c) => c.activity === activity).map((c) => c.input);
  }

  async resolve(input: ResolveActivityInput): Promise<ResolutionSummary> {
    this.calls.push({ activity: 'resolveHeldDecision', input });
    this.markCalled();
    await this.gate;
    const status = input.via === 'notice' ? (this.script.noticeFinds ?? 'denied') : input.outcome === 'expired' ? 'expired' : (this.script.outcomeFinds ?? input.outcome);
    return summary(input.decisionId, status, input.via === 'notice' ? 'system' : (input.reviewer ?? 'system'), status !== 'pending' && input.via !== 'notice');
  }

  async recordApproval(input: ApprovalActivityInput): Promise<ResolutionSummary> {
    this.calls.push({ activity: 'recordApproval', input });
    this.markCalled();
    this.approvals += 1;
    const done = this.approvals >= (this.script.quorum ?? 2);
    return summary(input.decisionId, done ? 'approved' : 'pending', done ? (input.reviewer ?? 'operator') : null, true);
  }

  async escalate(input: { decisionId: string }): Promise<EscalationSummary> {
    this.calls.push({ activity: 'escalateHold', input });
    this.markCalled();
    return { decisionId: input.decisionId, escalated: this.script.escalated ?? true, status: 'pending' };
  }
}

function summary(decisionId: string, status: ResolutionSummary['status'], resolvedBy: string | null, changed: boolean): ResolutionSummary {
  return {
    decisionId,
    changed,
    decision: status === 'approved' ? 'approved' : status === 'pending' ? 'held' : 'denied',
    status,
    reasonCode: status === 'expired' ? 'approval_expired' : status === 'denied' ? 'reviewer_denied' : null,
    resolvedAt: status === 'pending' ? null : '2026-01-01T00:00:00.000Z',
    resolvedBy,
  };
}

const HOUR = 3_600_000;
const approve = (reviewer: string | undefined, note?: string): ReviewerOutcome => ({ outcome: 'approved', ...(reviewer ? { reviewer } : {}), ...(note ? { note } : {}) });
const deny = (reviewer: string, note?: string): ReviewerOutcome => ({ outcome: 'denied', reviewer, ...(note ? { note } : {}) });

/** The validator's refusal of an Update, as its message. */
async function refusal(handle: WorkflowHandle<typeof heldAuthorization>, outcome: unknown): Promise<string | undefined> {
  try {
    await handle.executeUpdate(resolveUpdate, { args: [outcome as ReviewerOutcome] });
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
    return (err as WorkflowUpdateFailedError).cause?.message;
  }
}

const approvalStatus = async (handle: WorkflowHandle<typeof heldAuthorization>) => (await handle.describe()).typedSearchAttributes.get(ApprovalStatusKey);

describe.skipIf(!mode)(`heldAuthorization, branch by branch (${mode?.kind ?? 'no server'})`, () => {
  let server: ServerEnvironment;
  const scripts = new Map<string, ScriptedHold>();
  const workers: { queue: string; run: Promise<void>; worker: Worker }[] = [];
  const queues = new Map<PathName, string>();
  const bundles = new Map<PathName, WorkflowBundle>();
  let activities: Record<string, (input: never) => Promise<unknown>>;
  let seq = 0;

  beforeAll(async () => {
    try {
      Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
    } catch {
      // A Runtime already exists in this process: keep it.
    }
    server = await openServer(mode!);
    if (mode!.kind !== 'dev-server') {
      // The dev server registers them at start; another server may lack them.
      const { ensureSearchAttributes } = await import('../../src/temporal/worker.js');
      await ensureSearchAttributes({ address: server.env.address, namespace: server.namespace });
    }
    const script = (id: string) => {
      const s = scripts.get(id);
      if (!s) throw new Error(`no script for ${id}`);
      return s;
    };
    activities = {
      resolveHeldDecision: (input: ResolveActivityInput) => script(input.decisionId).resolve(input),
      recordApproval: (input: ApprovalActivityInput) => script(input.decisionId).recordApproval(input),
      escalateHold: (input: { decisionId: string }) => script(input.decisionId).escalate(input),
    };
    const suffix = Date.now().toString(36);
    for (const name of PATHS) {
      const workflowBundle: WorkflowBundle = await bundleForReplay({ workflowsPath: BUNDLES[name] });
      bundles.set(name, workflowBundle);
      const queue = `held-paths-${PATHS.indexOf(name)}-${suffix}`;
      const worker = await Worker.create({ connection: server.env.nativeConnection, namespace: server.namespace, taskQueue: queue, workflowBundle, activities });
      workers.push({ queue, worker, run: worker.run() });
      queues.set(name, queue);
    }
  }, 180_000);

  afterAll(async () => {
    for (const w of workers) w.worker.shutdown();
    await Promise.allSettled(workers.map((w) => w.run));
    await server?.teardown();
  }, 60_000);

  /** Starts a hold on the given path with its own script. */
  async function hold(pathName: PathName, script: ScriptedHold, input: Partial<Omit<HeldAuthorizationInput, 'decisionId'>> & { expiresInMs?: number; escalatesInMs?: number } = {}, taskQueue = queues.get(pathName)!) {
    seq += 1;
    const decisionId = `dec_paths_${Date.now().toString(36)}_${seq}`;
    scripts.set(decisionId, script);
    const { expiresInMs = HOUR, escalatesInMs, ...rest } = input;
    const now = Date.now();
    const args: HeldAuthorizationInput = {
      decisionId,
      expiresAt: new Date(now + expiresInMs).toISOString(),
      ...(escalatesInMs !== undefined ? { escalatesAt: new Date(now + escalatesInMs).toISOString() } : {}),
      ...rest,
    };
    const handle = await server.env.client.workflow.start<typeof heldAuthorization>('heldAuthorization', {
      workflowId: `held-${decisionId}`,
      taskQueue,
      args: [args],
      typedSearchAttributes: [{ key: ApprovalStatusKey, value: 'pending' }],
    });
    return { handle, decisionId };
  }

  /**
   * Starts a hold on a task queue no worker polls yet, sends what `before` sends, then runs a worker
   * until the run closes: the first workflow task carries the start and everything sent, so the
   * handlers all run before the workflow's first wait.
   */
  async function holdInOneTask(
    pathName: PathName,
    script: ScriptedHold,
    input: Parameters<typeof hold>[2],
    before: (handle: WorkflowHandle<typeof heldAuthorization>) => Promise<void>,
  ) {
    const queue = `held-paths-one-task-${PATHS.indexOf(pathName)}-${Date.now().toString(36)}-${seq + 1}`;
    const started = await hold(pathName, script, input, queue);
    await before(started.handle);
    const worker = await Worker.create({ connection: server.env.nativeConnection, namespace: server.namespace, taskQueue: queue, workflowBundle: bundles.get(pathName)!, activities });
    const result = await worker.runUntil(started.handle.result());
    return { ...started, result };
  }

  /** The kinds of events in a run's history (e.g. EVENT_TYPE_TIMER_STARTED). */
  const eventTypes = async (handle: WorkflowHandle<typeof heldAuthorization>) => ((await handle.fetchHistory()).events ?? []).map((e) => String(e.eventType));
  // temporal.api.enums.v1.EventType
  const ACTIVITY_TASK_SCHEDULED = 10;
  const TIMER_STARTED = 17;

  describe.concurrent.each(PATHS)('%s', (pathName) => {
      test('an Update approves: one resolution by the reviewer through the API, its result returned, ApprovalStatus approved', async () => {
        const s = new ScriptedHold();
        const { handle, decisionId } = await hold(pathName, s, { approvalsRequired: 1 });
        const answer = await handle.executeUpdate(resolveUpdate, { args: [approve('key_a', 'known vendor')] });
        expect(answer).toMatchObject({ decisionId, status: 'approved', resolvedBy: 'key_a' });
        expect(await handle.result()).toEqual(answer);
        expect(s.calls).toEqual([{ activity: 'resolveHeldDecision', input: { decisionId, outcome: 'approved', note: 'known vendor', reviewer: 'key_a', via: 'api' } }]);
        expect(await approvalStatus(handle)).toBe('approved');
      });

      test('an Update denies, without a note: the note is recorded as null', async () => {
        const s = new ScriptedHold();
        const { handle, decisionId } = await hold(pathName, s);
        expect(await handle.executeUpdate(resolveUpdate, { args: [deny('key_a')] })).toMatchObject({ status: 'denied' });
        expect(s.calls).toEqual([{ activity: 'resolveHeldDecision', input: { decisionId, outcome: 'denied', note: null, reviewer: 'key_a', via: 'api' } }]);
        expect(await approvalStatus(handle)).toBe('denied');
      });

      test('an Update that is no outcome is refused as invalid, and the hold still waits', async () => {
        const s = new ScriptedHold();
        const { handle, decisionId } = await hold(pathName, s);
        for (const bad of [{ outcome: 'maybe', reviewer: 'key_a' }, { outcome: 'approved', reviewer: 42 }, null]) {
          expect(await refusal(handle, bad)).toBe('invalid outcome: expected {"outcome": "approved" | "denied"}');
        }
        expect(s.calls).toEqual([]);
        await handle.executeUpdate(resolveUpdate, { args: [deny('key_b', 'no')] });
        expect(s.calls).toEqual([{ activity: 'resolveHeldDecision', input: { decisionId, outcome: 'denied', note: 'no', reviewer: 'key_b', via: 'api' } }]);
      });

      test('a second Update while the first is being recorded is refused: already resolved', async () => {
        const s = new ScriptedHold();
        s.hold();
        const { handle, decisionId } = await hold(pathName, s);
        const first = handle.executeUpdate(resolveUpdate, { args: [deny('key_a')] });
        await s.firstCall;
        expect(await refusal(handle, approve('key_b'))).toBe('already resolved');
        s.release();
        expect(await first).toMatchObject({ decisionId, status: 'denied', resolvedBy: 'key_a' });
        expect(s.calls).toHaveLength(1);
      });

      test('nobody decides: at its expiry the hold is resolved as expired by the system, and a late Update is refused: expired', async () => {
        const s = new ScriptedHold();
        s.hold();
        const { handle, decisionId } = await hold(pathName, s, { expiresInMs: 1_000 });
        await s.firstCall;
        expect(s.calls).toEqual([{ activity: 'resolveHeldDecision', input: { decisionId, outcome: 'expired', note: null, reviewer: null, via: 'system' } }]);
        expect(await refusal(handle, approve('key_a'))).toBe('expired');
        s.release();
        expect(await handle.result()).toMatchObject({ decisionId, status: 'expired', resolvedBy: 'system' });
        expect(await approvalStatus(handle)).toBe('expired');
        expect(s.calls).toHaveLength(1);
      });

      test('a hold started after its expiry resolves as expired at once', async () => {
        const s = new ScriptedHold();
        const { handle } = await hold(pathName, s, { expiresInMs: -5_000 });
        expect(await handle.result()).toMatchObject({ status: 'expired' });
        expect(s.of('resolveHeldDecision')).toEqual([expect.objectContaining({ outcome: 'expired', via: 'system' })]);
        // Nothing left to wait for: no timer, not even one of a millisecond.
        expect(await eventTypes(handle)).not.toContain(String(TIMER_STARTED));
      });

      test('two signals in the first workflow task: the first decides, the second is ignored', async () => {
        const s = new ScriptedHold();
        const { decisionId, result } = await holdInOneTask(pathName, s, {}, async (handle) => {
          await handle.signal(approvalDecisionSignal, { outcome: 'approved', reviewer: 'ops-1' });
          await handle.signal(approvalDecisionSignal, { outcome: 'denied', reviewer: 'ops-2' });
        });
        expect(result).toMatchObject({ decisionId, status: 'approved', resolvedBy: 'ops-1' });
        expect(s.calls).toEqual([{ activity: 'resolveHeldDecision', input: { decisionId, outcome: 'approved', note: null, reviewer: 'ops-1', via: 'operator' } }]);
      });

      test('a hold started after its expiry with a signal in its first task: the signal goes to the resolution, which records the expiry if it is late', async () => {
        const s = new ScriptedHold();
        const { decisionId } = await holdInOneTask(pathName, s, { expiresInMs: -5_000 }, async (handle) => {
          await handle.signal(approvalDecisionSignal, { outcome: 'approved', reviewer: 'ops' });
        });
        expect(s.calls).toEqual([{ activity: 'resolveHeldDecision', input: { decisionId, outcome: 'approved', note: null, reviewer: 'ops', via: 'operator' } }]);
      });

      test('an Update in the first workflow task of a hold whose time is up is refused by workflow time (no timer has fired yet): expired', async () => {
        const s = new ScriptedHold();
        let update!: Promise<string>;
        const { decisionId, result } = await holdInOneTask(pathName, s, { expiresInMs: 1_000 }, async (handle) => {
          await new Promise((r) => setTimeout(r, 1_500));
          update = handle.executeUpdate(resolveUpdate, { args: [approve('key_late')] }).then(
            () => 'accepted',
            (err: Error & { cause?: Error }) => err.cause?.message ?? err.message,
          );
          // The engine has the Update before a worker polls.
          await new Promise((r) => setTimeout(r, 500));
        });
        expect(await update).toBe('expired');
        expect(result).toMatchObject({ decisionId, status: 'expired' });
        expect(s.calls).toEqual([{ activity: 'resolveHeldDecision', input: { decisionId, outcome: 'expired', note: null, reviewer: null, via: 'system' } }]);
      });

      test('after the expiry, a late signal is ignored and a late Update is still refused: expired', async () => {
        const s = new ScriptedHold();
        s.hold();
        const { handle, decisionId } = await hold(pathName, s, { expiresInMs: 1_000 });
        await s.firstCall;
        await handle.signal(approvalDecisionSignal, { outcome: 'approved', reviewer: 'ops' });
        expect(await refusal(handle, deny('key_a'))).toBe('expired');
        s.release();
        expect(await handle.result()).toMatchObject({ decisionId, status: 'expired' });
        expect(s.calls).toHaveLength(1);
      });

      test('a resolution that finds the hold still pending (a quorum hold on the single-approval path) ends the run with it pending', async () => {
        const s = new ScriptedHold({ outcomeFinds: 'pending' });
        const { handle, decisionId } = await hold(pathName, s, { approvalsRequired: 1 });
        expect(await handle.executeUpdate(resolveUpdate, { args: [approve('key_a')] })).toMatchObject({ decisionId, status: 'pending' });
        expect(await handle.result()).toMatchObject({ decisionId, status: 'pending' });
        expect(s.calls).toHaveLength(1);
      });

      test("a signal decides as an operator's, whatever `via` it claims, with its note and reviewer", async () => {
        const s = new ScriptedHold();
        const { handle, decisionId } = await hold(pathName, s);
        await handle.signal(approvalDecisionSignal, { outcome: 'denied', note: 'from the UI', reviewer: 'ops@example.com', via: 'api' });
        expect(await handle.result()).toMatchObject({ status: 'denied', resolvedBy: 'ops@example.com' });
        expect(s.calls).toEqual([{ activity: 'resolveHeldDecision', input: { decisionId, outcome: 'denied', note: 'from the UI', reviewer: 'ops@example.com', via: 'operator' } }]);
      });

      test('a signal without note or reviewer is recorded with both null', async () => {
        const s = new ScriptedHold();
        const { handle, decisionId } = await hold(pathName, s);
        await handle.signal(approvalDecisionSignal, { outcome: 'denied' });
        await handle.result();
        expect(s.calls).toEqual([{ activity: 'resolveHeldDecision', input: { decisionId, outcome: 'denied', note: null, reviewer: null, via: 'operator' } }]);
      });

      test('a signal naming another decision, or malformed, is ignored; one naming this decision counts', async () => {
        const s = new ScriptedHold();
        const { handle, decisionId } = await hold(pathName, s);
        await handle.signal(approvalDecisionSignal, { outcome: 'denied', reviewer: 'ops', decision_id: 'dec_someone_else' });
        await handle.signal(approvalDecisionSignal, { outcome: 'rejected', reviewer: 'ops' } as unknown as ReviewerOutcome);
        await handle.signal(approvalDecisionSignal, { outcome: 'denied', reviewer: 'ops-2', decision_id: decisionId });
        expect(await handle.result()).toMatchObject({ status: 'denied', resolvedBy: 'ops-2' });
        expect(s.calls).toEqual([{ activity: 'resolveHeldDecision', input: { decisionId, outcome: 'denied', note: null, reviewer: 'ops-2', via: 'operator' } }]);
      });

      test('a second signal after the first decided is ignored, and so is an Update: already resolved', async () => {
        const s = new ScriptedHold();
        s.hold();
        const { handle, decisionId } = await hold(pathName, s);
        await handle.signal(approvalDecisionSignal, { outcome: 'denied', reviewer: 'ops' });
        await s.firstCall;
        await handle.signal(approvalDecisionSignal, { outcome: 'approved', reviewer: 'ops-2' });
        expect(await refusal(handle, deny('key_a'))).toBe('already resolved');
        s.release();
        expect(await handle.result()).toMatchObject({ decisionId, status: 'denied', resolvedBy: 'ops' });
        expect(s.calls).toHaveLength(1);
      });

      test("signal approvals off: an operator's signal decides nothing, the reviewer's Update does", async () => {
        const s = new ScriptedHold();
        const { handle, decisionId } = await hold(pathName, s, { signalApprovals: false });
        await handle.signal(approvalDecisionSignal, { outcome: 'approved', reviewer: 'ops' });
        expect(await handle.executeUpdate(resolveUpdate, { args: [deny('key_a')] })).toMatchObject({ status: 'denied' });
        expect(s.calls).toEqual([{ activity: 'resolveHeldDecision', input: { decisionId, outcome: 'denied', note: null, reviewer: 'key_a', via: 'api' } }]);
      });

      test('signal approvals off: a notice that the hold was resolved elsewhere ends it with what the check found', async () => {
        const s = new ScriptedHold({ noticeFinds: 'denied' });
        const { handle, decisionId } = await hold(pathName, s, { signalApprovals: false });
        await handle.signal(approvalDecisionSignal, { outcome: 'denied', reviewer: 'system', note: 'agent frozen' });
        expect(await handle.result()).toMatchObject({ decisionId, status: 'denied', resolvedBy: 'system' });
        expect(s.calls).toEqual([{ activity: 'resolveHeldDecision', input: { decisionId, outcome: 'denied', note: 'agent frozen', reviewer: 'system', via: 'notice' } }]);
        expect(await approvalStatus(handle)).toBe('denied');
      });

      test('signal approvals off: an Update waiting on a notice being checked gets the resolution the check found, and the run ends', async () => {
        const s = new ScriptedHold({ noticeFinds: 'denied' });
        s.hold();
        const { handle, decisionId } = await hold(pathName, s, { signalApprovals: false });
        await handle.signal(approvalDecisionSignal, { outcome: 'denied', reviewer: 'system' });
        await s.firstCall;
        // Accepted (past its validator) while the notice is being checked.
        const waiting = await handle.startUpdate(resolveUpdate, { args: [approve('key_a')], waitForStage: WorkflowUpdateStage.ACCEPTED });
        s.release();
        expect(await waiting.result()).toMatchObject({ decisionId, status: 'denied', resolvedBy: 'system' });
        expect(await handle.result()).toMatchObject({ decisionId, status: 'denied' });
        expect(s.calls).toHaveLength(1);
      });

      test('signal approvals off: a forged notice (the hold is still pending) changes nothing; the wait goes on to the reviewer', async () => {
        const s = new ScriptedHold({ noticeFinds: 'pending' });
        s.hold();
        const { handle, decisionId } = await hold(pathName, s, { signalApprovals: false });
        await handle.signal(approvalDecisionSignal, { outcome: 'denied', reviewer: 'system' });
        await s.firstCall;
        // A reviewer's Update while the notice is checked is accepted, and waits for the check.
        const answer = handle.executeUpdate(resolveUpdate, { args: [approve('key_a')] });
        await new Promise((r) => setTimeout(r, 300));
        expect(s.calls).toHaveLength(1);
        s.release();
        expect(await answer).toMatchObject({ decisionId, status: 'approved', resolvedBy: 'key_a' });
        expect(s.calls.map((c) => c.input)).toEqual([
          { decisionId, outcome: 'denied', note: null, reviewer: 'system', via: 'notice' },
          { decisionId, outcome: 'approved', note: null, reviewer: 'key_a', via: 'api' },
        ]);
        expect(await approvalStatus(handle)).toBe('approved');
      });

      test('signal approvals off: after a forged notice the hold still expires on time', async () => {
        const s = new ScriptedHold({ noticeFinds: 'pending' });
        const { handle, decisionId } = await hold(pathName, s, { signalApprovals: false, expiresInMs: 3_000 });
        await handle.signal(approvalDecisionSignal, { outcome: 'denied', reviewer: 'system' });
        expect(await handle.result()).toMatchObject({ status: 'expired' });
        expect(s.calls.map((c) => c.input)).toEqual([
          { decisionId, outcome: 'denied', note: null, reviewer: 'system', via: 'notice' },
          { decisionId, outcome: 'expired', note: null, reviewer: null, via: 'system' },
        ]);
      });
  });

  describe.concurrent('approval chains only', () => {
    test('a quorum of two: the first approval answers pending, the same key again and an unnamed approval are refused, a second key approves', async () => {
      const s = new ScriptedHold({ quorum: 2 });
      const { handle, decisionId } = await hold(CHAINS, s, { approvalsRequired: 2 });
      expect(await handle.executeUpdate(resolveUpdate, { args: [approve('key_a', 'first')] })).toMatchObject({ status: 'pending' });
      expect(await refusal(handle, approve('key_a'))).toBe('already approved');
      expect(await refusal(handle, approve(undefined))).toBe('invalid outcome: an approval towards a quorum names its reviewer');
      expect(await approvalStatus(handle)).toBe('pending');
      expect(await handle.executeUpdate(resolveUpdate, { args: [approve('key_b')] })).toMatchObject({ status: 'approved', resolvedBy: 'key_b' });
      expect(await handle.result()).toMatchObject({ status: 'approved', resolvedBy: 'key_b' });
      expect(s.calls).toEqual([
        { activity: 'recordApproval', input: { decisionId, note: 'first', reviewer: 'key_a', via: 'api' } },
        { activity: 'recordApproval', input: { decisionId, note: null, reviewer: 'key_b', via: 'api' } },
      ]);
      expect(await approvalStatus(handle)).toBe('approved');
    });

    test("a quorum of two: operators' signals count as one approver, and a reviewer's key completes it", async () => {
      const s = new ScriptedHold({ quorum: 2 });
      const { handle, decisionId } = await hold(CHAINS, s, { approvalsRequired: 2 });
      await handle.signal(approvalDecisionSignal, { outcome: 'approved', reviewer: 'ops-1' });
      await handle.signal(approvalDecisionSignal, { outcome: 'approved', reviewer: 'ops-2' });
      await until('the operator approval', () => (s.calls.length > 0 ? true : undefined), 10_000, 50);
      expect(await handle.executeUpdate(resolveUpdate, { args: [approve('key_a')] })).toMatchObject({ status: 'approved' });
      expect(s.calls).toEqual([
        { activity: 'recordApproval', input: { decisionId, note: null, reviewer: 'ops-1', via: 'operator' } },
        { activity: 'recordApproval', input: { decisionId, note: null, reviewer: 'key_a', via: 'api' } },
      ]);
    });

    test('a quorum of two: one denial after one approval denies at once', async () => {
      const s = new ScriptedHold({ quorum: 2 });
      const { handle, decisionId } = await hold(CHAINS, s, { approvalsRequired: 2 });
      await handle.executeUpdate(resolveUpdate, { args: [approve('key_a')] });
      expect(await handle.executeUpdate(resolveUpdate, { args: [deny('key_b', 'too much')] })).toMatchObject({ status: 'denied', resolvedBy: 'key_b' });
      expect(s.calls.map((c) => c.activity)).toEqual(['recordApproval', 'resolveHeldDecision']);
      expect(s.of('resolveHeldDecision')).toEqual([{ decisionId, outcome: 'denied', note: 'too much', reviewer: 'key_b', via: 'api' }]);
      expect(await approvalStatus(handle)).toBe('denied');
    });

    test('a quorum of two: one approval, then nobody: the hold expires', async () => {
      const s = new ScriptedHold({ quorum: 2 });
      const { handle, decisionId } = await hold(CHAINS, s, { approvalsRequired: 2, expiresInMs: 3_000 });
      await handle.executeUpdate(resolveUpdate, { args: [approve('key_a')] });
      expect(await handle.result()).toMatchObject({ status: 'expired' });
      expect(s.of('resolveHeldDecision')).toEqual([{ decisionId, outcome: 'expired', note: null, reviewer: null, via: 'system' }]);
    });

    test('a hold needing one approval (or started without approvalsRequired) is resolved by the first approval, never counted', async () => {
      for (const approvalsRequired of [1, undefined]) {
        const s = new ScriptedHold();
        const { handle } = await hold(CHAINS, s, approvalsRequired === undefined ? {} : { approvalsRequired });
        expect(await handle.executeUpdate(resolveUpdate, { args: [approve(undefined)] })).toMatchObject({ status: 'approved' });
        expect(s.calls.map((c) => c.activity)).toEqual(['resolveHeldDecision']);
      }
    });

    test('escalation: a hold still pending at its escalation time escalates once (ApprovalStatus escalated) and then waits for its reviewer', async () => {
      const s = new ScriptedHold();
      const { handle, decisionId } = await hold(CHAINS, s, { escalatesInMs: 800 });
      await until('ApprovalStatus escalated', async () => ((await approvalStatus(handle)) === 'escalated' ? true : undefined), 15_000, 100);
      expect(s.calls).toEqual([{ activity: 'escalateHold', input: { decisionId } }]);
      expect(await handle.executeUpdate(resolveUpdate, { args: [approve('key_a')] })).toMatchObject({ status: 'approved' });
      expect(s.calls.map((c) => c.activity)).toEqual(['escalateHold', 'resolveHeldDecision']);
      expect(await approvalStatus(handle)).toBe('approved');
    });

    test('escalation that the activity finds already done (escalated: false) leaves ApprovalStatus pending', async () => {
      const s = new ScriptedHold({ escalated: false });
      const { handle } = await hold(CHAINS, s, { escalatesInMs: 500 });
      await until('the escalation', () => (s.calls.length > 0 ? true : undefined), 15_000, 50);
      await new Promise((r) => setTimeout(r, 300));
      expect(await approvalStatus(handle)).toBe('pending');
      await handle.executeUpdate(resolveUpdate, { args: [deny('key_a')] });
      expect(s.calls.map((c) => c.activity)).toEqual(['escalateHold', 'resolveHeldDecision']);
    });

    test('escalation time already past at the start: escalates at once', async () => {
      const s = new ScriptedHold();
      const { handle } = await hold(CHAINS, s, { escalatesInMs: -1_000 });
      await until('the escalation', () => (s.calls.length > 0 ? true : undefined), 15_000, 50);
      await handle.executeUpdate(resolveUpdate, { args: [deny('key_a')] });
      expect(s.calls.map((c) => c.activity)).toEqual(['escalateHold', 'resolveHeldDecision']);
      // The escalation was not waited for: no timer before it.
      const events = await eventTypes(handle);
      const firstTimer = events.indexOf(String(TIMER_STARTED));
      expect(firstTimer === -1 || firstTimer > events.indexOf(String(ACTIVITY_TASK_SCHEDULED))).toBe(true);
    });

    test('a hold resolved before its escalation time, or escalating no earlier than it expires, never escalates', async () => {
      const early = new ScriptedHold();
      const resolved = await hold(CHAINS, early, { escalatesInMs: 5_000 });
      await resolved.handle.executeUpdate(resolveUpdate, { args: [approve('key_a')] });
      const late = new ScriptedHold();
      const expiring = await hold(CHAINS, late, { escalatesInMs: 1_000, expiresInMs: 1_000 });
      expect(await expiring.handle.result()).toMatchObject({ status: 'expired' });
      await new Promise((r) => setTimeout(r, 500));
      expect(early.calls.map((c) => c.activity)).toEqual(['resolveHeldDecision']);
      expect(late.calls.map((c) => c.activity)).toEqual(['resolveHeldDecision']);
    });

    test('a quorum approval racing the expiry: the Update after the expiry is refused, and the expiry is recorded', async () => {
      const s = new ScriptedHold({ quorum: 2 });
      s.hold();
      const { handle } = await hold(CHAINS, s, { approvalsRequired: 2, expiresInMs: 800 });
      await s.firstCall;
      expect(await refusal(handle, approve('key_a'))).toBe('expired');
      s.release();
      expect(await handle.result()).toMatchObject({ status: 'expired' });
      expect(s.calls.map((c) => c.activity)).toEqual(['resolveHeldDecision']);
    });
  });
});
