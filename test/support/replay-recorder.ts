/**
 * Replay that compares values, not only commands: the code under replay is bundled with
 * test/support/replay-interceptors.ts, and what it passes to each activity and returns is
 * compared with the input payloads of the history's ActivityTaskScheduled events and the result of
 * its WorkflowExecutionCompleted event. A workflow that schedules the same activity with another
 * value (an expiry resolved as `approved`) replays without a DeterminismViolationError, but not
 * equal to its history.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { msOptionalToNumber } from '@temporalio/common/lib/time.js';
import type { ActivityOptions, WorkflowInfo } from '@temporalio/workflow';
import { Worker, type InjectedSinks, type ReplayWorkerOptions, type WorkflowBundle } from '@temporalio/worker';
import { bundleForReplay } from './replay-bundle.js';
import type { HistoryEventJson, HistoryJson, PayloadJson } from './history-builder.js';
import type { ReplayRecorderSinks } from './replay-interceptors.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const WORKFLOWS_PATH = path.resolve(here, '../../workflows/index.ts');
const INTERCEPTORS_PATH = path.resolve(here, 'replay-interceptors.ts');

/**
 * An activity's timeouts and retry policy as the history records them (0 for a timeout not set).
 * The server records them as the workflow asked, so a changed timeout or retry policy, which replay
 * itself does not notice, shows here.
 */
export interface ScheduledOptions {
  startToCloseMs: number;
  scheduleToCloseMs: number;
  heartbeatMs: number;
  retry: { initialIntervalMs?: number; backoffCoefficient?: number; maximumIntervalMs?: number; maximumAttempts?: number; nonRetryableErrorTypes: string[] };
}

export interface ReplayedValues {
  activities: { activityType: string; args: unknown[]; options: ScheduledOptions }[];
  /** Absent when the history does not complete the workflow. */
  result?: unknown;
}

export const bundleWithRecorder = (): Promise<WorkflowBundle> => bundleForReplay({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules: [INTERCEPTORS_PATH] });

const fromJson = (p: PayloadJson): unknown =>
  defaultPayloadConverter.fromPayload({
    metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
    ...(p.data === undefined ? {} : { data: Buffer.from(p.data, 'base64') }),
  } as Payload);

/** As the value would read back from a history: through the default payload converter. */
const asRecorded = (value: unknown): unknown => defaultPayloadConverter.fromPayload(defaultPayloadConverter.toPayload(value));

/** A protobuf JSON duration ("30s", "0.500s") in milliseconds; absent is 0. */
const durationMs = (d: string | undefined): number => (d === undefined ? 0 : Math.round(Number(d.replace(/s$/, '')) * 1000));
const positiveOrUndefined = (n: number | undefined): number | undefined => (n === undefined || n === 0 ? undefined : n);

function historyOptions(a: Record<string, any>): ScheduledOptions {
  const r = (a.retryPolicy ?? {}) as Record<string, any>;
  return {
    startToCloseMs: durationMs(a.startToCloseTimeout),
    scheduleToCloseMs: durationMs(a.scheduleToCloseTimeout),
    heartbeatMs: durationMs(a.heartbeatTimeout),
    retry: {
      initialIntervalMs: positiveOrUndefined(durationMs(r.initialInterval)),
      backoffCoefficient: positiveOrUndefined(r.backoffCoefficient),
      maximumIntervalMs: positiveOrUndefined(durationMs(r.maximumInterval)),
      maximumAttempts: positiveOrUndefined(r.maximumAttempts),
      nonRetryableErrorTypes: r.nonRetryableErrorTypes ?? [],
    },
  };
}

/** What the workflow asked for, with the retry defaults the server records for what it left out. */
function codeOptions(o: ActivityOptions): ScheduledOptions {
  const r = o.retry ?? {};
  const initialIntervalMs = msOptionalToNumber(r.initialInterval) ?? 1_000;
  return {
    startToCloseMs: msOptionalToNumber(o.startToCloseTimeout) ?? 0,
    scheduleToCloseMs: msOptionalToNumber(o.scheduleToCloseTimeout) ?? 0,
    heartbeatMs: msOptionalToNumber(o.heartbeatTimeout) ?? 0,
    retry: {
      initialIntervalMs,
      backoffCoefficient: r.backoffCoefficient ?? 2,
      maximumIntervalMs: msOptionalToNumber(r.maximumInterval) ?? 100 * initialIntervalMs,
      maximumAttempts: positiveOrUndefined(r.maximumAttempts),
      nonRetryableErrorTypes: [...(r.nonRetryableErrorTypes ?? [])],
    },
  };
}

const attributesOf = (e: HistoryEventJson) => e[Object.keys(e).find((k) => k.endsWith('EventAttributes')) as `${string}EventAttributes`] as Record<string, any>;

/** What the history recorded: each scheduled activity's type and input, and the workflow's result. */
export function recordedValues(history: HistoryJson): ReplayedValues {
  const values: ReplayedValues = { activities: [] };
  for (const e of history.events) {
    const a = attributesOf(e);
    if (e.eventType === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED') {
      values.activities.push({ activityType: a.activityType.name, args: (a.input?.payloads ?? []).map(fromJson), options: historyOptions(a) });
    } else if (e.eventType === 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED') {
      values.result = a.result?.payloads?.[0] ? fromJson(a.result.payloads[0]) : undefined;
    }
  }
  return values;
}

/** The sink calls of one replay: what the code scheduled, and its result once it completed. */
interface Recording {
  values: ReplayedValues;
  completed: boolean;
}

interface ReplayJob {
  history: HistoryJson;
  workflowId: string;
  recording: Recording;
  /** A sink call that could not be attributed to this history (it fails the replay). */
  misrouted?: Error;
  settle: (error: unknown) => void;
  fail: (error: unknown) => void;
}

export type ReplaySessionOptions = Omit<ReplayWorkerOptions, 'workflowBundle' | 'workflowsPath'> & { workflowBundle: WorkflowBundle };

/**
 * One replay Worker for many histories, replayed one at a time as tests ask for them
 * (`Worker.runReplayHistories`): a Worker per history (`runReplayHistory`) loads the bundle into a
 * new V8 context and starts a Rust core worker each time, most of a replay's cost. The SDK's
 * reusable context still gives each workflow its own globals and module instances, so a history
 * replays as it would on a Worker of its own; the answer is the same error (or none)
 * `runReplayHistory` throws. When the Worker itself fails (a history the SDK refuses, a crash),
 * the history in flight gets that error and the next one a new Worker.
 */
export class ReplaySession {
  readonly #options: ReplaySessionOptions;
  readonly #queue: ReplayJob[] = [];
  #wake: (() => void) | undefined;
  #current: ReplayJob | undefined;
  #running: Promise<void> | undefined;
  #closed = false;

  constructor(options: ReplaySessionOptions) {
    this.#options = options;
  }

  /** Replays `history`: resolves with the error `Worker.runReplayHistory` would throw, undefined when it replays. */
  replay(history: HistoryJson, workflowId = 'fake'): Promise<unknown> {
    return this.#replay(history, workflowId).then(({ error }) => error);
  }

  /** As `replay`, with what the code reported through the recorder's sinks (a bundle with replay-interceptors.ts; others report nothing). */
  #replay(history: HistoryJson, workflowId: string): Promise<{ error: unknown; recording: Recording }> {
    if (this.#closed) return Promise.reject(new Error('the replay session is closed'));
    return new Promise((resolve, reject) => {
      const recording: Recording = { values: { activities: [] }, completed: false };
      const job: ReplayJob = {
        history,
        workflowId,
        recording,
        settle: (error) => resolve({ error: job.misrouted ?? error, recording }),
        fail: reject,
      };
      this.#queue.push(job);
      this.#start();
      this.#wake?.();
    });
  }

  /** Replays the history (throwing as plain replay does) and returns the values the code produced. */
  async values(history: HistoryJson, workflowId: string): Promise<ReplayedValues> {
    const { error, recording } = await this.#replay(history, workflowId);
    if (error !== undefined) throw error;
    const { values, completed } = recording;
    const recorded = recordedValues(history);
    if (!completed || !('result' in recorded)) delete values.result;
    return values;
  }

  /** The sink calls of the history being replayed (replay is one history at a time). */
  #recordingFor(info: WorkflowInfo): Recording | undefined {
    const job = this.#current;
    if (!job) return undefined;
    if (info.workflowId !== job.workflowId) job.misrouted ??= new Error(`a sink call of workflow ${info.workflowId} arrived while replaying ${job.workflowId}`);
    return job.recording;
  }

  #sinks(): InjectedSinks<ReplayRecorderSinks> {
    return {
      replayRecorder: {
        activityScheduled: {
          fn: (info, activityType: string, args: unknown[], options: ActivityOptions) => void this.#recordingFor(info)?.values.activities.push({ activityType, args: args.map(asRecorded), options: codeOptions(options) }),
          callDuringReplay: true,
        },
        workflowCompleted: {
          fn: (info, result: unknown) => {
            const recording = this.#recordingFor(info);
            if (!recording) return;
            recording.completed = true;
            recording.values.result = asRecorded(result);
          },
          callDuringReplay: true,
        },
      },
    };
  }

  async *#histories(): AsyncGenerator<{ history: HistoryJson; workflowId: string }> {
    for (;;) {
      while (this.#queue.length === 0) {
        if (this.#closed) return;
        await new Promise<void>((resolve) => (this.#wake = resolve));
        this.#wake = undefined;
      }
      const job = this.#queue.shift()!;
      this.#current = job;
      // The SDK takes the next history only after it has answered for this one.
      yield { history: job.history as never, workflowId: job.workflowId };
    }
  }

  #start(): void {
    if (this.#running) return;
    this.#running = (async () => {
      try {
        const sinks = { ...this.#sinks(), ...this.#options.sinks };
        for await (const { error } of Worker.runReplayHistories({ ...this.#options, sinks }, this.#histories())) {
          const job = this.#current!;
          this.#current = undefined;
          job.settle(error);
        }
      } catch (err) {
        // As runReplayHistory would have thrown it for this history; the rest go to a new Worker.
        this.#current?.fail(err);
      } finally {
        this.#current = undefined;
        this.#running = undefined;
        if (this.#queue.length > 0 && !this.#closed) this.#start();
      }
    })();
  }

  /** Ends the Worker once the histories asked for are replayed. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#wake?.();
    while (this.#running) await this.#running;
  }
}

/** Replays the history (throwing as plain replay does) and returns the values the code produced. */
export async function replayValues(source: WorkflowBundle | ReplaySession, history: HistoryJson, workflowId: string): Promise<ReplayedValues> {
  if (source instanceof ReplaySession) return source.values(history, workflowId);
  const session = new ReplaySession({ workflowBundle: source, replayName: 'replay-values' });
  try {
    return await session.values(history, workflowId);
  } finally {
    await session.close();
  }
}
