import { createHeldActivities, type HeldActivityDeps } from './held-authorization.js';
import { createUsageReportActivities, type UsageReportActivityDeps } from './usage-report.js';

export type ActivityDeps = HeldActivityDeps & UsageReportActivityDeps;

/** Every activity the worker registers. */
export function createActivities(deps: ActivityDeps) {
  return { ...createHeldActivities(deps), ...createUsageReportActivities(deps) };
}
