import { createHeldActivities, type HeldActivityDeps } from './held-authorization.js';

export type ActivityDeps = HeldActivityDeps;

/** Every activity the worker registers. */
export function createActivities(deps: ActivityDeps) {
  return { ...createHeldActivities(deps) };
}
