/**
 * The task queues of one deployment, derived from TEMPORAL_TASK_QUEUE: held requests keep the base
 * name (docs/operations.md, "Task queues"), webhook deliveries and the billing report get queues of
 * their own, so a webhook storm or a slow meter never takes the worker slots approvals need.
 */
export function taskQueues(base: string) {
  return { held: base, webhooks: `${base}-webhooks`, billing: `${base}-billing` };
}
