/**
 * Workflow interceptors for replay tests only (bundled by test/support/replay-recorder.ts): they
 * report what the code under replay passes to each activity (with its timeouts and retry policy)
 * and what it returns, so a replay can
 * be compared value by value with the history it replays (plain replay compares commands only).
 */
import { proxySinks, type ActivityOptions, type Sinks, type WorkflowInterceptorsFactory } from '@temporalio/workflow';

export interface ReplayRecorderSinks extends Sinks {
  replayRecorder: {
    activityScheduled(activityType: string, args: unknown[], options: ActivityOptions): void;
    workflowCompleted(result: unknown): void;
  };
}

const { replayRecorder } = proxySinks<ReplayRecorderSinks>();

export const interceptors: WorkflowInterceptorsFactory = () => ({
  outbound: [
    {
      scheduleActivity(input, next) {
        replayRecorder.activityScheduled(input.activityType, input.args, input.options);
        return next(input);
      },
    },
  ],
  inbound: [
    {
      async execute(input, next) {
        const result = await next(input);
        replayRecorder.workflowCompleted(result);
        return result;
      },
    },
  ],
});
