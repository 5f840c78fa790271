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
import { Worker, type WorkflowBundle } from '@temporalio/worker';
import { bundleForReplay } from './replay-bundle.js';
import type { HistoryEventJson, HistoryJson, PayloadJson } from './history-builder.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const WORKFLOWS_PATH = path.resolve(here, '../../workflows/index.ts');
const INTERCEPTORS_PATH = path.resolve(here, 'replay-interceptors.ts');

export interface ReplayedValues {
  activities: { activityType: string; args: unknown[] }[];
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

const attributesOf = (e: HistoryEventJson) => e[Object.keys(e).find((k) => k.endsWith('EventAttributes')) as `${string}EventAttributes`] as Record<string, any>;

/** What the history recorded: each scheduled activity's type and input, and the workflow's result. */
export function recordedValues(history: HistoryJson): ReplayedValues {
  const values: ReplayedValues = { activities: [] };
  for (const e of history.events) {
    const a = attributesOf(e);
    if (e.eventType === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED') {
      values.activities.push({ activityType: a.activityType.name, args: (a.input?.payloads ?? []).map(fromJson) });
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
          activityScheduled: { fn: (_info, activityType: string, args: unknown[]) => void values.activities.push({ activityType, args: args.map(asRecorded) }), callDuringReplay: true },
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
