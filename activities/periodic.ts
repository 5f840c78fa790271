import { Context } from '@temporalio/activity';

/**
 * A periodic job's progress, told to the engine (workflows/periodic.ts sets the heartbeat timeout):
 * a worker that stops heartbeating has its run retried elsewhere. Outside an activity (a test, the
 * CLI) there is no one to tell.
 */
export function heartbeat(details: unknown): void {
  try {
    Context.current().heartbeat(details);
  } catch {
    // Not inside an activity.
  }
}
