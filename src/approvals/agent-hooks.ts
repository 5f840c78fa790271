import type { AgentHooks } from '../agents/agents.service.js';
import { denyPendingHolds } from './resolution.service.js';

/** Stopping an agent (frozen or deactivated) denies its pending holds in the same transaction. */
export const agentStopHooks: AgentHooks = {
  onAgentStopped: async (trx, agent, reason, actor) => {
    await denyPendingHolds(trx, agent.id, reason, actor);
  },
};

/**
 * Several features' hooks as one, run in order in the same transaction. The app composes them:
 * the holds above, and those of features that stand on this one and so cannot be imported
 * here (a deactivated agent's AP2 mandates are revoked: src/mandates/mandate-hooks.ts).
 */
export function combineAgentHooks(...hooks: AgentHooks[]): AgentHooks {
  return {
    onAgentStopped: async (trx, agent, reason, actor) => {
      for (const h of hooks) await h.onAgentStopped?.(trx, agent, reason, actor);
    },
  };
}
