import { proxyActivities, type ActivityOptions } from '@temporalio/workflow';

/**
 * The activities of a periodic job's run (src/temporal/periodic-jobs.ts starts it on its Schedule):
 * one long activity working through its batches, heartbeating as it goes, so a worker that dies
 * mid-run is noticed within a minute. The Schedule runs again within minutes, so a run does not
 * insist: three attempts. A job that runs seldom (once a day) gives its own timeout and retries.
 */
export const periodicActivities = <A extends object>(options: Pick<ActivityOptions, 'startToCloseTimeout' | 'heartbeatTimeout' | 'retry'> = {}) =>
  proxyActivities<A>({
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: '1 minute',
    retry: { initialInterval: '10 seconds', maximumAttempts: 3 },
    ...options,
  });
