import type { Config } from '../kernel/config.js';

/** Where and how the engine is reached, from the configuration. */
export function engineSettings(config: Config) {
  const t = config.temporal;
  return {
    address: t.address,
    namespace: t.namespace,
    taskQueue: t.taskQueue,
    allowSignalApprovals: t.allowSignalApprovals,
    tls: t.tls,
    apiKey: t.apiKey,
    reconcileIntervalSeconds: t.reconcileIntervalSeconds,
    auditCheckpointWebhooks: config.auditCheckpointWebhooks,
  };
}
