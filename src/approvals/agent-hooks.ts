import type { AgentHooks } from '../agents/agents.service.js';
import { denyPendingHolds } from './resolution.service.js';

/** Stopping an agent (frozen or deactivated) denies its pending holds in the same transaction. */
export const agentStopHooks: AgentHooks = {
  onAgentStopped: async (trx, agent, reason, actor) => {
    await denyPendingHolds(trx, agent.id, reason, actor);
  },
};
