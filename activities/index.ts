import { createHeldActivities, type HeldActivityDeps } from './held-authorization.js';
import { createWebhookActivities, type WebhookActivityDeps } from './webhook-delivery.js';

export type ActivityDeps = HeldActivityDeps & WebhookActivityDeps;

/** Every activity the worker registers. */
export function createActivities(deps: ActivityDeps) {
  return { ...createHeldActivities(deps), ...createWebhookActivities(deps) };
}
