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
import type { ActivityOptions } from '@temporalio/workflow';
import { Worker, type WorkflowBundle } from '@temporalio/worker';
import { bundleForReplay } from './replay-bundle.js';
import type { HistoryEventJson, HistoryJson, PayloadJson } from './history-builder.js';

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

/** Replays the history (throwing as plain replay does) and returns the values the code produced. */
export async function replayValues(workflowBundle: WorkflowBundle, history: HistoryJson, workflowId: string): Promise<ReplayedValues> {
  const values: ReplayedValues = { activities: [] };
  let completed = false;
  await Worker.runReplayHistory(
    {
      workflowBundle,
      replayName: 'replay-values',
      sinks: {
        replayRecorder: {
          activityScheduled: {
            fn: (_info, activityType: string, args: unknown[], options: ActivityOptions) => void values.activities.push({ activityType, args: args.map(asRecorded), options: codeOptions(options) }),
            callDuringReplay: true,
          },
          workflowCompleted: {
            fn: (_info, result: unknown) => {
              completed = true;
              values.result = asRecorded(result);
            },
            callDuringReplay: true,
          },
        },
      },
    },
    history,
    workflowId,
  );
  const recorded = recordedValues(history);
  if (!completed || !('result' in recorded)) delete values.result;
  return values;
}
